//! Lowerings of factories (`full`, `scalar_tensor`, `arange`): bodies of the index alone.

use coil_graph::FactoryKind;
use coil_graph::{Bound, Call, DType, Node, arange_params};

use super::scalar_const;
use crate::body::{Const, Op};
use crate::ir::TensorId;
use crate::lowering::{BodyCx, Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers a call of a factory.
    pub(super) fn lower_factory(
        &mut self,
        node: &Node,
        call: &Call,
        kind: FactoryKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        use FactoryKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::Full | K::FullLike | K::NewFull => {
                let fill = coil_graph::fill_value_of(b, &call.op.schema().name)
                    .map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let root = cx.body.constant(scalar_const(fill), out);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::ScalarTensor => {
                let s = b.scalar("s").map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let root = cx.body.constant(scalar_const(s), out);
                one(self.finish_pointwise(node, cx, root, out))
            }
            K::PhiloxRand | K::PhiloxRandn | K::PhiloxRandint => self.lower_random(node, kind, b),
            K::Arange => {
                let (start, _, step) = arange_params(b).map_err(|e| Self::graph_err(node, e))?;
                let mut cx = BodyCx::new(&meta.sizes);
                let i = cx.idx.first().cloned().unwrap_or_default();
                let ints = !out.is_float() && start.fract() == 0.0 && step.fract() == 0.0;
                let root = if ints {
                    let e = i.scale(step as i64).add_constant(start as i64);
                    cx.body.index_expr(e, DType::I64)
                } else {
                    // start + i*step in double, then cast (PyTorch's accscalar).
                    let ie = cx.body.index_expr(i, DType::I64);
                    let fi = cx.body.to_dtype(ie, DType::F64);
                    let st = cx.body.constant(Const::Float(step), DType::F64);
                    let s0 = cx.body.constant(Const::Float(start), DType::F64);
                    let m = cx.body.binary(Op::Mul, fi, st);
                    cx.body.binary(Op::Add, m, s0)
                };
                one(self.finish_pointwise(node, cx, root, out))
            }
        }
    }
}
