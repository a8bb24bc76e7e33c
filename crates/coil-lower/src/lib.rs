//! coil-lower: the lowering from coil's ATen-level graph to Inductor's loop-level IR.
//!
//! **Takes**: a (decomposed) [`coil_graph::Graph`] and a [`LowerConfig`] (the realize
//! thresholds; each backend supplies its own).
//! **Gives**: a [`LoweredGraph`]: graph inputs, realized [`Buffer`]s `buf0, buf1, ...` in creation
//! order (each a [`ComputedBuffer`] with a [`LoopBody`] over index variables, or an extern:
//! a matmul, or a host fallback for an op with no lowering, [`ExternKind::Fallback`], which
//! [`run_host_op`] runs through coil-eager), their layouts, origins and read/write [`Dep`]s (`MemoryDep`, `StarDep`, `WeakDep`)
//! with `(numel, rnumel)` groups; the dump Inductor writes as `ir_pre_fusion.txt`
//! ([`LoweredGraph::ir_pre_fusion`]); and an interpreter over the IR
//! ([`LoweredGraph::evaluate`]) for tests.
//! **Must not know about**: scheduling, fusion, kernels, backends, LLVM, PTX. Nothing here prints
//! or reads the environment.
//!
//! Every graph value becomes a [`TensorBox`] over a [`StorageBox`] (through a [`View`] for view
//! ops, which never copy). Pointwise values stay lazy and are inlined into their readers;
//! reductions, graph outputs and extern operands are realized, and values read several times
//! realize when recomputing them would cost too much ([`LowerConfig`]). See `docs/lowering.md`.
//!
//! ```
//! let text = r#"
//! class GraphModule(torch.nn.Module):
//!     def forward(self, x: "f32[1024, 1024]"):
//!         add: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(x, 1)
//!         relu: "f32[1024, 1024]" = torch.ops.aten.relu.default(add)
//!         sum_1: "f32[1024]" = torch.ops.aten.sum.dim_IntList(relu, [1])
//!         return (sum_1,)
//! "#;
//! let graph = coil_graph::parse(text)?;
//! let lowered = coil_lower::lower(&graph, &coil_lower::LowerConfig::gpu())?;
//! assert_eq!(lowered.buffers().len(), 1);
//! let buf0 = &lowered.buffers()[0];
//! assert_eq!(buf0.group(), (1024, 1024));
//! assert!(lowered.ir_pre_fusion().contains("ops.reduction(torch.float32, torch.float32, 'sum', relu)"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod body;
/// The index expressions, from coil-kernel (their home: kernels use them too).
mod index {
    pub(crate) use coil_kernel::{IndexExpr, Var, VarRanges};
}
/// The typed ids, from coil-kernel.
mod idx {
    pub(crate) use coil_kernel::{Idx, IndexVec};
}
mod config;
mod deps;
mod dump;
mod error;
mod eval;
mod fold;
mod ir;
mod lowering;
mod math;
mod ops;
mod verify;

pub use body::{BodyStats, Expr, ExprGraph, ExprId, LoopBody};
pub use coil_kernel::scalar::{Acc, Scalar, binary as eval_binary, unary as eval_unary};
pub use coil_kernel::{
    Const, ConvGrad, ConvOp, ExternKind, HostOp, Idx, IndexExpr, IndexVec, MatmulOp, Op, PostOp,
    ReductionType, StoreMode, Term, Var, VarPrefix, VarRanges, resolve_indirect, typed_id,
};
pub use config::LowerConfig;
pub use deps::{Dep, MemoryDep, StarDep, WeakDep};
pub use error::LowerError;
pub use ir::{
    BufRef, Buffer, BufferId, BufferKind, ComputedBuffer, Epilogue, ExternInput, ExternKernel,
    FixedLayout, IndexCheck, InputBuffer, InputId, Origin, OutputRef, Pointwise, Reduction,
    Scatter, StorageBox, StorageData, StorageId, TensorBox, TensorId, View,
};
pub use lowering::lower;
pub use ops::has_lowering;

/// The lowered program: inputs, realized buffers in creation order, outputs, and the IR values
/// of every graph node.
#[derive(Clone, Debug, Default)]
pub struct LoweredGraph {
    pub(crate) inputs: IndexVec<InputId, InputBuffer>,
    pub(crate) buffers: IndexVec<BufferId, Buffer>,
    pub(crate) storages: IndexVec<StorageId, StorageBox>,
    pub(crate) tensors: IndexVec<TensorId, TensorBox>,
    pub(crate) outputs: Vec<OutputRef>,
    pub(crate) values: Vec<(String, Vec<TensorId>)>,
    pub(crate) index_checks: Vec<IndexCheck>,
    pub(crate) checks_layout: FixedLayout,
    pub(crate) epilogues: Vec<Epilogue>,
}

impl LoweredGraph {
    /// The graph inputs, in signature order.
    pub fn inputs(&self) -> &[InputBuffer] {
        self.inputs.as_slice()
    }

    /// One input.
    pub fn input(&self, id: InputId) -> &InputBuffer {
        &self.inputs[id]
    }

    /// The realized buffers, in creation order (`buf0, buf1, ...`): a valid execution order.
    /// (`buffers()[i].id.index() == i`).
    pub fn buffers(&self) -> &[Buffer] {
        self.buffers.as_slice()
    }

    /// One buffer.
    pub fn buffer(&self, id: BufferId) -> &Buffer {
        &self.buffers[id]
    }

    /// What the graph returns, in order.
    pub fn outputs(&self) -> &[OutputRef] {
        &self.outputs
    }

    /// Every storage (Inductor's `StorageBox`es), realized or still lazy.
    pub fn storages(&self) -> &IndexVec<StorageId, StorageBox> {
        &self.storages
    }

    /// Every tensor value (Inductor's `TensorBox`es).
    pub fn tensors(&self) -> &IndexVec<TensorId, TensorBox> {
        &self.tensors
    }

    /// The values the graph node `name` lowered to (one per output of the node).
    pub fn node_values(&self, name: &str) -> Option<&[TensorId]> {
        self.values
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }

    /// The buffer holding node `name`'s value, if it was realized (or is an input).
    pub fn realized_buffer_of(&self, name: &str) -> Option<BufRef> {
        let t = *self.node_values(name)?.first()?;
        self.storages[self.tensors[t].storage].buffer()
    }

    /// The name of a buffer: the graph name for inputs, `buf<n>` otherwise.
    pub fn name(&self, b: BufRef) -> String {
        match b {
            BufRef::Input(i) => self.inputs[i].name.clone(),
            BufRef::Buffer(b) => b.to_string(),
            BufRef::IndexChecks => "index_checks".into(),
        }
    }

    /// The layout of an input or buffer.
    pub fn layout(&self, b: BufRef) -> &FixedLayout {
        match b {
            BufRef::Input(i) => &self.inputs[i].layout,
            BufRef::Buffer(b) => &self.buffers[b].layout,
            BufRef::IndexChecks => &self.checks_layout,
        }
    }

    /// What each indirect index is checked for, by check number (empty when the graph has
    /// no indirect loads).
    pub fn index_checks(&self) -> &[IndexCheck] {
        &self.index_checks
    }

    /// Finds an input or buffer by name (`x`, `buf3`).
    pub fn find(&self, name: &str) -> Option<BufRef> {
        if let Some((i, _)) = self.inputs.iter_enumerated().find(|(_, b)| b.name == name) {
            return Some(BufRef::Input(i));
        }
        self.buffers
            .iter_enumerated()
            .find(|(id, _)| id.to_string() == name)
            .map(|(id, _)| BufRef::Buffer(id))
    }
}

/// Runs a host fallback on its operands (contiguous or strided host tensors, in the op's
/// operand order) and returns the output it stands for, contiguous. An error names the op.
pub fn run_host_op(
    op: &HostOp,
    inputs: &[coil_graph::Tensor],
) -> Result<coil_graph::Tensor, String> {
    let graph = op
        .program::<coil_graph::Graph>()
        .ok_or_else(|| format!("host fallback {}: not a graph of coil-lower's", op.op))?;
    let run = coil_eager::run(graph, inputs)
        .map_err(|e| format!("node '{}' ({}, a host fallback): {e}", op.node, op.op))?;
    run.outputs
        .into_iter()
        .next()
        .map(|t| t.contiguous())
        .ok_or_else(|| format!("host fallback {}: no output", op.op))
}

/// Runs one call of ATen's `op` on host tensors through coil-eager: `args` builds its arguments
/// from the inputs' nodes, `output` picks an element of a tuple result. Returns that result,
/// contiguous.
fn run_call_on_host(
    op: &str,
    inputs: &[coil_graph::Tensor],
    args: impl FnOnce(&[coil_graph::NodeId]) -> Result<Vec<coil_graph::Arg>, String>,
    output: Option<usize>,
) -> Result<coil_graph::Tensor, String> {
    use coil_graph::{Call, GraphBuilder, OpRef};
    let name = op.split('.').next().unwrap_or(op);
    let op = OpRef::lookup(op).ok_or_else(|| format!("{name} is not registered"))?;
    let mut b = GraphBuilder::new();
    let ids: Vec<coil_graph::NodeId> = inputs
        .iter()
        .enumerate()
        .map(|(i, t)| b.input(&format!("arg{i}"), t.dtype(), t.sizes()))
        .collect();
    let call = Call {
        op,
        args: args(&ids)?,
        kwargs: vec![],
    };
    let mut out = b.push_call(call).map_err(|e| e.to_string())?;
    if let Some(k) = output {
        out = b.getitem(out, k).map_err(|e| e.to_string())?;
    }
    let graph = b.finish(&[out]).map_err(|e| e.to_string())?;
    let run = coil_eager::run(&graph, inputs).map_err(|e| format!("{name}: {e}"))?;
    run.outputs
        .into_iter()
        .next()
        .map(|t| t.contiguous())
        .ok_or_else(|| format!("{name}: no output"))
}

/// `sizes` as an int-list argument.
fn int_list(sizes: &[usize]) -> coil_graph::Arg {
    coil_graph::Arg::List(
        sizes
            .iter()
            .map(|&x| coil_graph::Arg::Int(x as i64))
            .collect(),
    )
}

/// Runs a library convolution gradient's operands (`[grad_output, weight]` for the input's,
/// `[input, grad_output]` for the weight's; host tensors) through coil-eager's
/// `convolution_backward`, `sizes` being the gradient's: the reference for backends'
/// libraries. Returns the gradient, contiguous.
pub fn run_conv_backward_on_host(
    conv: &ConvOp,
    grad: ConvGrad,
    inputs: &[coil_graph::Tensor],
    sizes: &[usize],
) -> Result<coil_graph::Tensor, String> {
    use coil_graph::Arg;
    let [a, c] = inputs else {
        return Err("a convolution gradient takes two operands".into());
    };
    let zeros = coil_graph::Tensor::new(
        coil_graph::Data::from_f64(a.dtype(), std::iter::repeat_n(0.0, sizes.iter().product())),
        sizes.to_vec(),
    )
    .map_err(|e| e.to_string())?;
    // [grad_output, input, weight], the one computed standing in as zeros.
    let operands = match grad {
        ConvGrad::Input => [a.clone(), zeros, c.clone()],
        ConvGrad::Weight => [c.clone(), a.clone(), zeros],
    };
    let k = usize::from(grad == ConvGrad::Weight);
    let args = |ids: &[coil_graph::NodeId]| {
        Ok(vec![
            Arg::Node(ids[0]),
            Arg::Node(ids[1]),
            Arg::Node(ids[2]),
            Arg::None,
            int_list(&conv.stride),
            int_list(&conv.padding),
            int_list(&conv.dilation),
            Arg::Bool(false),
            int_list(&vec![0; conv.stride.len()]),
            Arg::Int(conv.groups as i64),
            Arg::List(vec![Arg::Bool(k == 0), Arg::Bool(k == 1), Arg::Bool(false)]),
        ])
    };
    run_call_on_host("convolution_backward.default", &operands, args, Some(k))
}

/// Runs a library convolution's operands (`[input, weight]` or `[input, weight, bias]`, host
/// tensors) through coil-eager: the reference for backends' convolution libraries, and what a
/// backend without one can call. Returns the output, contiguous.
pub fn run_conv_on_host(
    conv: &ConvOp,
    inputs: &[coil_graph::Tensor],
) -> Result<coil_graph::Tensor, String> {
    use coil_graph::Arg;
    let args = |ids: &[coil_graph::NodeId]| {
        let bias = match ids.get(2) {
            Some(&n) if conv.bias => Arg::Node(n),
            _ => Arg::None,
        };
        let [x, w, ..] = ids else {
            return Err("a convolution takes an input and a weight".to_string());
        };
        Ok(vec![
            Arg::Node(*x),
            Arg::Node(*w),
            bias,
            int_list(&conv.stride),
            int_list(&conv.padding),
            int_list(&conv.dilation),
            Arg::Bool(false),
            int_list(&vec![0; conv.stride.len()]),
            Arg::Int(conv.groups as i64),
        ])
    };
    let out = run_call_on_host("convolution.default", inputs, args, None)?;
    if conv.post.is_empty() {
        return Ok(out);
    }
    // The post-ops in f32 on each element, one rounding to the dtype.
    let values = out.to_f64_vec().into_iter().map(|mut y| {
        for p in &conv.post {
            y = f64::from(p.apply(y, 0.0) as f32);
        }
        y
    });
    coil_graph::Tensor::new(
        coil_graph::Data::from_f64(out.dtype(), values),
        out.sizes().to_vec(),
    )
    .map_err(|e| e.to_string())
}
