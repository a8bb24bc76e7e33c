//! Lowerings of matmuls (`mm`, `bmm`, `addmm`): an extern kernel, with `addmm`'s bias and
//! scales as a pointwise epilogue that fuses with its neighbours; and Inductor's
//! `should_prefer_unfused_addmm` in reverse: a bias added to an `mm` whose result is not only
//! read by pointwise ops goes into the library call ([`MatmulOp::Addmm`]), as Inductor keeps
//! such an `addmm` an extern kernel.

use coil_graph::{Arg, Bound, Call, DType, Node, NodeId, NodeKind, OpClass, OpKind, Scalar};

use super::{Val, scalar_const};
use crate::body::Op;
use crate::deps::{Dep, StarDep};
use crate::index::{IndexExpr, Var};
use crate::ir::{BufferKind, ExternInput, ExternKind, MatmulOp, StorageData, TensorId};
use crate::lowering::{Lowerer, Result};

impl Lowerer<'_> {
    /// Whether every use of node `id` is pointwise, looking through views (Inductor's
    /// `is_pointwise_use`); a graph output is not.
    fn only_pointwise_uses(&self, id: NodeId) -> bool {
        if self.graph.outputs().contains(&id) {
            return false;
        }
        let users = &self.users[id.index()];
        !users.is_empty()
            && users.iter().all(|&u| match &self.graph.node(u).kind {
                NodeKind::Call(c) => match c.op.kind().class() {
                    OpClass::View => self.only_pointwise_uses(u),
                    OpClass::Pointwise => true,
                    _ => false,
                },
                NodeKind::GetItem { .. } => self.only_pointwise_uses(u),
                NodeKind::Input => false,
            })
    }

    /// `add.Tensor(mm(a, b), bias)` (either order, `alpha` 1, a 1-D f32 bias of the product's
    /// width) as one `addmm` library call when the sum is not only read by pointwise ops
    /// (which would fuse the bias themselves) and nothing else reads the product: the `mm`'s
    /// extern gets the bias as its first operand. `None` when the pattern does not apply.
    pub(super) fn try_addmm_extern(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Option<TensorId>> {
        if call.op.kind() != OpKind::Add
            || b.opt_scalar("alpha").is_some_and(|a| a.to_f64() != 1.0)
            || node.meta().dtype != DType::F32
        {
            return Ok(None);
        }
        match self.graph.find(&node.name) {
            Some(me) if !self.only_pointwise_uses(me) => {}
            _ => return Ok(None),
        }
        let (Arg::Node(x), Arg::Node(y)) = (b.get("self"), b.get("other")) else {
            return Ok(None);
        };
        let sizes = node.meta().sizes.clone();
        for (mm, bias) in [(*x, *y), (*y, *x)] {
            let is_mm =
                matches!(&self.graph.node(mm).kind, NodeKind::Call(c) if c.op.kind() == OpKind::Mm);
            let bias_meta = self.graph.node(bias).meta();
            if !is_mm
                || self.users[mm.index()].len() != 1
                || self.graph.outputs().contains(&mm)
                || sizes.len() != 2
                || bias_meta.sizes != [sizes[1]]
                || bias_meta.dtype != DType::F32
            {
                continue;
            }
            let t = self.value(mm, &node.name)?;
            let StorageData::Extern(buf) = self.g.storages[self.g.tensors[t].storage].data else {
                continue;
            };
            if self.g.tensors[t].view.is_some() || self.g.tensors[t].sizes != sizes {
                continue;
            }
            // The bias broadcast over the rows: a [m, n] view with strides [0, 1].
            let bt = self.value(bias, &node.name)?;
            let wide = self.make_view(node, bt, sizes.clone(), vec![IndexExpr::var(Var::p(1))]);
            let (buffer, layout) = self.realize_strided(wide);
            let base = self.buf_layout(buffer).clone();
            let origin = self.origin(node);
            let eb = &mut self.g.buffers[buf];
            let BufferKind::Extern(ext) = &mut eb.kind else {
                continue;
            };
            if ext.kind != ExternKind::Matmul(MatmulOp::Mm) {
                continue;
            }
            ext.kind = ExternKind::Matmul(MatmulOp::Addmm);
            ext.inputs.insert(0, ExternInput { buffer, layout });
            let dep = Dep::Star(StarDep {
                buffer,
                numel: base.numel(),
                dtype: base.dtype,
            });
            if !eb.reads.contains(&dep) {
                eb.reads.push(dep);
            }
            eb.origins.push(origin);
            return Ok(Some(t));
        }
        Ok(None)
    }
}

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
