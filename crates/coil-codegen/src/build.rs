//! Building a kernel from a fused group of the lowering's buffers: one loop nest of the
//! group's `(ranges, reduction_ranges)`, each member's body re-expressed over the kernel's
//! variables, identical loads and expressions shared (CSE), and buffers created and last used
//! inside the kernel (not graph outputs) never written (Inductor's
//! `remove_kernel_local_buffers`): their readers recompute them or read the accumulator.

use std::collections::HashMap;

use coil_graph::DType;
use coil_lower::{
    BufRef, BufferId, BufferKind, ComputedBuffer, Expr, ExprId, Idx, IndexExpr, LoweredGraph, Var,
    VarRanges,
};

use coil_kernel::{
    AccId, ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind, StageKind, ValueId,
};

use coil_kernel::BuildOptions;

/// Why a group could not become a kernel (a scheduler bug, or a shape the builder lacks).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel {kernel}: {msg}")]
pub struct BuildError {
    /// The kernel's name.
    pub kernel: String,
    /// What went wrong.
    pub msg: String,
}

/// What the builder knows about a member while building.
enum Produced {
    /// A reduction: its finished value is this accumulator; its store index over the
    /// kernel's variables.
    Reduction(AccId, IndexExpr),
    /// A pointwise buffer: recomputed wherever it is read.
    Pointwise,
    /// A scan: readable in its stage at its store index only (the running value there).
    Scan(IndexExpr),
}

struct Ctx<'a> {
    lowered: &'a LoweredGraph,
    name: String,
    ranges: Vec<usize>,
    reduction_ranges: Vec<usize>,
    kernel_ranges: VarRanges,
    b: KernelBuilder,
    args: Vec<KernelArg>,
    /// The buffer behind each argument.
    arg_bufs: Vec<BufRef>,
    arg_of: HashMap<BufRef, ArgId>,
    produced: HashMap<BufferId, Produced>,
    /// Accumulators finished by the current stage (their values are not usable in it).
    pending: Vec<AccId>,
    /// Pointwise members already recomputed in a stage, by (member, index, stage): a member
    /// read again at the same index is the same value (without this, a chain whose members
    /// are each read twice would be translated exponentially many times).
    recomputed: HashMap<(BufferId, IndexExpr, usize), ValueId>,
}

/// Builds the kernel for `members` (in execution order). `needed_outside(b)` tells whether a
/// member's buffer is read after the kernel or returned; other members are kernel-local.
pub fn build_kernel(
    lowered: &LoweredGraph,
    members: &[BufferId],
    needed_outside: &dyn Fn(BufferId) -> bool,
    name: &str,
    options: &BuildOptions,
) -> Result<Kernel, BuildError> {
    build_with_args(lowered, members, needed_outside, name, options).map(|(k, _)| k)
}

/// [`build_kernel`], also giving the buffer behind each kernel argument (in argument order).
pub(crate) fn build_with_args(
    lowered: &LoweredGraph,
    members: &[BufferId],
    needed_outside: &dyn Fn(BufferId) -> bool,
    name: &str,
    options: &BuildOptions,
) -> Result<(Kernel, Vec<BufRef>), BuildError> {
    let err = |msg: String| BuildError {
        kernel: name.to_string(),
        msg,
    };
    let computed: Vec<(BufferId, &ComputedBuffer)> = members
        .iter()
        .map(|&m| match &lowered.buffer(m).kind {
            BufferKind::Computed(c) => Ok((m, c)),
            BufferKind::Extern(_) => Err(err(format!("{m} is an extern kernel, not a loop nest"))),
        })
        .collect::<Result<_, _>>()?;
    if computed.is_empty() {
        return Err(err("no members".into()));
    }
    // The loop nest: the first reduction's, else the first member's.
    let shape = computed
        .iter()
        .find(|(_, c)| c.has_reduction_loop())
        .unwrap_or(&computed[0])
        .1;
    // Size-1 dims carry no variable; the loop nest keeps only the others.
    let squeeze = |r: &[usize]| {
        r.iter()
            .copied()
            .filter(|&s| s != 1)
            .collect::<Vec<usize>>()
    };
    let mut ranges = squeeze(&shape.ranges);
    let mut reduction_ranges = squeeze(&shape.reduction_ranges);
    // Pointwise members of different sizes (a TVM group of a broadcast and its consumer):
    // loop over the smallest member's elements outside and the rest inside, so each small
    // member is computed once per outer point and each large one in the inner loop.
    if !shape.has_reduction_loop() {
        let numels: Vec<usize> = computed
            .iter()
            .map(|(_, c)| c.ranges.iter().product())
            .collect();
        let (small, large) = (
            numels.iter().min().copied().unwrap_or(1),
            numels.iter().max().copied().unwrap_or(1),
        );
        if small != large {
            if numels.iter().any(|&n| n != small && n != large) || small == 0 || large % small != 0
            {
                return Err(err(format!(
                    "pointwise members of {numels:?} elements do not share a loop nest"
                )));
            }
            let smallest = computed
                .iter()
                .find(|(_, c)| c.ranges.iter().product::<usize>() == small)
                .map(|(_, c)| c);
            ranges = squeeze(&smallest.map(|c| c.ranges.clone()).unwrap_or_default());
            reduction_ranges = squeeze(&[large / small]);
        }
    }
    let n = ranges.len();
    let kernel_ranges = VarRanges::new(
        ranges
            .iter()
            .chain(&reduction_ranges)
            .enumerate()
            .map(|(i, &s)| (Var::p(i), s))
            .collect(),
    );
    let mut cx = Ctx {
        lowered,
        name: name.to_string(),
        ranges: ranges.clone(),
        reduction_ranges: reduction_ranges.clone(),
        kernel_ranges,
        b: KernelBuilder::new(),
        args: vec![],
        arg_bufs: vec![],
        arg_of: HashMap::new(),
        produced: HashMap::new(),
        pending: vec![],
        recomputed: HashMap::new(),
    };
    let mut stage: Option<StageKind> = None;
    let mut acc_stores: Vec<(BufferId, AccId, IndexExpr)> = vec![];
    for &(id, c) in &computed {
        let kind = cx.stage_kind_of(c).map_err(err)?;
        // A member joins the current stage when it has the same kind and reads nothing the
        // current stage is still reducing.
        let reads_pending = cx.reads_pending(id);
        if stage != Some(kind) || reads_pending {
            cx.flush_acc_stores(&mut acc_stores, needed_outside);
            cx.b.begin_stage(kind);
            cx.pending.clear();
            stage = Some(kind);
        }
        let vars = cx.member_vars(c).map_err(err)?;
        if let Some(sc) = c.scatter {
            cx.scatter(c, sc, &vars).map_err(err)?;
            continue;
        }
        let value = cx
            .translate(&c.body.exprs, c.body.value, &vars)
            .map_err(err)?;
        let store_index = c
            .body
            .store_index
            .subst(&mut |v| vars.get(&v).cloned())
            .simplify(&cx.kernel_ranges);
        match cx.lowered_value(value) {
            Translated::Acc(acc) => {
                cx.produced
                    .insert(id, Produced::Reduction(acc, store_index.clone()));
                cx.pending.push(acc);
                acc_stores.push((id, acc, store_index));
            }
            Translated::Value(v) => {
                let produced = if c.is_scan() {
                    // Its readers in this stage read this value.
                    let key = (id, store_index.clone(), cx.b.current_stage());
                    cx.recomputed.insert(key, v);
                    Produced::Scan(store_index.clone())
                } else {
                    Produced::Pointwise
                };
                cx.produced.insert(id, produced);
                if needed_outside(id) {
                    let arg = cx.arg(BufRef::Buffer(id), true);
                    cx.b.store(arg, store_index, v);
                }
            }
        }
    }
    cx.flush_acc_stores(&mut acc_stores, needed_outside);
    // The kind describes the loop nest: an inner loop makes it a "reduction" nest even when
    // only pointwise members of two sizes use it.
    let kind = if reduction_ranges.is_empty() {
        KernelKind::Pointwise
    } else {
        let rnumel: usize = reduction_ranges.iter().product();
        KernelKind::Reduction {
            persistent: rnumel <= options.persistent_rnumel_limit,
        }
    };
    let _ = n;
    let mut kernel =
        cx.b.finish(name.to_string(), kind, ranges, reduction_ranges, cx.args);
    crate::merge::merge_contiguous_ranges(&mut kernel);
    if let Some(t) = options.transpose_tile {
        crate::tile::tile_transposes(&mut kernel, t);
    }
    Ok((kernel, cx.arg_bufs))
}

/// A translated body root: a plain value, or a reduction's accumulator.
enum Translated {
    Value(ValueId),
    Acc(AccId),
}

/// Marker bit for accumulators in `translate`'s result (they are not values until read).
const ACC_BIT: u32 = 1 << 31;

impl Ctx<'_> {
    fn lowered_value(&self, v: ValueId) -> Translated {
        if v.0 & ACC_BIT != 0 {
            Translated::Acc(AccId(v.0 & !ACC_BIT))
        } else {
            Translated::Value(v)
        }
    }

    fn stage_kind_of(&self, c: &ComputedBuffer) -> Result<StageKind, String> {
        let numel: usize = c.ranges.iter().product();
        let knumel: usize = self.ranges.iter().product();
        let krnumel: usize = self.reduction_ranges.iter().product();
        if c.has_reduction_loop() {
            let rnumel: usize = c.reduction_ranges.iter().product();
            if numel != knumel || rnumel != krnumel {
                return Err(format!(
                    "reduction ({numel}, {rnumel}) does not fit the loop nest ({knumel}, {krnumel})"
                ));
            }
            return Ok(StageKind::Reduction);
        }
        if self.reduction_ranges.is_empty() || numel == knumel * krnumel && krnumel > 1 {
            if numel != knumel * krnumel {
                return Err(format!(
                    "pointwise of {numel} elements does not fit the loop nest ({knumel}, 1)"
                ));
            }
            return Ok(if self.reduction_ranges.is_empty() {
                StageKind::Outer
            } else {
                StageKind::Reduction
            });
        }
        if numel == knumel {
            return Ok(StageKind::Outer);
        }
        Err(format!(
            "pointwise of {numel} elements does not fit the loop nest ({knumel}, {krnumel})"
        ))
    }

    /// True when `id`'s body reads a member whose accumulator the current stage computes.
    fn reads_pending(&self, id: BufferId) -> bool {
        let mut seen = vec![id];
        let mut stack = vec![id];
        while let Some(b) = stack.pop() {
            let Some(c) = self.lowered.buffer(b).computed() else {
                continue;
            };
            for (_, buf, _) in c.body.loads() {
                let BufRef::Buffer(src) = buf else { continue };
                match self.produced.get(&src) {
                    Some(Produced::Reduction(acc, _)) if self.pending.contains(acc) => return true,
                    Some(Produced::Pointwise) if !seen.contains(&src) => {
                        seen.push(src);
                        stack.push(src);
                    }
                    _ => {}
                }
            }
        }
        false
    }

    /// The member's loop variables as expressions over the kernel's variables.
    fn member_vars(&self, c: &ComputedBuffer) -> Result<HashMap<Var, IndexExpr>, String> {
        let n = self.ranges.len();
        let outer_flat = flat(&(0..n).map(Var::p).collect::<Vec<_>>(), &self.ranges);
        let red_flat = flat(
            &(n..n + self.reduction_ranges.len())
                .map(Var::p)
                .collect::<Vec<_>>(),
            &self.reduction_ranges,
        );
        let krnumel: usize = self.reduction_ranges.iter().product();
        // The body's variables, with their ranges: the lowering drops size-1 dims from them,
        // so they need not pair up with `c.ranges`.
        let (iter_vars, iter_sizes): (Vec<Var>, Vec<usize>) =
            c.body.iter_vars().iter().copied().unzip();
        let (red_vars, red_sizes): (Vec<Var>, Vec<usize>) =
            c.body.reduction_vars().iter().copied().unzip();
        let mut map = HashMap::new();
        let numel: usize = c.ranges.iter().product();
        let knumel: usize = self.ranges.iter().product();
        let iter_flat = if c.has_reduction_loop() || numel == knumel {
            outer_flat
        } else {
            outer_flat.scale(krnumel as i64).add(&red_flat)
        };
        unflatten(&iter_vars, &iter_sizes, &iter_flat, &mut map);
        if c.has_reduction_loop() {
            unflatten(&red_vars, &red_sizes, &red_flat, &mut map);
        }
        for e in map.values_mut() {
            *e = e.simplify(&self.kernel_ranges);
        }
        Ok(map)
    }

    fn arg(&mut self, buf: BufRef, write: bool) -> ArgId {
        if let Some(&a) = self.arg_of.get(&buf) {
            let arg = &mut self.args[a.0 as usize];
            arg.role = match (arg.role, write) {
                (ArgRole::Input, true) | (ArgRole::Output, false) => ArgRole::InOut,
                (r, _) => r,
            };
            return a;
        }
        let layout = self.lowered.layout(buf);
        let a = ArgId(self.args.len() as u32);
        self.args.push(KernelArg {
            name: self.lowered.name(buf),
            dtype: layout.dtype,
            len: layout.storage_len(),
            role: if write {
                ArgRole::Output
            } else {
                ArgRole::Input
            },
        });
        self.arg_bufs.push(buf);
        self.arg_of.insert(buf, a);
        a
    }

    /// Translates a body DAG under a variable mapping; returns the root's value (or its
    /// accumulator, tagged with [`ACC_BIT`]).
    fn translate(
        &mut self,
        exprs: &coil_lower::ExprGraph,
        root: ExprId,
        vars: &HashMap<Var, IndexExpr>,
    ) -> Result<ValueId, String> {
        self.translate_map(exprs, root, vars)?
            .get(&root)
            .copied()
            .ok_or_else(|| "the body's value was not translated".into())
    }

    /// Translates the nodes of a body DAG up to `root` (in id order, so every node `root`
    /// depends on); returns each one's value.
    fn translate_map(
        &mut self,
        exprs: &coil_lower::ExprGraph,
        root: ExprId,
        vars: &HashMap<Var, IndexExpr>,
    ) -> Result<HashMap<ExprId, ValueId>, String> {
        let mut done: HashMap<ExprId, ValueId> = HashMap::new();
        for (id, e) in exprs.iter() {
            if id.index() > root.index() {
                break;
            }
            let dtype = exprs.dtype(id);
            // Loop variables become the kernel's; `ind<n>` (body node n) becomes `ind<v>` (the
            // kernel value it was translated to).
            let sub = |i: &IndexExpr, cx: &Ctx<'_>, done: &HashMap<ExprId, ValueId>| {
                i.subst(&mut |v| match v.indirect_node() {
                    Some(n) => done
                        .get(&ExprId::new(n))
                        .map(|x| IndexExpr::var(Var::indirect(x.0 as usize))),
                    None => vars.get(&v).cloned(),
                })
                .simplify(&cx.kernel_ranges)
            };
            let v = match e {
                Expr::Load {
                    buffer,
                    index,
                    mask,
                } => {
                    let index = sub(index, self, &done);
                    let mask = mask.map(|m| done[&m]);
                    self.load(*buffer, index, mask, dtype)?
                }
                Expr::IndirectIndex {
                    value,
                    size,
                    wrap_negative,
                    check,
                } => {
                    let flags = self.arg(BufRef::IndexChecks, true);
                    let e = KExpr::IndirectIndex {
                        value: done[value],
                        size: *size,
                        wrap_negative: *wrap_negative,
                        flags,
                        check: *check,
                    };
                    self.b.value(e, dtype)
                }
                Expr::Constant { value, .. } => self.b.value(KExpr::Const(*value), dtype),
                Expr::IndexExpr { index, .. } => {
                    let index = sub(index, self, &done);
                    self.b.value(KExpr::Index(index), dtype)
                }
                Expr::ToDtype { value, .. } => self.b.value(KExpr::Cast(done[value]), dtype),
                Expr::Bitcast { value, .. } => self.b.value(KExpr::Bitcast(done[value]), dtype),
                Expr::Unary(op, a) => self.b.value(KExpr::Unary(*op, done[a]), dtype),
                Expr::Binary(op, a, b) => self.b.value(KExpr::Binary(*op, done[a], done[b]), dtype),
                Expr::Ternary(_, c, a, b) => {
                    self.b.value(KExpr::Where(done[c], done[a], done[b]), dtype)
                }
                Expr::Reduction {
                    reduction_type,
                    value,
                } => {
                    if id != root {
                        return Err("a reduction inside a body".into());
                    }
                    let acc = self.b.reduce(*reduction_type, done[value], dtype);
                    done.insert(id, ValueId(acc.0 | ACC_BIT));
                    return Ok(done);
                }
                Expr::Scan { scan_type, value } => {
                    if id != root {
                        return Err("a scan inside a body".into());
                    }
                    let e = KExpr::Scan {
                        scan_type: *scan_type,
                        value: done[value],
                    };
                    self.b.value(e, dtype)
                }
            };
            done.insert(id, v);
        }
        Ok(done)
    }

    /// A scatter member: its value stored (or added) into its target at its store index,
    /// whose indirect indices become the kernel's values.
    fn scatter(
        &mut self,
        c: &ComputedBuffer,
        sc: coil_lower::Scatter,
        vars: &HashMap<Var, IndexExpr>,
    ) -> Result<(), String> {
        let body = &c.body;
        let ind = body.store_index.indirect_nodes();
        let last = ind
            .iter()
            .map(|&n| ExprId::new(n))
            .chain([body.value])
            .max_by_key(|e| e.index())
            .unwrap_or(body.value);
        let done = self.translate_map(&body.exprs, last, vars)?;
        let value = *done
            .get(&body.value)
            .ok_or("the scattered value was not translated")?;
        let index = body
            .store_index
            .subst(&mut |v| match v.indirect_node() {
                Some(n) => done
                    .get(&ExprId::new(n))
                    .map(|x| IndexExpr::var(Var::indirect(x.0 as usize))),
                None => vars.get(&v).cloned(),
            })
            .simplify(&self.kernel_ranges);
        let target = BufRef::Buffer(sc.target);
        self.arg(target, false);
        let arg = self.arg(target, true);
        self.b.store_with(arg, index, value, sc.mode);
        Ok(())
    }

    /// A load: from memory, or, for a member of this kernel, its accumulator or its
    /// recomputed value.
    fn load(
        &mut self,
        buffer: BufRef,
        index: IndexExpr,
        mask: Option<ValueId>,
        dtype: DType,
    ) -> Result<ValueId, String> {
        if let BufRef::Buffer(src) = buffer {
            if self.produced.contains_key(&src) && !index.indirect_nodes().is_empty() {
                // The scheduler never fuses a gather with its table's producer (a StarDep).
                return Err(format!(
                    "{src} is gathered inside the kernel that computes it"
                ));
            }
            match self.produced.get(&src) {
                Some(Produced::Reduction(acc, store_index)) => {
                    if *store_index != index {
                        return Err(format!(
                            "{src} is read at {index} but its reduction stores {store_index}"
                        ));
                    }
                    let acc = *acc;
                    let v = self.b.value(KExpr::Acc(acc), dtype);
                    return Ok(self.masked(v, mask, dtype));
                }
                Some(Produced::Scan(store_index)) => {
                    if *store_index != index {
                        return Err(format!(
                            "{src} (a scan) is read at {index} but stores {store_index}"
                        ));
                    }
                    let key = (src, index.clone(), self.b.current_stage());
                    return match self.recomputed.get(&key) {
                        Some(&v) => Ok(self.masked(v, mask, dtype)),
                        None => Err(format!("{src} (a scan) is read outside its stage")),
                    };
                }
                Some(Produced::Pointwise) => {
                    let key = (src, index.clone(), self.b.current_stage());
                    if let Some(&v) = self.recomputed.get(&key) {
                        return Ok(self.masked(v, mask, dtype));
                    }
                    let c = self
                        .lowered
                        .buffer(src)
                        .computed()
                        .ok_or("a pointwise member without a body")?;
                    let layout = self.lowered.buffer(src).layout.clone();
                    if !is_row_major(&layout.sizes, &layout.strides) || layout.offset != 0 {
                        return Err(format!(
                            "{src} has a strided layout; it cannot be recomputed in place"
                        ));
                    }
                    let (iter_vars, iter_sizes): (Vec<Var>, Vec<usize>) =
                        c.body.iter_vars().iter().copied().unzip();
                    let mut vars = HashMap::new();
                    unflatten(&iter_vars, &iter_sizes, &index, &mut vars);
                    for e in vars.values_mut() {
                        *e = e.simplify(&self.kernel_ranges);
                    }
                    let body = c.body.clone();
                    let v = self.translate(&body.exprs, body.value, &vars)?;
                    self.recomputed.insert(key, v);
                    return Ok(self.masked(v, mask, dtype));
                }
                None => {}
            }
        }
        let arg = self.arg(buffer, false);
        Ok(self.b.value(KExpr::Load { arg, index, mask }, dtype))
    }

    /// `where(mask, v, 0)` for a masked read of an in-kernel value.
    fn masked(&mut self, v: ValueId, mask: Option<ValueId>, dtype: DType) -> ValueId {
        match mask {
            None => v,
            Some(m) => {
                let zero = self.b.value(KExpr::Const(coil_lower::Const::Int(0)), dtype);
                let zero = if dtype.is_float() {
                    self.b
                        .value(KExpr::Const(coil_lower::Const::Float(0.0)), dtype)
                } else {
                    zero
                };
                self.b.value(KExpr::Where(m, v, zero), dtype)
            }
        }
    }

    /// Writes the finished accumulators that leave the kernel, in an outer stage.
    fn flush_acc_stores(
        &mut self,
        stores: &mut Vec<(BufferId, AccId, IndexExpr)>,
        needed: &dyn Fn(BufferId) -> bool,
    ) {
        let outgoing: Vec<_> = stores.drain(..).filter(|(id, _, _)| needed(*id)).collect();
        if outgoing.is_empty() {
            return;
        }
        self.b.begin_stage(StageKind::Outer);
        self.pending.clear();
        for (id, acc, index) in outgoing {
            let dtype = self.lowered.buffer(id).layout.dtype;
            let v = self.b.value(KExpr::Acc(acc), dtype);
            let arg = self.arg(BufRef::Buffer(id), true);
            self.b.store(arg, index, v);
        }
        let _ = &self.name;
    }
}

/// `sum(v_i * stride_i)` for row-major `sizes`.
fn flat(vars: &[Var], sizes: &[usize]) -> IndexExpr {
    let mut e = IndexExpr::zero();
    let mut stride = 1i64;
    for (v, &s) in vars.iter().zip(sizes).rev() {
        e = e.add(&IndexExpr::var(*v).scale(stride));
        stride *= s as i64;
    }
    e
}

/// `v_i = (flat // stride_i) % size_i` for row-major `sizes`.
fn unflatten(vars: &[Var], sizes: &[usize], flat: &IndexExpr, out: &mut HashMap<Var, IndexExpr>) {
    let mut stride = 1i64;
    for (v, &s) in vars.iter().zip(sizes).rev() {
        // A zero-size dim has no points: any modulus will do.
        out.insert(*v, flat.modular(stride, s.max(1) as i64));
        stride *= s as i64;
    }
}

fn is_row_major(sizes: &[usize], strides: &[usize]) -> bool {
    coil_graph::is_contiguous(sizes, strides)
}
