//! The lowering driver (Inductor's `GraphLowering.run_node`): walks the graph in program order,
//! lowers each node to a tensor value, applies the realize rules, and realizes the outputs.

use coil_graph::{DType, Graph, GraphError, Node, NodeId, NodeKind};

use crate::body::{ExprGraph, ExprId};
use crate::config::LowerConfig;
use crate::deps::{Dep, StarDep, body_deps};
use crate::error::LowerError;
use crate::index::{IndexExpr, Var, VarRanges};
use crate::ir::{
    BufRef, Buffer, BufferKind, ComputedBuffer, Epilogue, ExternInput, ExternKernel, ExternKind,
    FixedLayout, InputBuffer, Origin, OutputRef, Pointwise, StorageBox, StorageData, StorageId,
    TensorBox, TensorId, View,
};
use crate::{LoweredGraph, body::LoopBody};

/// Above this many ops (or the opcount threshold, if larger) a pointwise value is realized
/// whatever else holds, so that inlining cannot grow bodies without bound (Inductor's
/// `has_large_inner_fn(threshold=100)` in `run_node`).
const LARGE_INNER_FN_OPS: usize = 100;

pub(crate) type Result<T> = std::result::Result<T, LowerError>;

/// Lowers `graph` into Inductor's loop-level IR.
pub fn lower(graph: &Graph, config: &LowerConfig) -> Result<LoweredGraph> {
    coil_graph::verify(graph).map_err(LowerError::Verify)?;
    let mut l = Lowerer {
        graph,
        config,
        original_ops: graph
            .nodes()
            .filter_map(|(id, n)| Some((n.name.as_str(), graph.original_op(id)?)))
            .collect(),
        g: LoweredGraph::default(),
        users: graph.users(),
        post_chains: std::collections::HashMap::new(),
        values: vec![
            None;
            graph
                .order()
                .iter()
                .map(|n| n.index() + 1)
                .max()
                .unwrap_or(0)
        ],
    };
    let users = graph.users();
    let outputs = graph.outputs();
    for (id, node) in graph.nodes() {
        let vals = match &node.kind {
            NodeKind::Input => vec![l.input(node)],
            NodeKind::Call(call) => l.lower_call(node, call)?,
            NodeKind::GetItem { source, index } => {
                let v = l.value_list(*source, &node.name)?;
                vec![*v.get(*index).ok_or_else(|| {
                    LowerError::Invalid(format!(
                        "{}: output {index} of {} does not exist",
                        node.name,
                        graph.node(*source).name
                    ))
                })?]
            }
        };
        if !node.multi_output {
            let is_output = outputs.contains(&id);
            let num_users = users.get(id.index()).map_or(0, Vec::len) + usize::from(is_output);
            l.after_node(vals[0], num_users, is_output);
        }
        l.g.values.push((node.name.clone(), vals.clone()));
        l.values[id.index()] = Some(vals);
    }
    for &out in outputs {
        let t = l.value(out, "output")?;
        let (buffer, layout) = l.realize_strided(t);
        l.g.outputs.push(OutputRef { buffer, layout });
    }
    l.g.checks_layout = FixedLayout::contiguous(DType::I64, vec![2 * l.g.index_checks.len()]);
    // The chains whose value was realized on its own are the scheduler's candidates.
    let mut epilogues: Vec<Epilogue> = l
        .post_chains
        .drain()
        .filter_map(|(t, c)| {
            let tb = &l.g.tensors[t];
            match l.g.storages[tb.storage].data {
                StorageData::Computed(buffer) if tb.view.is_none() => Some(Epilogue {
                    buffer,
                    template: c.template,
                    kind: c.kind,
                    inputs: c.inputs,
                    reads: c.reads,
                }),
                _ => None,
            }
        })
        .collect();
    epilogues.sort_by_key(|e| e.buffer);
    l.g.epilogues = epilogues;
    Ok(l.g)
}

pub(crate) struct Lowerer<'a> {
    pub(crate) graph: &'a Graph,
    pub(crate) config: &'a LowerConfig,
    pub(crate) g: LoweredGraph,
    values: Vec<Option<Vec<TensorId>>>,
    /// Each call node's original op ([`Graph::original_op`]), by node name.
    original_ops: std::collections::HashMap<&'a str, coil_graph::OpKind>,
    /// Each node's users ([`Graph::users`]).
    pub(crate) users: Vec<Vec<NodeId>>,
    /// The values that end a chain of post-ops a matmul's call could take (the candidate
    /// template epilogues), by value.
    pub(crate) post_chains: std::collections::HashMap<TensorId, crate::ops::PostChain>,
}

/// A body under construction over a value's positional variables.
pub(crate) struct BodyCx {
    pub(crate) body: ExprGraph,
    pub(crate) sizes: Vec<usize>,
    pub(crate) ranges: VarRanges,
    /// The index of the element computed: `p<i>`, or 0 for size-1 dims.
    pub(crate) idx: Vec<IndexExpr>,
    /// The tensors read so far (for origins).
    pub(crate) reads: Vec<TensorId>,
}

impl BodyCx {
    pub(crate) fn new(sizes: &[usize]) -> BodyCx {
        BodyCx {
            body: ExprGraph::new(),
            sizes: sizes.to_vec(),
            ranges: VarRanges::positional(sizes),
            idx: positional_index(sizes),
            reads: Vec::new(),
        }
    }
}

/// `p<i>` per dim, 0 for size-1 dims.
pub(crate) fn positional_index(sizes: &[usize]) -> Vec<IndexExpr> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            if s == 1 {
                IndexExpr::zero()
            } else {
                IndexExpr::var(Var::p(i))
            }
        })
        .collect()
}

/// Substitution of positional variables `p<i>` by `idx[i]`.
pub(crate) fn positional_subst(idx: &[IndexExpr]) -> impl FnMut(Var) -> Option<IndexExpr> + '_ {
    move |v| {
        (v.prefix == coil_kernel::VarPrefix::P)
            .then(|| idx.get(v.n as usize).cloned())
            .flatten()
    }
}

impl<'a> Lowerer<'a> {
    pub(crate) fn graph_err(node: &Node, source: GraphError) -> LowerError {
        LowerError::Graph {
            node: node.name.clone(),
            source,
        }
    }

    fn value_list(&self, id: NodeId, user: &str) -> Result<&Vec<TensorId>> {
        self.values
            .get(id.index())
            .and_then(Option::as_ref)
            .ok_or_else(|| {
                LowerError::Invalid(format!(
                    "{user} reads {}, which is not defined before it",
                    self.graph.node(id).name
                ))
            })
    }

    /// The (single) value of a node.
    pub(crate) fn value(&self, id: NodeId, user: &str) -> Result<TensorId> {
        let v = self.value_list(id, user)?;
        match v.as_slice() {
            [t] => Ok(*t),
            _ => Err(LowerError::Invalid(format!(
                "{user} reads {}, which returns several values",
                self.graph.node(id).name
            ))),
        }
    }

    fn input(&mut self, node: &Node) -> TensorId {
        let meta = node.meta();
        let layout = FixedLayout::contiguous(meta.dtype, meta.sizes.clone());
        let id = self.g.inputs.push(InputBuffer {
            name: node.name.clone(),
            layout,
        });
        let s = self.g.storages.push(StorageBox {
            sizes: meta.sizes.clone(),
            dtype: meta.dtype,
            data: StorageData::Input(id),
            origins: Vec::new(),
        });
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes: meta.sizes.clone(),
            dtype: meta.dtype,
            view_origins: Vec::new(),
        })
    }

    pub(crate) fn origin(&self, node: &Node) -> Origin {
        let op = match &node.kind {
            NodeKind::Call(c) => c.op.kind(),
            _ => coil_graph::OpKind::Alias,
        };
        Origin {
            node: node.name.clone(),
            op,
            original_op: self
                .original_ops
                .get(node.name.as_str())
                .copied()
                .unwrap_or(op),
        }
    }

    /// `[node] + origins of the lazy values read`, without repeats.
    pub(crate) fn gather_origins(&self, node: &Node, reads: &[TensorId]) -> Vec<Origin> {
        let mut out = vec![self.origin(node)];
        for &t in reads {
            let tb = &self.g.tensors[t];
            let st = &self.g.storages[tb.storage];
            if st.is_lazy() {
                for o in st.origins.iter().chain(&tb.view_origins) {
                    if !out.iter().any(|x| x.node == o.node) {
                        out.push(o.clone());
                    }
                }
            }
        }
        out
    }

    /// The dtype of a loadable buffer.
    pub(crate) fn buf_layout(&self, b: BufRef) -> &FixedLayout {
        match b {
            BufRef::Input(i) => &self.g.inputs[i].layout,
            BufRef::Buffer(b) => &self.g.buffers[b].layout,
            BufRef::IndexChecks => &self.g.checks_layout,
        }
    }

    /// Loads element `idx` (over `cx`'s variables) of tensor `t` into `cx`: through its view,
    /// inlining a lazy storage's body or reading a realized buffer.
    pub(crate) fn load_at(
        &mut self,
        cx: &mut BodyCx,
        t: TensorId,
        idx: &[IndexExpr],
        mask: Option<ExprId>,
    ) -> ExprId {
        if !cx.reads.contains(&t) {
            cx.reads.push(t);
        }
        let tb = &self.g.tensors[t];
        let sidx: Vec<IndexExpr> = match &tb.view {
            None => idx.to_vec(),
            Some(v) => v
                .reindex
                .iter()
                .map(|e| e.subst(&mut positional_subst(idx)).simplify(&cx.ranges))
                .collect(),
        };
        let s = tb.storage;
        if matches!(self.g.storages[s].data, StorageData::Reduction(_)) {
            self.realize(s);
        }
        let st = &self.g.storages[s];
        match &st.data {
            StorageData::Pointwise(pw) => cx.body.inline(
                &pw.body,
                pw.root,
                &mut positional_subst(&sidx),
                &cx.ranges,
                mask,
            ),
            StorageData::Reduction(_) => unreachable!("realized above"),
            _ => {
                let b = st.buffer().expect("realized storage has a buffer");
                let layout = self.buf_layout(b);
                let dtype = layout.dtype;
                let index = layout.flat_index(&sidx).simplify(&cx.ranges);
                cx.body.load(b, index, mask, dtype)
            }
        }
    }

    /// Loads `t` broadcast to `cx`'s sizes (right-aligned; size-1 dims read element 0).
    pub(crate) fn load_broadcast(&mut self, cx: &mut BodyCx, t: TensorId) -> ExprId {
        let sizes = self.g.tensors[t].sizes.clone();
        let lead = cx.sizes.len() - sizes.len();
        let idx: Vec<IndexExpr> = sizes
            .iter()
            .enumerate()
            .map(|(j, &s)| {
                if s == 1 {
                    IndexExpr::zero()
                } else {
                    cx.idx[j + lead].clone()
                }
            })
            .collect();
        self.load_at(cx, t, &idx, None)
    }

    /// Makes a lazy pointwise value from a finished body.
    pub(crate) fn finish_pointwise(
        &mut self,
        node: &Node,
        cx: BodyCx,
        root: ExprId,
        dtype: DType,
    ) -> TensorId {
        let mut cx = cx;
        let mut root = cx.body.to_dtype(root, dtype);
        if self.config.emulate_precision_casts && dtype.is_16_bit_float() {
            // The value as eager holds it: rounded to the dtype here, not only at the store.
            let wide = cx.body.to_dtype(root, DType::F32);
            root = cx.body.round_to(wide, dtype);
        }
        let origins = self.gather_origins(node, &cx.reads);
        self.new_lazy(cx.sizes, dtype, cx.body, root, origins)
    }

    pub(crate) fn new_lazy(
        &mut self,
        sizes: Vec<usize>,
        dtype: DType,
        body: ExprGraph,
        root: ExprId,
        origins: Vec<Origin>,
    ) -> TensorId {
        let s = self.g.storages.push(StorageBox {
            sizes: sizes.clone(),
            dtype,
            data: StorageData::Pointwise(Pointwise {
                ranges: sizes.clone(),
                body,
                root,
            }),
            origins,
        });
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes,
            dtype,
            view_origins: Vec::new(),
        })
    }

    /// A view of `t` with `sizes`, where `map[j]` is `t`'s index along dim `j` as an expression
    /// over the view's positional variables.
    pub(crate) fn make_view(
        &mut self,
        node: &Node,
        t: TensorId,
        sizes: Vec<usize>,
        map: Vec<IndexExpr>,
    ) -> TensorId {
        let tb = self.g.tensors[t].clone();
        let ranges = VarRanges::positional(&sizes);
        let reindex: Vec<IndexExpr> = match &tb.view {
            None => map.iter().map(|e| e.simplify(&ranges)).collect(),
            Some(v) => v
                .reindex
                .iter()
                .map(|e| e.subst(&mut positional_subst(&map)).simplify(&ranges))
                .collect(),
        };
        let storage_sizes = &self.g.storages[tb.storage].sizes;
        let identity = *storage_sizes == sizes && reindex == positional_index(&sizes);
        let mut view_origins = tb.view_origins.clone();
        view_origins.push(self.origin(node));
        self.g.tensors.push(TensorBox {
            storage: tb.storage,
            view: (!identity).then_some(View { reindex }),
            sizes,
            dtype: tb.dtype,
            view_origins,
        })
    }

    /// Inductor's `realize_hint`: the storage behind `t`, when it is a lazy pointwise value
    /// reading more than one buffer, is realized (for an op that reads each element many
    /// times).
    pub(crate) fn realize_hint(&mut self, t: TensorId) {
        let s = self.g.tensors[t].storage;
        if let StorageData::Pointwise(pw) = &self.g.storages[s].data
            && pw.body.stats(pw.root).read_buffers.len() > 1
        {
            self.realize(s);
        }
    }

    /// Realizes a storage: a lazy value becomes a [`ComputedBuffer`].
    pub(crate) fn realize(&mut self, s: StorageId) {
        let st = &self.g.storages[s];
        let (ranges, reduction_ranges, reduction_type, src, root, scan_dim) = match &st.data {
            StorageData::Pointwise(pw) => {
                (pw.ranges.clone(), Vec::new(), None, &pw.body, pw.root, None)
            }
            StorageData::Reduction(r) => (
                r.ranges.clone(),
                r.reduction_ranges.clone(),
                r.scan_dim.is_none().then_some(r.reduction_type),
                &r.body,
                r.root,
                r.scan_dim,
            ),
            _ => return,
        };
        // Positional variables of the lazy value -> consecutive loop variables (none for
        // size-1 dims): iteration dims first, then reduction dims.
        let mut var_ranges = Vec::new();
        let mut subst_to: Vec<IndexExpr> = Vec::new();
        for &size in ranges.iter().chain(&reduction_ranges) {
            if size == 1 {
                subst_to.push(IndexExpr::zero());
            } else {
                let v = Var::p(var_ranges.len());
                var_ranges.push((v, size));
                subst_to.push(IndexExpr::var(v));
            }
        }
        let num_reduction_vars = reduction_ranges.iter().filter(|&&s| s != 1).count();
        let vr = VarRanges::new(var_ranges.clone());
        let mut exprs = ExprGraph::new();
        let value = exprs.inline(src, root, &mut positional_subst(&subst_to), &vr, None);
        let layout = FixedLayout::contiguous(st.dtype, st.sizes.clone());
        let store_index = match scan_dim {
            // A scan stores every point: its scanned variable goes back to its dim.
            Some(d) => {
                let mut at = subst_to[..ranges.len()].to_vec();
                at.insert(d.min(at.len()), subst_to[ranges.len()].clone());
                layout.flat_index(&at).simplify(&vr)
            }
            None => layout.flat_index(&subst_to[..ranges.len()]).simplify(&vr),
        };
        let body = LoopBody {
            var_ranges,
            num_reduction_vars,
            exprs,
            value,
            store_index,
        };
        let id = self.g.buffers.next_id();
        let (reads, writes) = body_deps(&body, BufRef::Buffer(id), st.dtype, |b| {
            let l = self.buf_layout(b);
            (l.dtype, l.storage_len())
        });
        let origins = st.origins.clone();
        self.g.buffers.push(Buffer {
            id,
            layout,
            origins,
            kind: BufferKind::Computed(ComputedBuffer {
                ranges,
                reduction_ranges,
                reduction_type,
                body,
                scatter: None,
            }),
            reads,
            writes,
        });
        self.g.storages[s].data = StorageData::Computed(id);
    }

    /// The realized buffer behind `t` and the strided layout through which `t` reads it (a
    /// copy is realized when the view is not strided, e.g. a reshape of a transpose).
    pub(crate) fn realize_strided(&mut self, t: TensorId) -> (BufRef, FixedLayout) {
        let s = self.g.tensors[t].storage;
        self.realize(s);
        let tb = self.g.tensors[t].clone();
        let buf = self.g.storages[s]
            .buffer()
            .expect("a realized storage has a buffer");
        let base = self.buf_layout(buf).clone();
        let Some(view) = &tb.view else {
            return (buf, base);
        };
        let ranges = VarRanges::positional(&tb.sizes);
        let flat = base.flat_index(&view.reindex).simplify(&ranges);
        if let Some((coefs, offset)) = flat.as_affine()
            && offset >= 0
            && coefs.iter().all(|(_, c)| *c >= 0)
        {
            let strides = (0..tb.sizes.len())
                .map(|i| flat.coefficient(Var::p(i)) as usize)
                .collect();
            return (
                buf,
                FixedLayout {
                    dtype: tb.dtype,
                    sizes: tb.sizes.clone(),
                    strides,
                    offset: offset as usize,
                },
            );
        }
        // Not expressible with strides: copy into a contiguous buffer.
        self.realize_copy(t)
    }

    /// `t` copied into a contiguous buffer of its own.
    fn realize_copy(&mut self, t: TensorId) -> (BufRef, FixedLayout) {
        let tb = self.g.tensors[t].clone();
        let mut cx = BodyCx::new(&tb.sizes);
        let idx = cx.idx.clone();
        let root = self.load_at(&mut cx, t, &idx, None);
        let origins = tb.view_origins.clone();
        let copy = self.new_lazy(tb.sizes.clone(), tb.dtype, cx.body, root, origins);
        let cs = self.g.tensors[copy].storage;
        self.realize(cs);
        let b = self.g.storages[cs].buffer().expect("realized");
        (b, self.buf_layout(b).clone())
    }

    /// An extern kernel's output buffer.
    pub(crate) fn extern_kernel(
        &mut self,
        node: &Node,
        kind: ExternKind,
        operands: &[TensorId],
        sizes: Vec<usize>,
        dtype: DType,
    ) -> TensorId {
        let matrix = matches!(kind, ExternKind::Matmul(_));
        let inputs: Vec<ExternInput> = operands
            .iter()
            .map(|&t| {
                let (mut buffer, mut layout) = self.realize_strided(t);
                // A matrix operand needs a unit stride in one of its two dims (row or column
                // major, as every library takes them): a strided view (a column of complex
                // parts, every other row) is copied contiguous.
                if matrix && !has_unit_matrix_stride(&layout) {
                    (buffer, layout) = self.realize_copy(t);
                }
                ExternInput { buffer, layout }
            })
            .collect();
        let id = self.g.buffers.next_id();
        let mut reads: Vec<Dep> = Vec::new();
        for i in &inputs {
            let base = self.buf_layout(i.buffer);
            let dep = Dep::Star(StarDep {
                buffer: i.buffer,
                numel: base.numel(),
                dtype: base.dtype,
            });
            if !reads.contains(&dep) {
                reads.push(dep);
            }
        }
        let layout = FixedLayout::contiguous(dtype, sizes.clone());
        let writes = vec![Dep::Star(StarDep {
            buffer: BufRef::Buffer(id),
            numel: layout.numel(),
            dtype,
        })];
        self.g.buffers.push(Buffer {
            id,
            layout,
            origins: vec![self.origin(node)],
            kind: BufferKind::Extern(ExternKernel { kind, inputs }),
            reads,
            writes,
        });
        let s = self.g.storages.push(StorageBox {
            sizes: sizes.clone(),
            dtype,
            data: StorageData::Extern(id),
            origins: vec![self.origin(node)],
        });
        self.g.tensors.push(TensorBox {
            storage: s,
            view: None,
            sizes,
            dtype,
            view_origins: Vec::new(),
        })
    }

    /// The realize rules applied after a node is lowered (Inductor's `run_node`).
    fn after_node(&mut self, t: TensorId, num_users: usize, is_output: bool) {
        let s = self.g.tensors[t].storage;
        if num_users > 1 {
            if is_output {
                self.realize(s);
            }
            if self.should_realize_on_reuse(s) {
                self.realize(s);
            }
        }
        if let StorageData::Pointwise(pw) = &self.g.storages[s].data {
            let stats = pw.body.stats(pw.root);
            let reads = stats.read_buffers.len();
            let c = self.config;
            // has_exceeded_max_reads, then realize_hint (which only realizes values that read
            // more than one buffer).
            let exceeded = reads > c.realize_acc_reads_threshold
                || stats.num_ops > c.realize_opcount_threshold;
            let too_large = stats.num_ops > LARGE_INNER_FN_OPS.max(c.realize_opcount_threshold);
            if (exceeded && reads > 1) || too_large || !c.inline_all {
                self.realize(s);
            }
        }
    }

    /// Inductor's `StorageBox.should_realize_on_reuse`, for a value with several users.
    fn should_realize_on_reuse(&self, s: StorageId) -> bool {
        let StorageData::Pointwise(pw) = &self.g.storages[s].data else {
            return false;
        };
        let stats = pw.body.stats(pw.root);
        let c = self.config;
        stats
            .used_ops
            .iter()
            .any(|op| c.realize_on_reuse_ops.contains(op))
            || stats.read_buffers.len() > c.realize_reads_threshold
            || stats.num_ops > c.realize_opcount_threshold
    }
}

/// Whether a matmul operand's last two dims have a unit stride in one of them (size-1 dims
/// count as either).
fn has_unit_matrix_stride(l: &FixedLayout) -> bool {
    let r = l.sizes.len();
    if r < 2 {
        return true;
    }
    let (rows, cols) = (l.sizes[r - 2], l.sizes[r - 1]);
    let (rs, cs) = (l.strides[r - 2], l.strides[r - 1]);
    cs == 1 || cols == 1 || rs == 1 || rows == 1
}
