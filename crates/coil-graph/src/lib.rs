//! coil-graph: the ATen-level graph IR at the top of coil's pipeline.
//!
//! **Takes**: PyTorch's readable FX graph text (`torch.export(...).graph_module.print_readable()`,
//! Inductor's `fx_graph_readable.py`) or graphs built in Rust with [`GraphBuilder`].
//! **Gives**: a [`Graph`] of typed nodes in program order, each with inferred [`TensorMeta`]
//! (dtype, sizes, strides) following PyTorch's broadcasting and type-promotion rules; a
//! [`verify`]-er; a printer whose output parses back to an equal graph; and a host [`Tensor`]
//! type that reads and writes safetensors.
//! **Must not know about**: lowering, scheduling, kernels, backends. Nothing here prints or reads
//! the environment.
//!
//! ```
//! let text = r#"
//! class GraphModule(torch.nn.Module):
//!     def forward(self, x: "f32[4, 8]"):
//!         relu: "f32[4, 8]" = torch.ops.aten.relu.default(x);  x = None
//!         return (relu,)
//! "#;
//! let graph = coil_graph::parse(text)?;
//! assert_eq!(graph.len(), 2);
//! assert!(coil_graph::print_graph(&graph).contains("torch.ops.aten.relu.default(x)"));
//! # Ok::<(), coil_graph::GraphError>(())
//! ```

mod builder;
mod error;
mod float_fn;
mod graph;
mod infer;
mod kinds;
mod meta;
mod ops;
mod ops_float;
mod parse;
mod print;
mod schema;
pub mod special;
mod tensor;
mod verify;

pub use builder::GraphBuilder;
pub use coil_kernel::MathFn;
pub use coil_kernel::format_float;
pub use coil_kernel::{Category, DEFAULT_FLOAT, DType, Operand, promote_types, result_type};
pub use error::GraphError;
pub use float_fn::FloatFn;
pub use graph::{Arg, Call, DeviceSpec, Graph, Layout, MemoryFormat, Node, NodeId, NodeKind};
pub use infer::{
    AdvancedIndex, ConvGeometry, Window, advanced_index, any_all_dims, arange_len, arange_params,
    conv_geometry, fill_value_of, infer_call, padded_sizes, pool_window, reduction_dims,
    slice_range, spatial_dims,
};
pub use kinds::{
    CheckKind, CompositeKind, CopyKind, DtypeRule, FactoryKind, IndexingKind, LibraryKind, OpClass,
    OpFamily, OpKind, PointwiseKind, ReductionKind, ScanKind, ViewKind, WindowKind,
};
pub use meta::{
    Dims, TensorMeta, broadcast_shapes, contiguous_strides, expand_strides, infer_size,
    is_contiguous, last_position, normalize_dim, normalize_dims, view_dtype_layout, view_strides,
};
pub use ops::{OpDef, OpRef};
pub use parse::{Bindings, bind_inputs, eval_size, is_symbolic, parse, parse_bound, tensor_inputs};
pub use print::print_graph;
pub use schema::{Bound, Param, ParamType, Returns, Scalar, Schema, ValueArg};
pub use tensor::{Data, Tensor, strided_offsets};
pub use verify::verify;
