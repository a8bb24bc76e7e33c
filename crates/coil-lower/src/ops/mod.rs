//! Lowerings of ATen ops, one file per op family (the op's `coil_graph::OpClass`): pointwise
//! ops and copies, reductions, views, factories and extern matmuls. Adding an op touches its
//! family's file; this one holds the operand helpers every family shares and the dispatch.

mod conv;
mod factory;
mod fallback;
mod indexing;
mod matmul;
mod pointwise;
mod reduce;
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
        use coil_graph::OpKind as K;
        match call.op.kind() {
            K::BatchNormNoTraining | K::BatchNorm => return self.lower_batch_norm(node, call, b),
            K::MaxPoolWithIndices | K::AvgPool | K::AdaptiveAvgPool => {
                return self.lower_pool(node, call, b);
            }
            K::Flip | K::Roll | K::ConstantPadNd => return self.lower_moved(node, call, b),
            K::SliceScatter => return self.lower_slice_scatter(node, b),
            K::Convolution => return self.lower_convolution(node, call, b),
            K::AsStrided => return self.lower_as_strided(node, call, b),
            K::Cumsum | K::Cumprod => return self.lower_scan(node, call, b),
            K::Embedding | K::IndexSelect | K::Gather | K::Index => {
                return self.lower_indexing(node, call, b);
            }
            _ => {}
        }
        use coil_graph::OpClass as C;
        match call.op.kind().class() {
            C::Pointwise | C::Copy => self.lower_pointwise(node, call, b),
            C::Reduction | C::Composite => self.lower_reduction(node, call, b),
            C::View => self.lower_view(node, call, b),
            C::Factory => self.lower_factory(node, call, b),
            C::Extern => self.lower_matmul(node, call, b),
            C::Scan | C::Window | C::Indexing | C::Check => self.lower_fallback(node, call),
        }
    }
}

/// Whether `kind` has a lowering to loop-level IR; the others run as host fallbacks
/// ([`crate::ExternKind::Fallback`]), which is how op coverage grows: the eager version first.
pub fn has_lowering(kind: coil_graph::OpKind) -> bool {
    use coil_graph::OpKind::*;
    !matches!(
        kind,
        EmbeddingBag
            | Scatter
            | ScatterAdd
            | IndexPut
            | AssertTensorMetadata
            | Sort
            | Topk
            | AsStridedScatter
    )
}
