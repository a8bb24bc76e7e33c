//! Lowerings of matmuls (`mm`, `bmm`, `addmm`): an extern kernel, with `addmm`'s bias and
//! scales as a pointwise epilogue that fuses with its neighbours; and Inductor's
//! `should_prefer_unfused_addmm` in reverse: a bias added to an `mm` whose result is not only
//! read by pointwise ops goes into the library call ([`MatmulOp::Addmm`]), as Inductor keeps
//! such an `addmm` an extern kernel.

use coil_graph::LibraryKind;
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
            if matches!(buffer, BufRef::Buffer(b) if b > buf) {
                // The bias became a buffer only now, after the product's: the library call
                // cannot read it (buffers run in order); it is added by a kernel instead.
                continue;
            }
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
        kind: LibraryKind,
        b: &Bound<'_>,
    ) -> Result<Vec<TensorId>> {
        let meta = node.meta().clone();
        let out = meta.dtype;
        use LibraryKind as K;
        let one = |t: TensorId| Ok(vec![t]);
        match kind {
            K::Convolution => self.lower_convolution(node, call, b),
            K::ConvolutionBackward => self.lower_convolution_backward(node, call, b),
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
        }
    }
}

/// A chain of post-ops on a matmul's result so far: the call it makes of the matmul and what
/// that call reads ([`crate::ir::Epilogue`] once its buffer is known).
#[derive(Clone, Debug)]
pub(crate) struct PostChain {
    /// The matmul's extern buffer.
    pub(crate) template: crate::ir::BufferId,
    /// The call with the chain's post-ops.
    pub(crate) kind: ExternKind,
    /// Its operands.
    pub(crate) inputs: Vec<ExternInput>,
    /// What it reads.
    pub(crate) reads: Vec<Dep>,
    /// The matmul's result sizes (a reshape of them may lie between it and the chain).
    pub(crate) sizes: Vec<usize>,
}

/// What a pointwise op on a library call's result becomes.
pub(crate) enum PostOpFold {
    /// A post-op of the library convolution (folded now: the node's value is the call's).
    Conv(TensorId),
    /// A post-op the matmul's call could take: the node lowers as itself, and the scheduler
    /// decides ([`crate::ir::Epilogue`]).
    Matmul(PostChain),
}

impl Lowerer<'_> {
    /// A pointwise op whose only tensor input is a library call's result read by nothing
    /// else (relu, gelu, sigmoid, tanh, silu; add, sub or mul of a Python scalar; add or mul of
    /// a tensor of the result's trailing sizes, broadcast over the rest). Of a convolution
    /// whose backend takes post-ops ([`crate::LowerConfig::conv_post_ops`]), it goes into the
    /// call. Of a matmul whose backend takes them ([`crate::LowerConfig::matmul_post_ops`]) it
    /// is a candidate template epilogue: the chain of post-ops it would end, which the caller
    /// records once the node is lowered ([`crate::ir::Epilogue`]). `None` when the pattern
    /// does not apply.
    pub(super) fn try_matmul_post_op(
        &mut self,
        node: &Node,
        call: &Call,
        b: &Bound<'_>,
    ) -> Result<Option<PostOpFold>> {
        use crate::ir::PostOp;
        let dtype = node.meta().dtype;
        if self.config.matmul_post_ops.is_empty() && !self.config.conv_post_ops {
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
                    if self.chain_for(x, node).is_some() {
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
            return Ok(Some(PostOpFold::Conv(t)));
        }
        let Some(&(_, min_flops)) = self
            .config
            .matmul_post_ops
            .iter()
            .find(|(d, _)| *d == dtype)
        else {
            return Ok(None);
        };
        let Some(mut chain) = self.chain_for(mm, node) else {
            return Ok(None);
        };
        if self.matmul_flops(chain.template) < min_flops {
            return Ok(None);
        }
        let sizes = chain.sizes.clone();
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
                    Some(BufRef::Buffer(id)) if id < chain.template => {}
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
        let Some((op, done)) = chain.kind.matmul() else {
            return Ok(None);
        };
        // A bias row added first to an `mm` is the library's own bias (an `addmm`), not a
        // post-op.
        let as_bias = post == PostOp::Add
            && op == MatmulOp::Mm
            && done.is_empty()
            && operand.is_some_and(|o| self.graph.node(o).meta().sizes.len() == 1);
        let before = chain.kind.kernel_name();
        chain.kind = if as_bias {
            ExternKind::Matmul(MatmulOp::Addmm)
        } else {
            let mut post_ops = done.to_vec();
            post.append_to(&mut post_ops);
            ExternKind::FusedMatmul(op, post_ops)
        };
        tracing::debug!(
            target: "fusion",
            "template epilogue candidate: {} ({post}) could join {before}: {}",
            node.name,
            chain.kind.kernel_name()
        );
        if let Some((buffer, layout)) = input {
            let base = self.buf_layout(buffer).clone();
            let input = ExternInput { buffer, layout };
            if as_bias {
                chain.inputs.insert(0, input);
            } else {
                chain.inputs.push(input);
            }
            let dep = Dep::Star(StarDep {
                buffer,
                numel: base.numel(),
                dtype: base.dtype,
            });
            if !chain.reads.contains(&dep) {
                chain.reads.push(dep);
            }
        }
        Ok(Some(PostOpFold::Matmul(chain)))
    }

    /// The chain a post-op on node `mm` for `user` continues: [`Self::chain_of`] `mm`, or of
    /// the node a reshape (`view`, `reshape`, `_unsafe_view`) that only `user` reads views,
    /// when only the reshape reads that node.
    fn chain_for(&self, mm: NodeId, user: &Node) -> Option<PostChain> {
        if let Some(c) = self.chain_of(mm, user, &user.meta().sizes) {
            return Some(c);
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
        self.chain_of(*src, view, &self.graph.node(*src).meta().sizes)
    }

    /// The chain node `node`'s value ends when `user` alone reads it and it is of `sizes` and
    /// `user`'s dtype, not a view: the chain it was lowered with, or a new one when it is a
    /// matmul's whole result.
    fn chain_of(&self, node: NodeId, user: &Node, sizes: &[usize]) -> Option<PostChain> {
        if !self.only_read_by(node, user) {
            return None;
        }
        let t = self.value(node, &user.name).ok()?;
        let tb = &self.g.tensors[t];
        if tb.view.is_some() || tb.sizes != sizes || tb.dtype != user.meta().dtype {
            return None;
        }
        if let Some(c) = self.post_chains.get(&t) {
            return Some(c.clone());
        }
        let StorageData::Extern(buf) = self.g.storages[tb.storage].data else {
            return None;
        };
        let eb = &self.g.buffers[buf];
        match &eb.kind {
            BufferKind::Extern(e) if e.kind.matmul().is_some() => Some(PostChain {
                template: buf,
                kind: e.kind.clone(),
                inputs: e.inputs.clone(),
                reads: eb.reads.clone(),
                sizes: sizes.to_vec(),
            }),
            _ => None,
        }
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
