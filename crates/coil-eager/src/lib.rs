//! coil-eager: the reference interpreter. It runs a coil-graph [`Graph`] op by op on host
//! tensors with PyTorch eager's semantics, and is both the test oracle for every later stage
//! and the eager baseline for benchmarks.
//!
//! **Takes**: a [`Graph`] (parsed or built; every node carries its inferred metas) and one
//! [`Tensor`] per graph input. **Gives**: the output tensors, each with exactly the dtype,
//! sizes and strides the graph records (views share their input's storage), and
//! [`EagerStats`]: the ops run, and the bytes PyTorch eager would move (each op reads its
//! distinct inputs once and writes its outputs; views move nothing).
//! **Must not know about**: passes, lowering, scheduling, code generation, backends. It does
//! not print or read the environment; it emits `tracing` events at target `eager`.
//!
//! Numerics follow PyTorch's CPU kernels: arithmetic in the "opmath" type (f32 for
//! f16/bf16/f32, f64 for f64, i64 for integers and bool) then a cast to the output dtype,
//! pairwise sums, two-pass f64 variances, max-subtracted softmax, matmul through `gemm`.
//!
//! ```
//! use coil_graph::{Arg, DType, GraphBuilder, Tensor};
//! let mut b = GraphBuilder::new();
//! let x = b.input("x", DType::F32, &[2, 3]);
//! let y = b.call("mul.Tensor", vec![Arg::Node(x), Arg::Float(2.0)])?;
//! let s = b.call("sum.dim_IntList", vec![Arg::Node(y), Arg::List(vec![Arg::Int(1)])])?;
//! let graph = b.finish(&[s])?;
//!
//! let x = Tensor::from_f32(vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0], vec![2, 3])?;
//! let run = coil_eager::run(&graph, &[x])?;
//! assert_eq!(run.outputs[0].to_f64_vec(), vec![12.0, 30.0]);
//! assert_eq!(run.stats.num_kernels(), 2);
//! assert_eq!(run.stats.bytes(), (24 + 24) + (24 + 8));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Graph`]: coil_graph::Graph
//! [`Tensor`]: coil_graph::Tensor

mod composite;
mod elem;
mod error;
mod factory;
mod host;
mod indexing;
mod interp;
mod kernel_op;
mod matmul;
mod nn;
pub mod oracle;
mod pointwise;
mod reduce;
mod sort;
mod stats;
mod strided;
mod views;

pub use error::EagerError;
pub use interp::{EagerRun, run, run_float64, run_within};
pub use stats::{EagerStats, OpStat};
