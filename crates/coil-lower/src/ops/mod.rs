//! Lowerings of ATen ops, one file per op family (the op's `coil_graph::OpClass`): pointwise
//! ops and copies, reductions, views, factories and extern matmuls. Adding an op touches its
//! family's file; this one holds the operand helpers every family shares and the dispatch.

mod conv;
mod embedding_bag;
mod factory;
mod fallback;
mod indexing;
mod matmul;
mod pointwise;
mod random;
mod reduce;
mod scatter;
mod sort;
mod views;
mod window;

pub(crate) use matmul::PostChain;

use coil_graph::{Bound, Call, DType, Node, Operand, Scalar, ValueArg};

use crate::body::{Const, ExprId};
use crate::error::LowerError;
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result};

/// A pointwise operand: a tensor value or a Python number.
#[derive(Clone, Copy, Debug)]
enum Val {
    Tensor(TensorId),
    Scalar(Scalar),
}

fn scalar_const(s: Scalar) -> Const {
    match s {
        Scalar::Bool(b) => Const::Bool(b),
        Scalar::Int(i) => Const::Int(i),
        Scalar::Float(f) => Const::Float(f),
    }
}

impl Lowerer<'_> {
    fn unsupported(node: &Node, call: &Call, why: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            node: node.name.clone(),
            op: call.op,
            why: why.into(),
        }
    }

    fn operand(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<Val> {
        match b.value(name).map_err(|e| Self::graph_err(node, e))? {
            ValueArg::Tensor(n) => Ok(Val::Tensor(self.value(n, &node.name)?)),
            ValueArg::Scalar(s) => Ok(Val::Scalar(s)),
        }
    }

    fn opt_operand(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<Option<Val>> {
        match b.get(name) {
            coil_graph::Arg::None => Ok(None),
            _ => self.operand(node, b, name).map(Some),
        }
    }

    fn tensor(&self, node: &Node, b: &Bound<'_>, name: &str) -> Result<TensorId> {
        let n = b.tensor(name).map_err(|e| Self::graph_err(node, e))?;
        self.value(n, &node.name)
    }

    fn promotion_operand(&self, v: Val) -> Operand {
        match v {
            Val::Tensor(t) => {
                let tb = &self.g.tensors[t];
                Operand::Tensor {
                    dtype: tb.dtype,
                    rank: tb.sizes.len(),
                }
            }
            Val::Scalar(s) => Operand::Scalar(s.category()),
        }
    }

    /// Loads (or makes the constant for) an operand, cast to `dtype`.
    fn operand_expr(&mut self, cx: &mut BodyCx, v: Val, dtype: DType) -> ExprId {
        match v {
            Val::Tensor(t) => {
                let e = self.load_broadcast(cx, t);
                cx.body.to_dtype(e, dtype)
            }
            Val::Scalar(s) => cx.body.constant(scalar_const(s), dtype),
        }
    }

    /// A lazy zero of `meta`'s sizes and dtype, standing for an output nobody reads (or one
    /// that is empty by definition, batch norm's eval-form statistics): never realized unless
    /// something reads it.
    fn zeros_of(&mut self, node: &Node, meta: &coil_graph::TensorMeta) -> TensorId {
        let mut cx = BodyCx::new(&meta.sizes);
        let root = cx.body.constant(Const::Int(0), meta.dtype);
        self.finish_pointwise(node, cx, root, meta.dtype)
    }

    /// A pointwise value over the node's output sizes: operands are loaded (broadcast) and cast
    /// to `compute`, `f` combines them, the result is cast to the node's dtype.
    fn elementwise(
        &mut self,
        node: &Node,
        operands: &[Val],
        compute: DType,
        f: impl FnOnce(&mut BodyCx, &[ExprId]) -> ExprId,
    ) -> TensorId {
        let meta = node.meta();
        let mut cx = BodyCx::new(&meta.sizes);
        let args: Vec<ExprId> = operands
            .iter()
            .map(|&v| self.operand_expr(&mut cx, v, compute))
            .collect();
        let root = f(&mut cx, &args);
        self.finish_pointwise(node, cx, root, meta.dtype)
    }

    pub(crate) fn lower_call(&mut self, node: &Node, call: &Call) -> Result<Vec<TensorId>> {
        let b = call
            .op
            .schema()
            .bind(&call.args, &call.kwargs)
            .map_err(|e| Self::graph_err(node, e))?;
        if call.op.kind() == coil_graph::OpKind::IndexPut
            && let Some(t) = self.try_index_put_as_where(node, &b)?
        {
            return Ok(vec![t]);
        }
        if !has_lowering(call.op.kind()) {
            return self.lower_fallback(node, call);
        }
        let chain = match self.try_matmul_post_op(node, call, &b)? {
            Some(matmul::PostOpFold::Conv(t)) => return Ok(vec![t]),
            Some(matmul::PostOpFold::Matmul(c)) => Some(c),
            None => None,
        };
        let vals = self.lower_bound_call(node, call, &b)?;
        if let (Some(c), [t]) = (chain, vals.as_slice()) {
            self.post_chains.insert(*t, c);
        }
        Ok(vals)
    }

    /// [`Self::lower_call`] once the arguments are bound and no post-op folded.
    fn lower_bound_call(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        if let Some(t) = self.try_addmm_extern(node, call, b)? {
            return Ok(vec![t]);
        }
        use coil_graph::{CompositeKind as Cm, CopyKind as Co, OpFamily as F};
        let one = |t: TensorId| Ok(vec![t]);
        match call.op.kind().family() {
            F::KernelOp(op, _) => one(self.lower_kernel_op(node, call, op, b)?),
            F::Float(f) => one(self.lower_float(node, f, b)?),
            F::Pointwise(k) => self.lower_pointwise(node, call, k, b),
            F::Reduction(k) => self.lower_reduction(node, k, b),
            F::Composite(Cm::BatchNormNoTraining | Cm::BatchNorm) => {
                self.lower_batch_norm(node, call, b)
            }
            F::Composite(Cm::Softmax | Cm::LogSoftmax | Cm::NativeLayerNorm) => {
                Err(LowerError::NeedsDecomposition {
                    node: node.name.clone(),
                    op: call.op,
                })
            }
            F::Window(_) => self.lower_pool(node, call, b),
            F::Copy(Co::Flip | Co::Roll | Co::ConstantPadNd) => self.lower_moved(node, call, b),
            F::Copy(Co::SliceScatter) => self.lower_slice_scatter(node, b),
            F::Copy(Co::Clone) => one(self.lower_clone(node, b)?),
            F::Copy(Co::Cat) => one(self.cat(node, b)?),
            F::Extern(k) => self.lower_matmul(node, call, k, b),
            F::View(k) => self.lower_view(node, call, k, b),
            F::Factory(k) => self.lower_factory(node, call, k, b),
            F::Scan(_) => self.lower_scan(node, call, b),
            F::Indexing(k) => self.lower_indexing(node, call, k, b),
            F::Copy(Co::AsStridedScatter) | F::Check(_) => self.lower_fallback(node, call),
        }
    }
}

/// Whether `kind` has a lowering to loop-level IR; the others run as host fallbacks
/// ([`crate::ExternKind::Fallback`]), which is how op coverage grows: the eager version first.
pub fn has_lowering(kind: coil_graph::OpKind) -> bool {
    use coil_graph::{CheckKind as Ch, CopyKind as Co, IndexingKind as I, OpFamily as F};
    match kind.family() {
        // The scatters and sorts lower as kernels, except where Inductor's run on the host too
        // (see `ops/scatter.rs`, `ops/sort.rs`): those fall back from inside their lowering.
        F::Indexing(
            I::Embedding
            | I::Index
            | I::IndexSelect
            | I::Gather
            | I::Scatter
            | I::ScatterAdd
            | I::ScatterReduce
            | I::IndexPut
            | I::Sort
            | I::Topk
            | I::EmbeddingBag,
        ) => true,
        F::Copy(Co::AsStridedScatter) | F::Check(Ch::AssertTensorMetadata) => false,
        F::KernelOp(..)
        | F::Float(_)
        | F::Pointwise(_)
        | F::Reduction(_)
        | F::Composite(_)
        | F::Window(_)
        | F::Copy(_)
        | F::Extern(_)
        | F::View(_)
        | F::Factory(_)
        | F::Scan(_) => true,
    }
}
