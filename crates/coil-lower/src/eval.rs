//! An interpreter over the lowered IR: buffers are computed in order by evaluating their loop
//! bodies and index expressions point by point (extern matmuls naively). Slow and direct; it
//! exists so tests can check the lowering against coil-eager.

use coil_graph::{DType, Data, Tensor};
use half::{bf16, f16};

use coil_kernel::scalar::{Acc, Scalar, binary, round_float, unary};

use crate::LoweredGraph;
use crate::body::{Expr, LoopBody};
use crate::error::LowerError;
use crate::ir::{
    BufRef, BufferId, BufferKind, ComputedBuffer, ExternKernel, ExternKind, FixedLayout, MatmulOp,
};

fn tensor_values(t: &Tensor) -> Vec<Scalar> {
    let offs = t.offsets();
    match &**t.storage() {
        Data::Bool(v) => offs.iter().map(|&o| Scalar::B(v[o])).collect(),
        Data::U8(v) => offs.iter().map(|&o| Scalar::I(v[o] as i64)).collect(),
        Data::I8(v) => offs.iter().map(|&o| Scalar::I(v[o] as i64)).collect(),
        Data::I16(v) => offs.iter().map(|&o| Scalar::I(v[o] as i64)).collect(),
        Data::I32(v) => offs.iter().map(|&o| Scalar::I(v[o] as i64)).collect(),
        Data::I64(v) => offs.iter().map(|&o| Scalar::I(v[o])).collect(),
        Data::F16(v) => offs.iter().map(|&o| Scalar::F(v[o].to_f64())).collect(),
        Data::BF16(v) => offs.iter().map(|&o| Scalar::F(v[o].to_f64())).collect(),
        Data::F32(v) => offs.iter().map(|&o| Scalar::F(v[o] as f64)).collect(),
        Data::F64(v) => offs.iter().map(|&o| Scalar::F(v[o])).collect(),
    }
}

type R<T> = Result<T, LowerError>;

fn eval_err<T>(msg: impl Into<String>) -> R<T> {
    Err(LowerError::Eval(msg.into()))
}

impl From<coil_kernel::scalar::ScalarError> for LowerError {
    fn from(e: coil_kernel::scalar::ScalarError) -> LowerError {
        LowerError::Eval(e.0)
    }
}

fn make_tensor(vals: &[Scalar], dtype: DType, sizes: Vec<usize>) -> R<Tensor> {
    let data = match dtype {
        DType::Bool => Data::Bool(vals.iter().map(|v| v.truthy()).collect()),
        DType::U8 => Data::U8(vals.iter().map(|v| v.as_i64() as u8).collect()),
        DType::I8 => Data::I8(vals.iter().map(|v| v.as_i64() as i8).collect()),
        DType::I16 => Data::I16(vals.iter().map(|v| v.as_i64() as i16).collect()),
        DType::I32 => Data::I32(vals.iter().map(|v| v.as_i64() as i32).collect()),
        DType::I64 => Data::I64(vals.iter().map(|v| v.as_i64()).collect()),
        DType::F16 => Data::F16(vals.iter().map(|v| f16::from_f64(v.as_f64())).collect()),
        DType::BF16 => Data::BF16(vals.iter().map(|v| bf16::from_f64(v.as_f64())).collect()),
        DType::F32 => Data::F32(vals.iter().map(|v| v.as_f64() as f32).collect()),
        DType::F64 => Data::F64(vals.iter().map(|v| v.as_f64()).collect()),
    };
    Tensor::new(data, sizes).map_err(|e| LowerError::Eval(e.to_string()))
}

/// Iterates every point of `ranges` (row-major), calling `f` with the coordinates.
fn for_each_point(ranges: &[usize], mut f: impl FnMut(&[i64]) -> R<()>) -> R<()> {
    if ranges.contains(&0) {
        return Ok(());
    }
    let mut p = vec![0i64; ranges.len()];
    loop {
        f(&p)?;
        let mut d = ranges.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            p[d] += 1;
            if (p[d] as usize) < ranges[d] {
                break;
            }
            p[d] = 0;
        }
    }
}

struct Memory<'a> {
    graph: &'a LoweredGraph,
    inputs: Vec<Vec<Scalar>>,
    /// `None` until the buffer is computed.
    buffers: Vec<Option<Vec<Scalar>>>,
}

impl Memory<'_> {
    fn storage(&self, b: BufRef) -> R<&[Scalar]> {
        match b {
            BufRef::Input(i) => Ok(&self.inputs[i.index()]),
            BufRef::Buffer(id) => self.buffers[id.index()]
                .as_deref()
                .ok_or_else(|| LowerError::Eval(format!("{id} is read before it is computed"))),
            BufRef::IndexChecks => eval_err("index_checks is not a buffer bodies read"),
        }
    }

    fn read(&self, b: BufRef, at: i64) -> R<Scalar> {
        let s = self.storage(b)?;
        usize::try_from(at)
            .ok()
            .and_then(|i| s.get(i))
            .copied()
            .ok_or_else(|| {
                LowerError::Eval(format!(
                    "load of {} at {at} is outside its {} elements",
                    self.graph.name(b),
                    s.len()
                ))
            })
    }

    fn strided(&self, b: BufRef, layout: &FixedLayout) -> R<Vec<Scalar>> {
        let mut out = Vec::with_capacity(layout.numel());
        for_each_point(&layout.sizes, |p| {
            let at = layout.offset as i64
                + p.iter()
                    .zip(&layout.strides)
                    .map(|(&i, &s)| i * s as i64)
                    .sum::<i64>();
            out.push(self.read(b, at)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// The values a computed buffer stores: its own elements, or for a scatter, its target's
    /// after the scatter (`init`, the target's elements before it).
    fn computed(
        &self,
        c: &ComputedBuffer,
        dtype: DType,
        numel: usize,
        init: Option<Vec<Scalar>>,
    ) -> R<Vec<Scalar>> {
        let body: &LoopBody = &c.body;
        let n = body.exprs.len();
        let mut vals = vec![Scalar::I(0); n];
        let mut out = init.unwrap_or_else(|| vec![Scalar::zero(dtype); numel]);
        let it_ranges: Vec<usize> = body.iter_vars().iter().map(|(_, r)| *r).collect();
        let red_ranges: Vec<usize> = body.reduction_vars().iter().map(|(_, r)| *r).collect();
        let nit = it_ranges.len();
        let mut env = vec![0i64; body.var_ranges.len()];
        let reduction = body.reduction();
        if let Some((st, inner)) = body.scan() {
            // Every point is stored: the running value along the reduction variables.
            let vdt = body.exprs.dtype(body.value);
            for_each_point(&it_ranges, |ip| {
                env[..nit].copy_from_slice(ip);
                let mut acc = Acc::new(st);
                for_each_point(&red_ranges, |rp| {
                    env[nit..].copy_from_slice(rp);
                    self.eval_nodes(body, &env, &mut vals, body.value.index())?;
                    acc.combine(st, vals[inner.index()], 0);
                    let at = body.store_index.eval(&|v| env[v.n as usize]);
                    let slot = usize::try_from(at)
                        .ok()
                        .and_then(|i| out.get_mut(i))
                        .ok_or_else(|| {
                            LowerError::Eval(format!("store at {at} is out of bounds"))
                        })?;
                    *slot = acc.clone().finish(vdt).cast(dtype);
                    Ok(())
                })
            })?;
            return Ok(out);
        }
        for_each_point(&it_ranges, |ip| {
            env[..nit].copy_from_slice(ip);
            let value = match reduction {
                None => {
                    self.eval_nodes(body, &env, &mut vals, n)?;
                    vals[body.value.index()]
                }
                Some((rt, inner)) => {
                    let mut acc = Acc::new(rt);
                    let mut pos = 0i64;
                    for_each_point(&red_ranges, |rp| {
                        env[nit..].copy_from_slice(rp);
                        self.eval_nodes(body, &env, &mut vals, body.value.index())?;
                        acc.combine(rt, vals[inner.index()], pos);
                        pos += 1;
                        Ok(())
                    })?;
                    acc.finish(body.exprs.dtype(body.value))
                }
            };
            let at = body.store_index.eval(&|v| match v.indirect_node() {
                Some(k) => vals[k].as_i64(),
                None => env[v.n as usize],
            });
            let slot = usize::try_from(at)
                .ok()
                .and_then(|i| out.get_mut(i))
                .ok_or_else(|| LowerError::Eval(format!("store at {at} is out of bounds")))?;
            *slot = match c.scatter.map(|s| s.mode) {
                Some(crate::StoreMode::AtomicAdd) => {
                    binary(crate::Op::Add, *slot, value.cast(dtype), dtype)
                        .map_err(|e| LowerError::Eval(e.to_string()))?
                        .cast(dtype)
                }
                _ => value.cast(dtype),
            };
            Ok(())
        })?;
        Ok(out)
    }

    /// Evaluates nodes `0..upto` at the point `env`.
    fn eval_nodes(&self, body: &LoopBody, env: &[i64], vals: &mut [Scalar], upto: usize) -> R<()> {
        for (id, e) in body.exprs.iter().take(upto) {
            let dtype = body.exprs.dtype(id);
            let point = |v: crate::Var| match v.indirect_node() {
                Some(n) => vals[n].as_i64(),
                None => env.get(v.n as usize).copied().unwrap_or(0),
            };
            let v = match e {
                Expr::Load {
                    buffer,
                    index,
                    mask,
                } => {
                    if mask.is_some_and(|m| !vals[m.index()].truthy()) {
                        Scalar::zero(dtype)
                    } else {
                        self.read(*buffer, index.eval(&point))?
                    }
                }
                Expr::Constant { value, dtype } => match value {
                    crate::Const::Float(x) => Scalar::F(*x),
                    crate::Const::Int(i) => Scalar::I(*i),
                    crate::Const::Bool(b) => Scalar::B(*b),
                }
                .cast(*dtype),
                Expr::IndexExpr { index, dtype } => Scalar::I(index.eval(&point)).cast(*dtype),
                Expr::IndirectIndex {
                    value,
                    size,
                    wrap_negative,
                    check,
                } => {
                    let raw = vals[value.index()].as_i64();
                    match crate::resolve_indirect(raw, *size, *wrap_negative) {
                        Some(i) => Scalar::I(i),
                        None => {
                            let msg = self.graph.index_checks.get(*check as usize).map_or_else(
                                || format!("index {raw} is out of range"),
                                |c| c.message(raw),
                            );
                            return Err(LowerError::Eval(msg));
                        }
                    }
                }
                Expr::ToDtype { value, dtype } => vals[value.index()].cast(*dtype),
                Expr::Bitcast { value, dtype } => coil_kernel::scalar::bitcast(
                    vals[value.index()],
                    body.exprs.dtype(*value),
                    *dtype,
                ),
                Expr::Unary(op, a) => unary(*op, vals[a.index()], dtype)?,
                Expr::Binary(op, a, b) => binary(*op, vals[a.index()], vals[b.index()], dtype)?,
                Expr::Ternary(_, c, a, b) => {
                    if vals[c.index()].truthy() {
                        vals[a.index()]
                    } else {
                        vals[b.index()]
                    }
                }
                Expr::Reduction { .. } | Expr::Scan { .. } => {
                    return eval_err("a reduction or scan feeds another value");
                }
            };
            vals[id.index()] = v;
        }
        Ok(())
    }

    fn extern_kernel(&self, e: &ExternKernel, dtype: DType, sizes: &[usize]) -> R<Vec<Scalar>> {
        // Host ops and library convolutions run through coil-eager on the operands as tensors.
        let tensors = || -> R<Vec<Tensor>> {
            e.inputs
                .iter()
                .map(|i| {
                    make_tensor(
                        &self.strided(i.buffer, &i.layout)?,
                        i.layout.dtype,
                        i.layout.sizes.clone(),
                    )
                })
                .collect()
        };
        let on_host = match &e.kind {
            ExternKind::Fallback(h) => Some(crate::run_host_op(h, &tensors()?)),
            ExternKind::Convolution(c) => Some(crate::run_conv_on_host(c, &tensors()?)),
            ExternKind::ConvolutionBackward(c, grad) => Some(crate::run_conv_backward_on_host(
                c,
                *grad,
                &tensors()?,
                sizes,
            )),
            _ => None,
        };
        if let Some(out) = on_host {
            return Ok(tensor_values(&out.map_err(LowerError::Eval)?));
        }
        let Some((op, post)) = e.kind.matmul() else {
            return eval_err("not a matmul: it reached the matmul evaluator");
        };
        let base = ExternKind::Matmul(op).arity();
        if e.inputs.len() < base {
            return eval_err("a matmul takes two operands (three with a bias)");
        }
        let (inputs, extra) = e.inputs.split_at(base);
        let (bias, a, b) = match inputs {
            [a, b] => (None, a, b),
            [bias, a, b] => (Some(bias), a, b),
            _ => return eval_err("a matmul takes two operands (three with a bias)"),
        };
        let extra = extra
            .iter()
            .map(|x| self.strided(x.buffer, &x.layout))
            .collect::<R<Vec<_>>>()?;
        let bias = bias
            .map(|x| self.strided(x.buffer, &x.layout))
            .transpose()?;
        let av = self.strided(a.buffer, &a.layout)?;
        let bv = self.strided(b.buffer, &b.layout)?;
        let (batch, m, k, n) = match op {
            MatmulOp::Mm | MatmulOp::Addmm => {
                (1, a.layout.sizes[0], a.layout.sizes[1], b.layout.sizes[1])
            }
            MatmulOp::Bmm => (
                a.layout.sizes[0],
                a.layout.sizes[1],
                a.layout.sizes[2],
                b.layout.sizes[2],
            ),
        };
        debug_assert_eq!(sizes.iter().product::<usize>(), batch * m * n);
        let mut out = Vec::with_capacity(batch * m * n);
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = bias.as_ref().map_or(0.0, |v| v[i * n + j].as_f64());
                    for kk in 0..k {
                        acc += av[bi * m * k + i * k + kk].as_f64()
                            * bv[bi * k * n + kk * n + j].as_f64();
                    }
                    // Post-ops in f32 on the f32 product, one rounding at the end.
                    let at = (bi * m + i) * n + j;
                    let mut y = if post.is_empty() {
                        acc
                    } else {
                        round_float(acc, DType::F32)
                    };
                    let mut operands = extra.iter();
                    for p in post {
                        let x = if p.takes_operand() {
                            operands.next().map_or(0.0, |v| v[at].as_f64())
                        } else {
                            0.0
                        };
                        y = round_float(p.apply(y, x), DType::F32);
                    }
                    out.push(Scalar::F(round_float(y, dtype)));
                }
            }
        }
        Ok(out)
    }
}

impl LoweredGraph {
    /// Runs the lowered program on `inputs` (in signature order) and returns the outputs as
    /// contiguous tensors.
    pub fn evaluate(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, LowerError> {
        let order: Vec<BufferId> = self.buffers.ids().collect();
        self.evaluate_in_order(inputs, &order)
    }

    /// Like [`LoweredGraph::evaluate`], computing the buffers in `order` (a scheduler's
    /// execution order): reading a buffer that `order` has not computed yet is an error, and
    /// so is computing one twice. Buffers `order` leaves out are never computed (an output
    /// among them is an error).
    pub fn evaluate_in_order(
        &self,
        inputs: &[Tensor],
        order: &[BufferId],
    ) -> Result<Vec<Tensor>, LowerError> {
        if inputs.len() != self.inputs.len() {
            return eval_err(format!(
                "the graph takes {} inputs, {} were given",
                self.inputs.len(),
                inputs.len()
            ));
        }
        let mut mem = Memory {
            graph: self,
            inputs: Vec::new(),
            buffers: vec![None; self.buffers.len()],
        };
        for (i, (t, (_, ib))) in inputs.iter().zip(self.inputs.iter_enumerated()).enumerate() {
            let err = |msg: String| LowerError::Input {
                index: i,
                name: ib.name.clone(),
                msg,
            };
            if t.dtype() != ib.layout.dtype {
                return Err(err(format!(
                    "expected dtype {}, got {}",
                    ib.layout.dtype,
                    t.dtype()
                )));
            }
            if t.sizes() != ib.layout.sizes.as_slice() {
                return Err(err(format!(
                    "expected sizes {:?}, got {:?}",
                    ib.layout.sizes,
                    t.sizes()
                )));
            }
            mem.inputs.push(tensor_values(t));
        }
        for &id in order {
            let buf = self
                .buffers
                .get(id)
                .ok_or_else(|| LowerError::Eval(format!("{id} is not a buffer of this graph")))?;
            if mem.buffers[id.index()].is_some() {
                return eval_err(format!("{id} is computed twice"));
            }
            let numel = buf.layout.storage_len();
            let vals = match &buf.kind {
                BufferKind::Computed(c) if c.scatter.is_some() => {
                    let target = c.scatter.map(|s| s.target.index()).unwrap_or_default();
                    let init = mem.buffers.get_mut(target).and_then(Option::take);
                    let Some(init) = init else {
                        return eval_err(format!("{id} scatters into a buffer not computed yet"));
                    };
                    let after = mem.computed(c, buf.layout.dtype, numel, Some(init))?;
                    mem.buffers[target] = Some(after);
                    Vec::new()
                }
                BufferKind::Computed(c) => mem.computed(c, buf.layout.dtype, numel, None)?,
                BufferKind::Extern(e) => {
                    mem.extern_kernel(e, buf.layout.dtype, &buf.layout.sizes)?
                }
            };
            mem.buffers[id.index()] = Some(vals);
        }
        self.outputs
            .iter()
            .map(|o| {
                let vals = mem.strided(o.buffer, &o.layout)?;
                make_tensor(&vals, o.layout.dtype, o.layout.sizes.clone())
            })
            .collect()
    }
}
