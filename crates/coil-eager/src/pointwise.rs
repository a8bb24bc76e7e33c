//! Pointwise ops: broadcasting, type promotion (the output dtype is the node's; the arithmetic
//! runs in PyTorch's opmath type), Python scalars, comparisons, logic, `where`, `clamp`, casts.

use std::cell::Cell;

use coil_graph::{DType, Operand, PointwiseKind, TensorMeta, broadcast_shapes, result_type};

use crate::elem::{
    Elem, Float, Num, Src, convert, finish, scalar_as, with_compute, with_elem, with_float,
};
use crate::error::{OpError, fail};
use crate::interp::{Args, Value};
use crate::strided::{map1, map2, map3};

/// Runs a pointwise op; `out` is the node's recorded meta.
pub(crate) fn eval(
    kind: PointwiseKind,
    a: &Args<'_>,
    out: &TensorMeta,
) -> Result<coil_graph::Tensor, OpError> {
    use PointwiseKind::*;
    let dtype = out.dtype;
    match kind {
        Add | Sub | Div | Fmod | Remainder => {
            let (x, y) = (a.value("self")?, a.value("other")?);
            let sizes = broadcast(&[x, y])?;
            with_compute!(dtype, T => {
                let (sx, sy) = (src::<T>(x, &sizes)?, src::<T>(y, &sizes)?);
                let v = arith::<T>(kind, a, &sx, &sy, &sizes)?;
                finish(v, dtype, sizes)
            })
        }
        CopyValues => {
            let sizes = out.sizes.clone();
            with_compute!(dtype, T => {
                let s = src::<T>(a.value("src")?, &sizes)?;
                finish(map1(&sizes, &s, |q| q), dtype, sizes)
            })
        }
        Hardswish | Hardsigmoid | Hardtanh | Softplus | LeakyRelu | Elu => {
            let x = a.tensor("self")?;
            let s = |n: &str, d: f64| a.b.opt_scalar(n).map_or(d, |v| v.to_f64());
            let f: Box<dyn Fn(f64) -> f64> = match kind {
                Hardswish => Box::new(|v: f64| v * (v + 3.0).clamp(0.0, 6.0) / 6.0),
                Hardsigmoid => Box::new(|v: f64| (v + 3.0).clamp(0.0, 6.0) / 6.0),
                Hardtanh => {
                    let (lo, hi) = (s("min_val", -1.0), s("max_val", 1.0));
                    Box::new(move |v: f64| if v.is_nan() { v } else { v.max(lo).min(hi) })
                }
                Softplus => {
                    let (beta, threshold) = (s("beta", 1.0), s("threshold", 20.0));
                    Box::new(move |v: f64| {
                        if v * beta > threshold {
                            v
                        } else {
                            (v * beta).exp().ln_1p() / beta
                        }
                    })
                }
                LeakyRelu => {
                    let slope = s("negative_slope", 0.01);
                    Box::new(move |v: f64| if v > 0.0 { v } else { v * slope })
                }
                _ => {
                    let (alpha, scale, input_scale) =
                        (s("alpha", 1.0), s("scale", 1.0), s("input_scale", 1.0));
                    Box::new(move |v: f64| {
                        if v > 0.0 {
                            v * scale
                        } else {
                            alpha * scale * ((v * input_scale).exp_m1())
                        }
                    })
                }
            };
            let v: Vec<f64> = x.to_f64_vec().into_iter().map(f).collect();
            crate::host::tensor(dtype, x.sizes().to_vec(), v)
        }
        MaskedFill => {
            let x = a.tensor("self")?;
            let mask = a.tensor("mask")?;
            let fill = match a.value("value")? {
                Value::Scalar(s) => s,
                Value::Tensor(t) => match crate::host::Vals::of(t).get(0) {
                    crate::host::Val::F(f) => coil_graph::Scalar::Float(f),
                    crate::host::Val::I(i) => coil_graph::Scalar::Int(i),
                },
            };
            let sizes = out.sizes.clone();
            let xe = expand(x, &sizes)?.contiguous();
            let ms = crate::host::values(&expand(mask, &sizes)?);
            let offs: Vec<Option<usize>> = ms
                .iter()
                .enumerate()
                .map(|(i, &m)| (m == 0.0).then_some(i))
                .collect();
            crate::host::take(&xe, &offs, fill, sizes)
        }
        Tril | Triu => {
            let x = a.tensor("self")?;
            let diag = a.b.int("diagonal")?;
            let sizes = x.sizes().to_vec();
            let (rows, cols) = (sizes[sizes.len() - 2], sizes[sizes.len() - 1]);
            let offs: Vec<Option<usize>> = (0..x.numel())
                .map(|i| {
                    let (r, c) = (((i / cols) % rows.max(1)) as i64, (i % cols) as i64);
                    let keep = if kind == Tril {
                        c - r <= diag
                    } else {
                        c - r >= diag
                    };
                    keep.then_some(i)
                })
                .collect();
            crate::host::take(x, &offs, coil_graph::Scalar::Int(0), sizes)
        }
        Silu | Gelu => {
            let x = a.tensor("self")?;
            let tanh_gelu = match a.b.opt_str("approximate") {
                None | Some("none") => false,
                Some("tanh") => true,
                Some(other) => {
                    return fail(format!(
                        "approximate must be 'none' or 'tanh', got '{other}'"
                    ));
                }
            };
            with_float!(dtype, kind_name(kind), T => {
                let s = Src::<T>::of(x)?;
                let Some(v) = unary_float::<T>(kind, tanh_gelu, &s, x.sizes()) else {
                    return fail(format!("{kind:?} is not a float unary op"));
                };
                finish(v, dtype, x.sizes().to_vec())
            })
        }
        RoundDecimals => {
            let x = a.tensor("self")?;
            let d = a.b.int("decimals")?;
            let (scale, divide_first) = coil_kernel::scalar::round_decimals_scale(d);
            with_float!(dtype, "round", T => {
                let s = src::<T>(Value::Tensor(x), x.sizes())?;
                let p = T::from_f64(scale);
                // nearbyint of a value of T is a value of T: exact through f64.
                let round = |v: T| T::from_f64(v.to_f64().round_ties_even());
                let v = map1(x.sizes(), &s, |q: T| {
                    if divide_first {
                        round(q.div(p)).mul(p)
                    } else {
                        round(q.mul(p)).div(p)
                    }
                });
                finish(v, dtype, x.sizes().to_vec())
            })
        }
        Where => {
            let cond = a.tensor("condition")?;
            let (x, y) = (a.value("self")?, a.value("other")?);
            let sizes = broadcast(&[Value::Tensor(cond), x, y])?;
            let sc = Src::<bool>::tensor(cond, &sizes)?;
            with_elem!(dtype, T => {
                let (sx, sy) = (src::<T>(x, &sizes)?, src::<T>(y, &sizes)?);
                let v = map3(&sizes, &sc, &sx, &sy, |c, p, q| if c { p } else { q });
                finish(v, dtype, sizes)
            })
        }
        Clamp => {
            let x = a.value("self")?;
            let (lo, hi) = (a.opt_value("min")?, a.opt_value("max")?);
            let present: Vec<Value<'_>> = [Some(x), lo, hi].into_iter().flatten().collect();
            let sizes = broadcast(&present)?;
            with_compute!(dtype, T => {
                let sx = src::<T>(x, &sizes)?;
                let slo = match lo {
                    Some(v) => src::<T>(v, &sizes)?,
                    None => Src::scalar(T::LOWEST, sizes.len()),
                };
                let shi = match hi {
                    Some(v) => src::<T>(v, &sizes)?,
                    None => Src::scalar(T::HIGHEST, sizes.len()),
                };
                let v = map3(&sizes, &sx, &slo, &shi, |p: T, l: T, h: T| {
                    if l.is_nan() {
                        l
                    } else if h.is_nan() {
                        h
                    } else {
                        p.max_nan(l).min_nan(h)
                    }
                });
                finish(v, dtype, sizes)
            })
        }
        ToCopy => convert(a.tensor("self")?, dtype),
    }
}

/// Runs a float function of the table: its reference meaning, in f64, rounded once to the
/// result's dtype.
pub(crate) fn float(
    f: coil_graph::FloatFn,
    a: &Args<'_>,
    out: &TensorMeta,
) -> Result<coil_graph::Tensor, OpError> {
    let dtype = out.dtype;
    // The table's reference meaning, in f64, rounded once to the result's dtype.
    let names = f.params();
    let values: Vec<Value<'_>> = names.iter().map(|n| a.value(n)).collect::<Result<_, _>>()?;
    let sizes = broadcast(&values)?;
    let v = match values.as_slice() {
        [x] => map1(&sizes, &src::<f64>(*x, &sizes)?, |p| f.reference(&[p])),
        [x, y] => {
            let (sx, sy) = (src::<f64>(*x, &sizes)?, src::<f64>(*y, &sizes)?);
            map2(&sizes, &sx, &sy, |p, q| f.reference(&[p, q]))
        }
        _ => return fail(format!("{} takes one or two tensors", f.name())),
    };
    finish(v, dtype, sizes)
}

/// The broadcast sizes of the tensor operands.
pub(crate) fn broadcast(values: &[Value<'_>]) -> Result<Vec<usize>, OpError> {
    let mut sizes = vec![];
    for v in values {
        if let Value::Tensor(t) = v {
            sizes = broadcast_shapes(&sizes, t.sizes())?;
        }
    }
    Ok(sizes)
}

/// `torch.result_type` of the operands: the dtype a comparison computes in.
pub(crate) fn common_dtype(values: &[Value<'_>]) -> DType {
    let operands: Vec<Operand> = values
        .iter()
        .map(|v| match v {
            Value::Tensor(t) => Operand::Tensor {
                dtype: t.dtype(),
                rank: t.sizes().len(),
            },
            Value::Scalar(s) => Operand::Scalar(s.category()),
        })
        .collect();
    result_type(&operands)
}

/// An operand read as `T` over `sizes`.
pub(crate) fn src<'a, T: Elem>(v: Value<'a>, sizes: &[usize]) -> Result<Src<'a, T>, OpError> {
    match v {
        Value::Tensor(t) => Src::tensor(t, sizes),
        Value::Scalar(s) => Ok(Src::scalar(scalar_as(s), sizes.len())),
    }
}

fn arith<E: Num>(
    kind: PointwiseKind,
    a: &Args<'_>,
    x: &Src<'_, E>,
    y: &Src<'_, E>,
    sizes: &[usize],
) -> Result<Vec<E>, OpError> {
    use PointwiseKind::*;
    Ok(match kind {
        Add | Sub => {
            let alpha = a.b.scalar("alpha")?;
            if E::IS_INT && matches!(alpha, coil_graph::Scalar::Float(_)) {
                return fail(
                    "for integral input tensors, argument alpha must not be a floating point \
                     number",
                );
            }
            let alpha: E = scalar_as(alpha);
            match (kind, alpha == E::ONE) {
                (Add, true) => map2(sizes, x, y, |p, q| p.add(q)),
                (Add, false) => map2(sizes, x, y, |p, q| p.add(alpha.mul(q))),
                (_, true) => map2(sizes, x, y, |p, q| p.sub(q)),
                (_, false) => map2(sizes, x, y, |p, q| p.sub(alpha.mul(q))),
            }
        }
        Fmod | Remainder => {
            let zero = Cell::new(false);
            let v = map2(sizes, x, y, |p, q| {
                if E::IS_INT && q == E::ZERO {
                    zero.set(true);
                }
                if kind == Fmod {
                    p.fmod(q)
                } else {
                    p.remainder(q)
                }
            });
            if zero.get() {
                return fail("ZeroDivisionError: integer division by zero");
            }
            v
        }
        _ => {
            let mode = a.b.opt_str("rounding_mode");
            let zero = Cell::new(false);
            let check = |q: E| {
                if E::IS_INT && q == E::ZERO {
                    zero.set(true);
                }
            };
            let v = match mode {
                None => map2(sizes, x, y, |p, q| {
                    check(q);
                    p.div(q)
                }),
                Some("trunc") => map2(sizes, x, y, |p, q| {
                    check(q);
                    p.div_trunc(q)
                }),
                Some("floor") => map2(sizes, x, y, |p, q| {
                    check(q);
                    p.div_floor(q)
                }),
                Some(m) => {
                    return fail(format!(
                        "rounding_mode must be 'trunc', 'floor' or None, got '{m}'"
                    ));
                }
            };
            if zero.get() {
                return fail("ZeroDivisionError: integer division by zero");
            }
            v
        }
    })
}

/// Float `pow`, with ATen's shortcuts for common scalar exponents.
pub(crate) fn pow_float<E: Float>(
    x: Value<'_>,
    e: Value<'_>,
    sizes: &[usize],
) -> Result<Vec<E>, OpError> {
    let sx = src::<E>(x, sizes)?;
    if let (Value::Tensor(_), Value::Scalar(s)) = (x, e) {
        let one = E::ONE;
        let special = match s.to_f64() {
            2.0 => Some(map1(sizes, &sx, |p: E| p.mul(p))),
            3.0 => Some(map1(sizes, &sx, |p: E| p.mul(p).mul(p))),
            0.5 => Some(map1(sizes, &sx, |p: E| p.sqrt())),
            -0.5 => Some(map1(sizes, &sx, move |p: E| one.div(p.sqrt()))),
            -1.0 => Some(map1(sizes, &sx, move |p: E| one.div(p))),
            -2.0 => Some(map1(sizes, &sx, move |p: E| one.div(p.mul(p)))),
            _ => None,
        };
        if let Some(v) = special {
            return Ok(v);
        }
    }
    let se = src::<E>(e, sizes)?;
    Ok(map2(sizes, &sx, &se, |p, q| p.pow(q)))
}

/// Integer `pow` (bool and integer dtypes).
pub(crate) fn pow_int<E: Num>(
    x: Value<'_>,
    e: Value<'_>,
    sizes: &[usize],
) -> Result<Vec<E>, OpError> {
    if let Value::Scalar(s) = e
        && s.to_f64() < 0.0
    {
        return fail("Integers to negative integer powers are not allowed.");
    }
    let (sx, se) = (src::<E>(x, sizes)?, src::<E>(e, sizes)?);
    Ok(map2(sizes, &sx, &se, |p, q| p.pow(q)))
}

/// A float unary op over `s`; `None` for a kind that is not one.
fn unary_float<E: Float>(
    kind: PointwiseKind,
    tanh_gelu: bool,
    s: &Src<'_, E>,
    sizes: &[usize],
) -> Option<Vec<E>> {
    use PointwiseKind::*;
    let one = E::ONE;
    let half = E::from_const(0.5);
    Some(match kind {
        Silu => map1(sizes, s, |p: E| p.div(one.add(p.neg().exp()))),
        Gelu if tanh_gelu => {
            // ATen: kBeta = sqrt(2) * (2 / sqrt(pi)) * 0.5, kKappa = 0.044715.
            let beta =
                E::from_const(std::f64::consts::SQRT_2 * std::f64::consts::FRAC_2_SQRT_PI * 0.5);
            let kappa = E::from_const(0.044715);
            map1(sizes, s, move |p: E| {
                let cube = p.mul(p).mul(p);
                let inner = beta.mul(p.add(kappa.mul(cube)));
                half.mul(p).mul(one.add(inner.tanh()))
            })
        }
        Gelu => {
            let rsqrt2 = E::from_const(std::f64::consts::FRAC_1_SQRT_2);
            map1(sizes, s, move |p: E| {
                p.mul(half).mul(one.add(p.mul(rsqrt2).erf()))
            })
        }
        _ => return None,
    })
}

fn kind_name(kind: PointwiseKind) -> String {
    format!("{kind:?}").to_lowercase()
}

/// `t` broadcast to `sizes` (a view).
fn expand(t: &coil_graph::Tensor, sizes: &[usize]) -> Result<coil_graph::Tensor, OpError> {
    let strides = coil_graph::expand_strides(t.sizes(), t.strides(), sizes)?;
    Ok(t.view(sizes.to_vec(), strides, t.offset())?)
}
