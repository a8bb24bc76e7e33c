//! coil-cpu's integration tests, one binary (LLVM links statically, so each test binary is big
//! and slow to link): the JIT harness, the math library's accuracy, vectorisation of the
//! optimised IR, a reduction, the parallel runtime, errors, and the backend (zoo models, random
//! graphs, dtypes and odd shapes, the generated IR) against PyTorch and coil-eager.

mod accuracy;
mod backend_ir;
mod bounded;
mod cache;
mod driver;
mod errors;
mod guarded;
mod ir;
mod kernels;
mod openmp;
mod parallel;
mod philox;
mod pipeline;
mod random;
mod real;
mod reduce;
mod shapes;
mod zoo;
