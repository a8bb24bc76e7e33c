//! Lowerings of matmuls (`mm`, `bmm`, `addmm`): an extern kernel, with `addmm`'s bias and
//! scales as a pointwise epilogue that fuses with its neighbours.

use coil_graph::{Bound, Call, Node, OpKind, Scalar};

use super::{Val, scalar_const};
use crate::body::Op;
use crate::ir::{ExternKind, MatmulOp, TensorId};
use crate::lowering::{Lowerer, Result};

impl Lowerer<'_> {
    /// Lowers a call of a matmul.
    pub(super) fn lower_matmul(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        let kind = call.op.kind();
        use OpKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::Mm | K::Bmm => {
                let x = self.tensor(node, b, "self")?;
                let w = self.tensor(node, b, "mat2")?;
                let op = if kind == K::Mm {
                    MatmulOp::Mm
                } else {
                    MatmulOp::Bmm
                };
                one(self.extern_kernel(
                    node,
                    ExternKind::Matmul(op),
                    &[x, w],
                    meta.sizes.clone(),
                    out,
                ))
            }
            K::Addmm => {
                let bias = self.operand(node, b, "self")?;
                let x = self.tensor(node, b, "mat1")?;
                let w = self.tensor(node, b, "mat2")?;
                let beta = b.opt_scalar("beta").unwrap_or(Scalar::Int(1));
                let alpha = b.opt_scalar("alpha").unwrap_or(Scalar::Int(1));
                let mm = self.extern_kernel(
                    node,
                    ExternKind::Matmul(MatmulOp::Mm),
                    &[x, w],
                    meta.sizes.clone(),
                    out,
                );
                let operands = if beta.to_f64() == 0.0 {
                    vec![Val::Tensor(mm)]
                } else {
                    vec![Val::Tensor(mm), bias]
                };
                one(self.elementwise(node, &operands, out, |cx, a| {
                    let mut r = a[0];
                    if alpha.to_f64() != 1.0 {
                        let k = cx.body.constant(scalar_const(alpha), out);
                        r = cx.body.binary(Op::Mul, r, k);
                    }
                    if let Some(&bias) = a.get(1) {
                        let mut bias = bias;
                        if beta.to_f64() != 1.0 {
                            let k = cx.body.constant(scalar_const(beta), out);
                            bias = cx.body.binary(Op::Mul, bias, k);
                        }
                        r = cx.body.binary(Op::Add, r, bias);
                    }
                    r
                }))
            }
            other => Err(Self::unsupported(
                node,
                call,
                format!("{other:?} is not a matmul"),
            )),
        }
    }
}
