//! The interpreter loop: checks the inputs, runs each node in program order, frees values after
//! their last use, checks every result against the node's recorded meta, and counts traffic.

use coil_graph::{
    Bound, Dims, Graph, NodeId, NodeKind, OpClass, OpKind, Scalar, Tensor, TensorMeta, ValueArg,
};

use crate::error::{EagerError, OpError, fail};
use crate::stats::{EagerStats, OpStat};
use crate::{composite, factory, indexing, matmul, nn, pointwise, reduce, views};

/// The result of [`run`]: the graph's outputs and what it took to compute them.
#[derive(Clone, Debug)]
pub struct EagerRun {
    /// The returned tensors, in the graph's return order.
    pub outputs: Vec<Tensor>,
    /// One record per executed call.
    pub stats: EagerStats,
}

/// Runs `graph` on `inputs` (one tensor per graph input, in signature order) op by op, with
/// PyTorch eager's semantics.
///
/// Each result has exactly the dtype, sizes and strides the graph records for its node; views
/// share their input's storage. Inputs must match the signature's dtypes and sizes; they may
/// be strided (they are made contiguous first, as the signature declares them).
pub fn run(graph: &Graph, inputs: &[Tensor]) -> Result<EagerRun, EagerError> {
    run_within(graph, inputs, usize::MAX)
}

/// [`run`], refusing (before it allocates) any op that would need more than `max_bytes`:
/// its results (views need none) plus a materialized copy of each operand that is not
/// contiguous (an expanded or permuted view an op may copy first). An error names the node
/// and the bytes; nothing is allocated past the budget.
pub fn run_within(
    graph: &Graph,
    inputs: &[Tensor],
    max_bytes: usize,
) -> Result<EagerRun, EagerError> {
    let sig = graph.inputs();
    if sig.len() != inputs.len() {
        return Err(EagerError::InputCount {
            expected: sig.len(),
            given: inputs.len(),
        });
    }
    let positions = graph.positions();
    let mut env: Env = vec![None; positions.len()];
    for (&id, t) in sig.iter().zip(inputs) {
        let node = graph.node(id);
        let meta = node.meta();
        if t.dtype() != meta.dtype {
            return Err(EagerError::InputDType {
                name: node.name.clone(),
                expected: meta.dtype,
                got: t.dtype(),
            });
        }
        if t.sizes() != meta.sizes {
            return Err(EagerError::InputShape {
                name: node.name.clone(),
                expected: meta.sizes.clone(),
                got: t.sizes().to_vec(),
            });
        }
        env[id.index()] = Some(vec![t.contiguous()]);
    }

    // The last position at which each value is read; graph outputs live to the end.
    let mut last_use = vec![0usize; positions.len()];
    for (id, node) in graph.nodes() {
        for src in node.inputs() {
            last_use[src.index()] = last_use[src.index()].max(positions[id.index()]);
        }
    }
    for &o in graph.outputs() {
        last_use[o.index()] = usize::MAX;
    }

    let mut stats = EagerStats::default();
    for (pos, (id, node)) in graph.nodes().enumerate() {
        match &node.kind {
            NodeKind::Input => {}
            NodeKind::GetItem { source, index } => {
                let t = env
                    .get(source.index())
                    .and_then(|v| v.as_ref())
                    .and_then(|v| v.get(*index))
                    .cloned()
                    .ok_or_else(|| {
                        EagerError::Graph(format!(
                            "'{}' reads output {index} of '{}', which has no such output",
                            node.name,
                            graph.node(*source).name
                        ))
                    })?;
                env[id.index()] = Some(vec![t]);
            }
            NodeKind::Call(call) => {
                let op_name = call.op.to_string();
                let wrap = |e: OpError| EagerError::Op {
                    node: node.name.clone(),
                    op: op_name.clone(),
                    msg: e.0,
                };
                let bound = call
                    .op
                    .schema()
                    .bind(&call.args, &call.kwargs)
                    .map_err(|e| wrap(e.into()))?;
                let args = Args {
                    b: bound,
                    graph,
                    env: &env,
                };
                let kind = call.op.kind();
                if max_bytes != usize::MAX {
                    let need = op_bytes(kind, &args, node);
                    if need > max_bytes {
                        return Err(EagerError::Memory {
                            node: node.name.clone(),
                            need,
                            budget: max_bytes,
                        });
                    }
                }
                let outputs = eval(kind, &args, &node.outputs).map_err(wrap)?;
                check_outputs(&outputs, &node.outputs).map_err(wrap)?;

                // Traffic: each distinct tensor argument once, at its own size.
                let mut read_ids = node.inputs();
                read_ids.sort_unstable();
                read_ids.dedup();
                let reads: Vec<&Tensor> = read_ids
                    .iter()
                    .map(|&n| args.node_tensor(n))
                    .collect::<Result<_, _>>()
                    .map_err(wrap)?;
                let is_view = kind.class() == OpClass::View
                    && outputs
                        .iter()
                        .all(|o| reads.first().is_some_and(|i| o.shares_storage(i)));
                let (bytes_read, bytes_written) = if is_view {
                    (0, 0)
                } else {
                    (
                        reads.iter().map(|t| nbytes(t)).sum(),
                        outputs.iter().map(nbytes).sum(),
                    )
                };
                tracing::trace!(
                    target: "eager",
                    node = %node.name,
                    op = %op_name,
                    bytes_read,
                    bytes_written,
                    "ran"
                );
                stats.ops.push(OpStat {
                    node: node.name.clone(),
                    op: op_name,
                    bytes_read,
                    bytes_written,
                    is_view,
                });
                env[id.index()] = Some(outputs);
            }
        }
        for src in node.inputs() {
            if last_use[src.index()] == pos {
                env[src.index()] = None;
            }
        }
    }

    let outputs = graph
        .outputs()
        .iter()
        .map(|&o| {
            env.get(o.index())
                .and_then(|v| v.as_ref())
                .and_then(|v| v.first())
                .cloned()
                .ok_or_else(|| {
                    EagerError::Graph(format!(
                        "output '{}' was never computed",
                        graph.node(o).name
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(EagerRun { outputs, stats })
}

/// What running `node` may allocate: its results (none for a view) and a contiguous copy of
/// every operand that is not contiguous.
fn op_bytes(kind: OpKind, args: &Args<'_>, node: &coil_graph::Node) -> usize {
    let results: usize = if kind.class() == OpClass::View {
        0
    } else {
        node.outputs
            .iter()
            .map(TensorMeta::nbytes)
            .fold(0, usize::saturating_add)
    };
    let mut ids = node.inputs();
    ids.sort_unstable();
    ids.dedup();
    let copies = ids
        .iter()
        .filter_map(|&n| args.node_tensor(n).ok())
        .filter(|t| !t.is_contiguous())
        .map(nbytes)
        .fold(0, usize::saturating_add);
    results.saturating_add(copies)
}

/// The graph's outputs computed in float64 (f32, f16 and bf16 replaced by f64 throughout, their
/// inputs cast up exactly), the reference checks of float results compare with; `None` when
/// the graph computes none of those or the float64 run fails (within `max_bytes`, as
/// [`run_within`]).
pub fn run_float64(graph: &Graph, inputs: &[Tensor], max_bytes: usize) -> Option<Vec<Tensor>> {
    use coil_graph::DType;
    let narrow = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    if !graph
        .nodes()
        .any(|(_, n)| n.outputs.iter().any(|m| narrow(m.dtype)))
    {
        return None;
    }
    let g64 = [DType::F32, DType::F16, DType::BF16]
        .into_iter()
        .fold(graph.clone(), |g, d| g.with_dtype_replaced(d, DType::F64));
    let inputs: Vec<Tensor> = inputs
        .iter()
        .map(|t| {
            if narrow(t.dtype()) {
                t.to_dtype(DType::F64)
            } else {
                t.clone()
            }
        })
        .collect();
    let run = run_within(&g64, &inputs, max_bytes).ok()?;
    (run.outputs.len() == graph.outputs().len()).then_some(run.outputs)
}

fn nbytes(t: &Tensor) -> usize {
    t.numel() * t.dtype().itemsize()
}

/// Every result must be what the graph says it is: eager is the oracle for later stages, so
/// a disagreement with meta inference is reported rather than papered over.
fn check_outputs(outputs: &[Tensor], metas: &[TensorMeta]) -> Result<(), OpError> {
    if outputs.len() != metas.len() {
        return fail(format!(
            "produced {} outputs but the graph records {}",
            outputs.len(),
            metas.len()
        ));
    }
    for (i, (t, m)) in outputs.iter().zip(metas).enumerate() {
        if t.dtype() != m.dtype || t.sizes() != m.sizes || t.strides() != m.strides {
            return fail(format!(
                "output {i} is {}{} with strides {} but the graph records {m} with strides {}",
                t.dtype(),
                Dims(t.sizes()),
                Dims(t.strides()),
                Dims(&m.strides)
            ));
        }
    }
    Ok(())
}

/// Values computed so far, by `NodeId::index()`; `None` before definition and after last use.
type Env = Vec<Option<Vec<Tensor>>>;

/// A call's arguments, bound to its schema, with tensors looked up in the environment.
pub(crate) struct Args<'a> {
    pub(crate) b: Bound<'a>,
    graph: &'a Graph,
    env: &'a Env,
}

/// A pointwise operand: a tensor or a Python number.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Value<'a> {
    Tensor(&'a Tensor),
    Scalar(Scalar),
}

impl<'a> Args<'a> {
    /// The tensor a node computed.
    pub(crate) fn node(&self, n: NodeId) -> Result<&'a Tensor, OpError> {
        self.node_tensor(n)
    }

    fn node_tensor(&self, n: NodeId) -> Result<&'a Tensor, OpError> {
        self.env
            .get(n.index())
            .and_then(|v| v.as_ref())
            .and_then(|v| v.first())
            .ok_or_else(|| {
                OpError::new(format!(
                    "reads '{}', which is not available (not computed, or freed)",
                    self.graph.node(n).name
                ))
            })
    }

    /// A tensor argument.
    pub(crate) fn tensor(&self, name: &str) -> Result<&'a Tensor, OpError> {
        self.node_tensor(self.b.tensor(name)?)
    }

    /// An optional tensor argument.
    pub(crate) fn opt_tensor(&self, name: &str) -> Result<Option<&'a Tensor>, OpError> {
        self.b
            .opt_tensor(name)
            .map(|n| self.node_tensor(n))
            .transpose()
    }

    /// A list of tensors.
    pub(crate) fn tensors(&self, name: &str) -> Result<Vec<&'a Tensor>, OpError> {
        self.b
            .tensors(name)?
            .into_iter()
            .map(|n| self.node_tensor(n))
            .collect()
    }

    /// A tensor or a number.
    pub(crate) fn value(&self, name: &str) -> Result<Value<'a>, OpError> {
        Ok(match self.b.value(name)? {
            ValueArg::Tensor(n) => Value::Tensor(self.node_tensor(n)?),
            ValueArg::Scalar(s) => Value::Scalar(s),
        })
    }

    /// An optional tensor or number.
    pub(crate) fn opt_value(&self, name: &str) -> Result<Option<Value<'a>>, OpError> {
        match self.b.opt_value(name)? {
            None => Ok(None),
            Some(_) => self.value(name).map(Some),
        }
    }
}

/// Dispatches one call to its op family.
fn eval(kind: OpKind, args: &Args<'_>, metas: &[TensorMeta]) -> Result<Vec<Tensor>, OpError> {
    let Some(first) = metas.first() else {
        return fail("the graph records no outputs for this call");
    };
    use coil_graph::OpFamily as F;
    let one = |t: Tensor| vec![t];
    match kind.family() {
        F::KernelOp(op, _) => crate::kernel_op::eval(op, args, first).map(one),
        F::Float(f) => pointwise::float(f, args, first).map(one),
        F::Pointwise(k) => pointwise::eval(k, args, first).map(one),
        F::Reduction(k) => reduce::eval(k, args, first),
        F::Composite(k) => composite::eval(k, args, metas),
        F::View(k) => views::eval(k, args),
        F::Copy(k) => views::eval_copy(k, args, first),
        F::Factory(k) => factory::eval(k, args, first).map(one),
        F::Extern(coil_graph::LibraryKind::ConvolutionBackward) => {
            nn::convolution_backward(args, metas)
        }
        F::Extern(k) => matmul::eval(k, args, first).map(one),
        F::Window(k) => nn::pool(k, args, metas),
        F::Scan(k) => indexing::eval_scan(k, args, first).map(one),
        F::Indexing(k) => indexing::eval(k, args, metas),
        F::Check(coil_graph::CheckKind::AssertTensorMetadata) => Ok(vec![]),
    }
}
