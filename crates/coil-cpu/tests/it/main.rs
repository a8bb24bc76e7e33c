//! coil-cpu's integration tests, one binary (LLVM links statically, so each test binary is big
//! and slow to link): the JIT harness, the math library's accuracy, vectorisation of the
//! optimised IR, a reduction, the parallel runtime, and errors.

mod accuracy;
mod errors;
mod ir;
mod kernels;
mod parallel;
mod reduce;
