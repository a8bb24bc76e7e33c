//! An interpreter over the lowered IR: buffers are computed in order by evaluating their loop
//! bodies and index expressions point by point (extern matmuls naively). Slow and direct; it
//! exists so tests can check the lowering against coil-eager.

use coil_graph::{DType, Data, Tensor};
use half::{bf16, f16};

use crate::LoweredGraph;
use crate::body::{Expr, LoopBody, Op, ReductionType};
use crate::error::LowerError;
use crate::ir::{
    BufRef, BufferId, BufferKind, ComputedBuffer, ExternKernel, ExternKind, FixedLayout, MatmulOp,
};

/// One element: floats as f64 (rounded to their dtype after every op), integers as i64.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A float, rounded to its dtype.
    F(f64),
    /// An integer.
    I(i64),
    /// A bool.
    B(bool),
}

type R<T> = Result<T, LowerError>;

fn eval_err<T>(msg: impl Into<String>) -> R<T> {
    Err(LowerError::Eval(msg.into()))
}

fn round_float(x: f64, dtype: DType) -> f64 {
    match dtype {
        DType::F32 => x as f32 as f64,
        DType::F16 => f16::from_f64(x).to_f64(),
        DType::BF16 => bf16::from_f64(x).to_f64(),
        _ => x,
    }
}

fn wrap_int(i: i64, dtype: DType) -> i64 {
    match dtype {
        DType::I32 => i as i32 as i64,
        _ => i,
    }
}

impl Scalar {
    /// Zero of `dtype`.
    pub fn zero(dtype: DType) -> Scalar {
        match dtype {
            DType::Bool => Scalar::B(false),
            d if d.is_float() => Scalar::F(0.0),
            _ => Scalar::I(0),
        }
    }

    /// The value as f64.
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::F(x) => x,
            Scalar::I(i) => i as f64,
            Scalar::B(b) => b as u8 as f64,
        }
    }

    fn truthy(self) -> bool {
        match self {
            Scalar::F(x) => x != 0.0,
            Scalar::I(i) => i != 0,
            Scalar::B(b) => b,
        }
    }

    /// PyTorch's conversions: floats to ints truncate, nonzero is true.
    pub fn cast(self, to: DType) -> Scalar {
        match (self, to) {
            (v, DType::Bool) => Scalar::B(v.truthy()),
            (v, d) if d.is_float() => Scalar::F(round_float(v.as_f64(), d)),
            (Scalar::F(x), d) => Scalar::I(wrap_int(x as i64, d)),
            (Scalar::I(i), d) => Scalar::I(wrap_int(i, d)),
            (Scalar::B(b), d) => Scalar::I(wrap_int(b as i64, d)),
        }
    }
}

/// The reference semantics of a one-operand op on one element (PyTorch's), producing `dtype`.
pub fn unary(op: Op, a: Scalar, dtype: DType) -> R<Scalar> {
    Ok(match a {
        Scalar::F(x) => {
            let y = match op {
                Op::Neg => -x,
                Op::Abs => x.abs(),
                Op::Floor => x.floor(),
                Op::Ceil => x.ceil(),
                Op::Round => x.round_ties_even(),
                Op::Trunc => x.trunc(),
                Op::Exp => x.exp(),
                Op::Log => x.ln(),
                Op::Log1p => x.ln_1p(),
                Op::Sqrt => x.sqrt(),
                Op::Rsqrt => 1.0 / x.sqrt(),
                Op::Sin => x.sin(),
                Op::Cos => x.cos(),
                Op::Tanh => x.tanh(),
                Op::Erf => libm::erf(x),
                Op::Sigmoid => 1.0 / (1.0 + (-x).exp()),
                Op::Relu => {
                    if x.is_nan() || x > 0.0 {
                        x
                    } else {
                        0.0
                    }
                }
                Op::Reciprocal => 1.0 / x,
                Op::LogicalNot => return Ok(Scalar::B(x == 0.0)),
                _ => return eval_err(format!("{op} of a float")),
            };
            Scalar::F(round_float(y, dtype))
        }
        Scalar::I(i) => {
            let y = match op {
                Op::Neg => i.wrapping_neg(),
                Op::Abs => i.wrapping_abs(),
                Op::Floor | Op::Ceil | Op::Round | Op::Trunc => i,
                Op::Relu => i.max(0),
                Op::BitwiseNot => !i,
                Op::LogicalNot => return Ok(Scalar::B(i == 0)),
                _ => return unary(op, Scalar::F(i as f64), DType::F64).map(|v| v.cast(dtype)),
            };
            Scalar::I(wrap_int(y, dtype))
        }
        Scalar::B(b) => match op {
            Op::LogicalNot | Op::BitwiseNot => Scalar::B(!b),
            Op::Abs | Op::Relu => Scalar::B(b),
            _ => return unary(op, Scalar::I(b as i64), DType::I64).map(|v| v.cast(dtype)),
        },
    })
}

fn nan_max(a: f64, b: f64, max: bool) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if max {
        a.max(b)
    } else {
        a.min(b)
    }
}

/// The reference semantics of a two-operand op on one element, producing `dtype`.
pub fn binary(op: Op, a: Scalar, b: Scalar, dtype: DType) -> R<Scalar> {
    use Op::*;
    if matches!(op, LogicalAnd | LogicalOr) {
        let (x, y) = (a.truthy(), b.truthy());
        return Ok(Scalar::B(if op == LogicalAnd { x && y } else { x || y }));
    }
    Ok(match (a, b) {
        (Scalar::F(x), Scalar::F(y)) => {
            let z = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                TrueDiv => x / y,
                FloorDiv => (x / y).floor(),
                TruncDiv => (x / y).trunc(),
                Pow => x.powf(y),
                Maximum => nan_max(x, y, true),
                Minimum => nan_max(x, y, false),
                Eq => return Ok(Scalar::B(x == y)),
                Ne => return Ok(Scalar::B(x != y)),
                Lt => return Ok(Scalar::B(x < y)),
                Le => return Ok(Scalar::B(x <= y)),
                Gt => return Ok(Scalar::B(x > y)),
                Ge => return Ok(Scalar::B(x >= y)),
                _ => return eval_err(format!("{op} of two floats")),
            };
            Scalar::F(round_float(z, dtype))
        }
        (Scalar::I(x), Scalar::I(y)) => {
            let z = match op {
                Add => x.wrapping_add(y),
                Sub => x.wrapping_sub(y),
                Mul => x.wrapping_mul(y),
                FloorDiv | TruncDiv | TrueDiv if y == 0 => {
                    return eval_err("integer division by zero");
                }
                FloorDiv => {
                    let q = x.wrapping_div(y);
                    if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                        q - 1
                    } else {
                        q
                    }
                }
                TruncDiv | TrueDiv => x.wrapping_div(y),
                Pow => {
                    if y < 0 {
                        return eval_err("integers to negative integer powers are not allowed");
                    }
                    x.wrapping_pow(y.min(u32::MAX as i64) as u32)
                }
                Maximum => x.max(y),
                Minimum => x.min(y),
                Eq => return Ok(Scalar::B(x == y)),
                Ne => return Ok(Scalar::B(x != y)),
                Lt => return Ok(Scalar::B(x < y)),
                Le => return Ok(Scalar::B(x <= y)),
                Gt => return Ok(Scalar::B(x > y)),
                Ge => return Ok(Scalar::B(x >= y)),
                _ => return eval_err(format!("{op} of two integers")),
            };
            Scalar::I(wrap_int(z, dtype))
        }
        (Scalar::B(x), Scalar::B(y)) => match op {
            Add | Maximum => Scalar::B(x || y),
            Mul | Minimum => Scalar::B(x && y),
            Eq => Scalar::B(x == y),
            Ne => Scalar::B(x != y),
            Lt => Scalar::B(!x & y),
            Le => Scalar::B(x <= y),
            Gt => Scalar::B(x & !y),
            Ge => Scalar::B(x >= y),
            _ => {
                return binary(op, Scalar::I(x as i64), Scalar::I(y as i64), DType::I64)
                    .map(|v| v.cast(dtype));
            }
        },
        (a, b) => return eval_err(format!("{op} of mixed values {a:?} and {b:?}")),
    })
}

/// A reduction in progress, with PyTorch's rules (NaN-propagating max/min, first index for
/// argmax/argmin with NaN winning).
#[allow(missing_docs)]
#[derive(Clone, Debug)]
pub enum Acc {
    Sum(f64, i64),
    Prod(f64, i64),
    Extreme(Option<Scalar>),
    Arg(Option<(Scalar, i64)>),
}

/// True when `a` beats `b` for max (or min): NaN wins, ties keep the first.
fn beats(a: Scalar, b: Scalar, max: bool) -> bool {
    match (a, b) {
        (Scalar::I(x), Scalar::I(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        _ => {
            let (x, y) = (a.as_f64(), b.as_f64());
            if y.is_nan() {
                false
            } else if x.is_nan() {
                true
            } else if max {
                x > y
            } else {
                x < y
            }
        }
    }
}

impl Acc {
    /// The identity of `rt`.
    pub fn new(rt: ReductionType) -> Acc {
        match rt {
            ReductionType::Sum => Acc::Sum(0.0, 0),
            ReductionType::Prod => Acc::Prod(1.0, 1),
            ReductionType::Max | ReductionType::Min => Acc::Extreme(None),
            ReductionType::Argmax | ReductionType::Argmin => Acc::Arg(None),
        }
    }

    /// Folds in the element at flat reduction position `pos`.
    pub fn combine(&mut self, rt: ReductionType, v: Scalar, pos: i64) {
        let max = matches!(rt, ReductionType::Max | ReductionType::Argmax);
        match self {
            Acc::Sum(f, i) => match v {
                Scalar::F(x) => *f += x,
                other => *i = i.wrapping_add(other.cast(DType::I64).as_i64()),
            },
            Acc::Prod(f, i) => match v {
                Scalar::F(x) => *f *= x,
                other => *i = i.wrapping_mul(other.cast(DType::I64).as_i64()),
            },
            Acc::Extreme(best) => {
                if best.is_none_or(|b| beats(v, b, max)) {
                    *best = Some(v);
                }
            }
            Acc::Arg(best) => {
                if best.is_none_or(|(b, _)| beats(v, b, max)) {
                    *best = Some((v, pos));
                }
            }
        }
    }

    /// The result, as `dtype`.
    pub fn finish(self, dtype: DType) -> Scalar {
        match self {
            Acc::Sum(f, i) | Acc::Prod(f, i) => {
                if dtype.is_float() {
                    Scalar::F(round_float(f, dtype))
                } else {
                    Scalar::I(i).cast(dtype)
                }
            }
            Acc::Extreme(best) => match best {
                Some(v) => v.cast(dtype),
                // Max of nothing: PyTorch raises; the identity is what a kernel would leave.
                None if dtype.is_float() => Scalar::F(f64::NAN),
                None => Scalar::zero(dtype),
            },
            Acc::Arg(best) => Scalar::I(best.map_or(0, |(_, p)| p)),
        }
    }
}

impl Scalar {
    /// The value as an integer (floats truncate, bools are 0 or 1).
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::I(i) => i,
            Scalar::F(x) => x as i64,
            Scalar::B(b) => b as i64,
        }
    }
}

fn tensor_values(t: &Tensor) -> Vec<Scalar> {
    let offs = t.offsets();
    match &**t.storage() {
        Data::Bool(v) => offs.iter().map(|&o| Scalar::B(v[o])).collect(),
        Data::I32(v) => offs.iter().map(|&o| Scalar::I(v[o] as i64)).collect(),
        Data::I64(v) => offs.iter().map(|&o| Scalar::I(v[o])).collect(),
        Data::F16(v) => offs.iter().map(|&o| Scalar::F(v[o].to_f64())).collect(),
        Data::BF16(v) => offs.iter().map(|&o| Scalar::F(v[o].to_f64())).collect(),
        Data::F32(v) => offs.iter().map(|&o| Scalar::F(v[o] as f64)).collect(),
        Data::F64(v) => offs.iter().map(|&o| Scalar::F(v[o])).collect(),
    }
}

fn make_tensor(vals: &[Scalar], dtype: DType, sizes: Vec<usize>) -> R<Tensor> {
    let data = match dtype {
        DType::Bool => Data::Bool(vals.iter().map(|v| v.truthy()).collect()),
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

    fn computed(&self, c: &ComputedBuffer, dtype: DType, numel: usize) -> R<Vec<Scalar>> {
        let body: &LoopBody = &c.body;
        let n = body.exprs.len();
        let mut vals = vec![Scalar::I(0); n];
        let mut out = vec![Scalar::zero(dtype); numel];
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
            let at = body.store_index.eval(&|v| env[v.n as usize]);
            let slot = usize::try_from(at)
                .ok()
                .and_then(|i| out.get_mut(i))
                .ok_or_else(|| LowerError::Eval(format!("store at {at} is out of bounds")))?;
            *slot = value.cast(dtype);
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
                BufferKind::Computed(c) => mem.computed(c, buf.layout.dtype, numel)?,
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
