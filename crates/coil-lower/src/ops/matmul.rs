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
use crate::ir::{BufRef, BufferKind, ExternInput, ExternKind, MatmulOp, StorageData, TensorId};
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

impl Lowerer<'_> {
    /// A pointwise op whose only tensor input is a matmul's result read by nothing else
    /// (relu, gelu, sigmoid, tanh, silu; add, sub or mul of a Python scalar; add or mul of a
    /// tensor of the result's trailing sizes, broadcast over the rest): appended to the
    /// matmul's library call as a post-op ([`ExternKind::FusedMatmul`]) when the backend
    /// takes them ([`crate::LowerConfig::matmul_post_ops`]), so that it runs on each output
    /// tile inside the library. The node's value is then the matmul's. `None` when the
    /// pattern does not apply.
    pub(super) fn try_matmul_post_op(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Option<TensorId>> {
        use crate::ir::PostOp;
        let dtype = node.meta().dtype;
        if self.config.matmul_post_ops.is_empty() && !self.config.conv_post_ops {
            return Ok(None);
        }
        if let Some(chosen) = &self.config.epilogue_nodes
            && !chosen.contains(&node.name)
        {
            return Ok(None);
        }
        let node_arg = |name: &str| match b.get(name) {
            Arg::Node(id) => Some(*id),
            _ => None,
        };
        let scalar = |name: &str| match b.get(name) {
            Arg::Node(_) => None,
            _ => b.opt_scalar(name).map(|s| s.to_f64() as f32),
        };
        let alpha = b.opt_scalar("alpha").map_or(1.0, |a| a.to_f64() as f32);
        // (the matmul's node, the post-op, its tensor operand)
        let (mm, post, operand) = match call.op.kind() {
            OpKind::Relu => (node_arg("self"), PostOp::Relu, None),
            OpKind::Sigmoid => (node_arg("self"), PostOp::Sigmoid, None),
            OpKind::Tanh => (node_arg("self"), PostOp::Tanh, None),
            OpKind::Silu => (node_arg("self"), PostOp::Silu, None),
            OpKind::Gelu => {
                let post = if b.opt_str("approximate") == Some("tanh") {
                    PostOp::GeluTanh
                } else {
                    PostOp::Gelu
                };
                (node_arg("self"), post, None)
            }
            k @ (OpKind::Add | OpKind::Sub | OpKind::Mul) => {
                let sign = if k == OpKind::Sub { -1.0 } else { 1.0 };
                let (Some(x), other) = (node_arg("self"), node_arg("other")) else {
                    return Ok(None);
                };
                if let Some(c) = scalar("other") {
                    let post = match k {
                        OpKind::Mul => PostOp::linear(c, 0.0),
                        _ => PostOp::linear(1.0, sign * alpha * c),
                    };
                    (Some(x), post, None)
                } else if let Some(y) = other {
                    if k == OpKind::Sub || alpha != 1.0 {
                        return Ok(None);
                    }
                    let post = if k == OpKind::Add {
                        PostOp::Add
                    } else {
                        PostOp::Mul
                    };
                    // Either operand may be the matmul (both commute).
                    if self.fusable(x, node).is_some() {
                        (Some(x), post, Some(y))
                    } else {
                        (Some(y), post, Some(x))
                    }
                } else {
                    return Ok(None);
                }
            }
            _ => return Ok(None),
        };
        let Some(mm) = mm else {
            return Ok(None);
        };
        if operand.is_none()
            && dtype == DType::F32
            && self.config.conv_post_ops
            && let Some(t) = self.try_conv_post_op(mm, node, post)
        {
            return Ok(Some(t));
        }
        let Some(&(_, min_flops)) = self
            .config
            .matmul_post_ops
            .iter()
            .find(|(d, _)| *d == dtype)
        else {
            return Ok(None);
        };
        let Some((t, buf, sizes)) = self.fusable(mm, node) else {
            return Ok(None);
        };
        if self.matmul_flops(buf) < min_flops {
            return Ok(None);
        }
        let through_view = sizes != node.meta().sizes;
        let input = match operand {
            None => None,
            Some(o) => {
                let meta = self.graph.node(o).meta();
                let lead = sizes.len().saturating_sub(meta.sizes.len());
                // Through a reshape only a vector along the last dim (which the reshape keeps)
                // broadcasts the same way over both shapes.
                let keeps_last = !through_view
                    || (meta.sizes.len() == 1 && node.meta().sizes.last() == sizes.last());
                if meta.dtype != dtype
                    || meta.sizes.is_empty()
                    || meta.sizes[..] != sizes[lead..]
                    || !keeps_last
                {
                    return Ok(None);
                }
                let ot = self.value(o, &node.name)?;
                // The operand must exist before the matmul runs: an input or a buffer computed
                // earlier (a lazy value realized now would come after the matmul's buffer).
                match self.g.storages[self.g.tensors[ot].storage].buffer() {
                    Some(BufRef::Input(_)) => {}
                    Some(BufRef::Buffer(id)) if id < buf => {}
                    _ => return Ok(None),
                }
                // Broadcast over the leading dims: a view of the result's sizes.
                let map = (lead..sizes.len())
                    .map(|d| IndexExpr::var(Var::p(d)))
                    .collect();
                let wide = self.make_view(node, ot, sizes.clone(), map);
                Some(self.realize_strided(wide))
            }
        };
        let origin = self.origin(node);
        let eb = &mut self.g.buffers[buf];
        let BufferKind::Extern(ext) = &mut eb.kind else {
            return Ok(None);
        };
        let Some((op, done)) = ext.kind.matmul() else {
            return Ok(None);
        };
        // A bias row added first to an `mm` is the library's own bias (an `addmm`), not a
        // post-op.
        let as_bias = post == PostOp::Add
            && op == MatmulOp::Mm
            && done.is_empty()
            && operand.is_some_and(|o| self.graph.node(o).meta().sizes.len() == 1);
        let before = ext.kind.kernel_name();
        ext.kind = if as_bias {
            ExternKind::Matmul(MatmulOp::Addmm)
        } else {
            let mut post_ops = done.to_vec();
            post.append_to(&mut post_ops);
            ExternKind::FusedMatmul(op, post_ops)
        };
        tracing::debug!(
            target: "fusion",
            "template epilogue: {} ({post}) fused into {before}: {}",
            node.name,
            ext.kind.kernel_name()
        );
        if let Some((buffer, layout)) = input {
            let base = self.buf_layout(buffer).clone();
            let eb = &mut self.g.buffers[buf];
            let BufferKind::Extern(ext) = &mut eb.kind else {
                return Ok(None);
            };
            let input = ExternInput { buffer, layout };
            if as_bias {
                ext.inputs.insert(0, input);
            } else {
                ext.inputs.push(input);
            }
            let dep = Dep::Star(StarDep {
                buffer,
                numel: base.numel(),
                dtype: base.dtype,
            });
            if !eb.reads.contains(&dep) {
                eb.reads.push(dep);
            }
        }
        self.g.buffers[buf].origins.push(origin);
        if through_view {
            self.folded_views.insert(t, (buf, sizes));
        }
        Ok(Some(t))
    }

    /// What a post-op on node `mm` for `user` folds into: [`Self::fusable_matmul`]'s matmul,
    /// or one seen through a reshape (`view`, `reshape`, `_unsafe_view`) that only `user`
    /// reads, of a matmul only the reshape reads: then the user's value is the reshape's (a
    /// view of the matmul's result, which the post-op changes in place). Gives the value, the
    /// extern buffer and the matmul's result sizes.
    fn fusable(
        &self,
        mm: NodeId,
        user: &Node,
    ) -> Option<(TensorId, crate::ir::BufferId, Vec<usize>)> {
        if let Some((t, buf)) = self.fusable_matmul(mm, user) {
            return Some((t, buf, user.meta().sizes.clone()));
        }
        // A reshape whose matmul took post-ops already: the next one folds the same way.
        if self.only_read_by(mm, user) {
            let t = self.value(mm, &user.name).ok()?;
            if let Some((buf, sizes)) = self.folded_views.get(&t)
                && self.g.tensors[t].sizes == user.meta().sizes
            {
                return Some((t, *buf, sizes.clone()));
            }
        }
        let view = self.graph.node(mm);
        let NodeKind::Call(c) = &view.kind else {
            return None;
        };
        if !matches!(
            c.op.kind(),
            OpKind::View | OpKind::Reshape | OpKind::UnsafeView
        ) || !self.only_read_by(mm, user)
            || view.meta().sizes != user.meta().sizes
        {
            return None;
        }
        let Some(Arg::Node(src)) = c.args.first() else {
            return None;
        };
        let (_, buf) =
            self.fusable_matmul_of_sizes(*src, view, &self.graph.node(*src).meta().sizes)?;
        let t = self.value(mm, &user.name).ok()?;
        Some((t, buf, self.graph.node(*src).meta().sizes.clone()))
    }

    /// `post` appended to the library convolution that node `conv` is, when `user` alone reads
    /// its whole result: the user's value is then the convolution's.
    fn try_conv_post_op(
        &mut self,
        conv: NodeId,
        user: &Node,
        post: crate::ir::PostOp,
    ) -> Option<TensorId> {
        let (t, buf) = self.whole_extern(conv, user, &user.meta().sizes)?;
        let origin = self.origin(user);
        let b = &mut self.g.buffers[buf];
        let BufferKind::Extern(e) = &mut b.kind else {
            return None;
        };
        let ExternKind::Convolution(c) = &mut e.kind else {
            return None;
        };
        post.append_to(&mut c.post);
        tracing::debug!(
            target: "fusion",
            "template epilogue: {} ({post}) fused into {}",
            user.name,
            e.kind.kernel_name()
        );
        b.origins.push(origin);
        Some(t)
    }

    /// `2 m n k` of the matmul extern `buf` (batches summed).
    fn matmul_flops(&self, buf: crate::ir::BufferId) -> usize {
        let b = &self.g.buffers[buf];
        let BufferKind::Extern(e) = &b.kind else {
            return 0;
        };
        let a = match e.kind.matmul() {
            Some((MatmulOp::Addmm, _)) => e.inputs.get(1),
            Some(_) => e.inputs.first(),
            None => None,
        };
        let k = a.and_then(|a| a.layout.sizes.last().copied()).unwrap_or(0);
        2 * b.layout.numel() * k
    }

    /// `mm`'s value and its extern buffer when it is a matmul's whole result (no view) of
    /// `user`'s sizes and dtype, read by `user` alone and not a graph output.
    fn fusable_matmul(&self, mm: NodeId, user: &Node) -> Option<(TensorId, crate::ir::BufferId)> {
        self.fusable_matmul_of_sizes(mm, user, &user.meta().sizes)
    }

    /// [`Self::fusable_matmul`] with the result's `sizes` given (a reshape's input's).
    fn fusable_matmul_of_sizes(
        &self,
        mm: NodeId,
        user: &Node,
        sizes: &[usize],
    ) -> Option<(TensorId, crate::ir::BufferId)> {
        let (t, buf) = self.whole_extern(mm, user, sizes)?;
        match &self.g.buffers[buf].kind {
            BufferKind::Extern(e) if e.kind.matmul().is_some() => Some((t, buf)),
            _ => None,
        }
    }

    /// Whether `user` is the only reader of node `node` and `node` is not a graph output.
    fn only_read_by(&self, node: NodeId, user: &Node) -> bool {
        self.graph
            .find(&user.name)
            .is_some_and(|me| self.users[node.index()] == [me])
            && !self.graph.outputs().contains(&node)
    }

    /// `node`'s value and its extern buffer when it is an extern call's whole result (no view)
    /// of `sizes` and `user`'s dtype that only `user` reads ([`Self::only_read_by`]).
    fn whole_extern(
        &self,
        node: NodeId,
        user: &Node,
        sizes: &[usize],
    ) -> Option<(TensorId, crate::ir::BufferId)> {
        if !self.only_read_by(node, user) {
            return None;
        }
        let t = self.value(node, &user.name).ok()?;
        let tb = &self.g.tensors[t];
        if tb.view.is_some() || tb.sizes != sizes || tb.dtype != user.meta().dtype {
            return None;
        }
        match self.g.storages[tb.storage].data {
            StorageData::Extern(buf) => Some((t, buf)),
            _ => None,
        }
    }
}
