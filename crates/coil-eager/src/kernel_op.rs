//! The kinds whose body is one kernel op ([`coil_graph::OpKind::kernel_op`]), computed by that
//! op's eager meaning: PyTorch's, in its opmath type (16-bit floats compute in f32 and round
//! once), with its shortcuts (`pow` by 2, 3, 0.5, ...) and refusals. A new kind that is one
//! existing kernel op needs nothing here; a new kernel op adds its arm (the matches list every
//! op).

use coil_graph::{DType, TensorMeta};
use coil_kernel::Op;

use crate::elem::{Float, Num, Src, finish, with_compute, with_float};
use crate::error::{OpError, fail};
use crate::interp::{Args, Value};
use crate::pointwise::{broadcast, common_dtype, pow_float, pow_int, src};
use crate::strided::{map1, map2};

/// Runs the kernel op `op` of a call over its operands (the schema's value operands, in
/// order); `out` is the node's recorded meta.
pub(crate) fn eval(op: Op, a: &Args<'_>, out: &TensorMeta) -> Result<coil_graph::Tensor, OpError> {
    let dtype = out.dtype;
    let values: Vec<Value<'_>> =
        a.b.schema()
            .value_operands()
            .into_iter()
            .map(|n| a.value(n))
            .collect::<Result<_, _>>()?;
    let sizes = broadcast(&values)?;
    match *values.as_slice() {
        [x] => {
            let Value::Tensor(t) = x else {
                return fail(format!("{op} takes a tensor"));
            };
            unary(op, t, dtype)
        }
        [x, y] => binary(op, x, y, dtype, sizes),
        _ => fail(format!("{op} takes {} operands", op.arity())),
    }
}

fn unary(op: Op, x: &coil_graph::Tensor, dtype: DType) -> Result<coil_graph::Tensor, OpError> {
    let sizes = x.sizes().to_vec();
    match op {
        Op::LogicalNot => {
            let v = map1(&sizes, &Src::<bool>::of(x)?, |p| !p);
            finish(v, dtype, sizes)
        }
        Op::BitwiseNot => {
            if dtype == DType::Bool {
                let v = map1(&sizes, &Src::<bool>::of(x)?, |p| !p);
                return finish(v, dtype, sizes);
            }
            if dtype.is_float() {
                return fail(format!("bitwise_not is not defined for {dtype}"));
            }
            let v = map1(&sizes, &Src::<i64>::of(x)?, |p| !p);
            finish(v, dtype, sizes)
        }
        Op::Neg | Op::Abs | Op::Relu => with_compute!(dtype, T => {
            let s = Src::<T>::of(x)?;
            let v = match op {
                Op::Neg => map1(&sizes, &s, |p: T| Num::neg(p)),
                Op::Abs => map1(&sizes, &s, |p: T| Num::abs(p)),
                _ => map1(&sizes, &s, |p: T| p.max_nan(T::ZERO)),
            };
            finish(v, dtype, sizes)
        }),
        Op::Floor | Op::Ceil | Op::Round | Op::Trunc => {
            if !dtype.is_float() {
                // The identity on integers, as PyTorch's.
                return with_compute!(dtype, T => {
                    let s = Src::<T>::of(x)?;
                    finish(map1(&sizes, &s, |p: T| p), dtype, sizes)
                });
            }
            with_float!(dtype, op.name(), T => {
                let s = Src::<T>::of(x)?;
                finish(map1(&sizes, &s, |p: T| p.integral(op)), dtype, sizes)
            })
        }
        Op::Exp
        | Op::Log
        | Op::Log1p
        | Op::Sqrt
        | Op::Rsqrt
        | Op::Sin
        | Op::Cos
        | Op::Tanh
        | Op::Erf
        | Op::Sigmoid
        | Op::Reciprocal => with_float!(dtype, op.name(), T => {
            let s = Src::<T>::of(x)?;
            finish(unary_float::<T>(op, &s, &sizes), dtype, sizes)
        }),
        coil_kernel::binary_ops!() | Op::Where => fail(format!("{op} takes two or three operands")),
    }
}

/// A float function of `s`.
fn unary_float<E: Float>(op: Op, s: &Src<'_, E>, sizes: &[usize]) -> Vec<E> {
    let one = E::ONE;
    match op {
        Op::Exp => map1(sizes, s, |p: E| p.exp()),
        Op::Log => map1(sizes, s, |p: E| p.ln()),
        Op::Log1p => map1(sizes, s, |p: E| p.ln_1p()),
        Op::Sqrt => map1(sizes, s, |p: E| p.sqrt()),
        Op::Rsqrt => map1(sizes, s, |p: E| one.div(p.sqrt())),
        Op::Sin => map1(sizes, s, |p: E| p.sin()),
        Op::Cos => map1(sizes, s, |p: E| p.cos()),
        Op::Tanh => map1(sizes, s, |p: E| p.tanh()),
        Op::Erf => map1(sizes, s, |p: E| p.erf()),
        Op::Reciprocal => map1(sizes, s, |p: E| one.div(p)),
        Op::Sigmoid => map1(sizes, s, |p: E| one.div(one.add(p.neg().exp()))),
        // Not float functions (the caller sends only the ones above): the value itself.
        coil_kernel::unary_ops!() | coil_kernel::binary_ops!() | Op::Where => {
            map1(sizes, s, |p: E| p)
        }
    }
}

fn binary(
    op: Op,
    x: Value<'_>,
    y: Value<'_>,
    dtype: DType,
    sizes: Vec<usize>,
) -> Result<coil_graph::Tensor, OpError> {
    match op {
        Op::Mul | Op::Maximum | Op::Minimum => with_compute!(dtype, T => {
            let (sx, sy) = (src::<T>(x, &sizes)?, src::<T>(y, &sizes)?);
            let v = match op {
                Op::Mul => map2(&sizes, &sx, &sy, |p: T, q| p.mul(q)),
                Op::Maximum => map2(&sizes, &sx, &sy, |p: T, q| p.max_nan(q)),
                _ => map2(&sizes, &sx, &sy, |p: T, q| p.min_nan(q)),
            };
            finish(v, dtype, sizes)
        }),
        Op::Pow => {
            if dtype.is_float() {
                with_float!(dtype, "pow", T => {
                    let v = pow_float::<T>(x, y, &sizes)?;
                    finish(v, dtype, sizes)
                })
            } else {
                with_compute!(dtype, T => {
                    let v = pow_int::<T>(x, y, &sizes)?;
                    finish(v, dtype, sizes)
                })
            }
        }
        Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
            let common = common_dtype(&[x, y]);
            // ATen compares in the 16-bit type itself: a Python number is rounded to it.
            let as_compared = |v| match v {
                Value::Scalar(s) => Value::Scalar(s.compared_in(common)),
                t => t,
            };
            let (x, y) = (as_compared(x), as_compared(y));
            let v = with_compute!(common, T => {
                let (sx, sy) = (src::<T>(x, &sizes)?, src::<T>(y, &sizes)?);
                match op {
                    Op::Eq => map2(&sizes, &sx, &sy, |p: T, q| p == q),
                    Op::Ne => map2(&sizes, &sx, &sy, |p: T, q| p != q),
                    Op::Lt => map2(&sizes, &sx, &sy, |p: T, q| p < q),
                    Op::Le => map2(&sizes, &sx, &sy, |p: T, q| p <= q),
                    Op::Gt => map2(&sizes, &sx, &sy, |p: T, q| p > q),
                    _ => map2(&sizes, &sx, &sy, |p: T, q| p >= q),
                }
            });
            finish(v, dtype, sizes)
        }
        Op::LogicalAnd | Op::LogicalOr => {
            let (sx, sy) = (src::<bool>(x, &sizes)?, src::<bool>(y, &sizes)?);
            let v = if op == Op::LogicalAnd {
                map2(&sizes, &sx, &sy, |p, q| p && q)
            } else {
                map2(&sizes, &sx, &sy, |p, q| p || q)
            };
            finish(v, dtype, sizes)
        }
        Op::BitAnd | Op::BitOr | Op::BitXor if dtype == DType::Bool => {
            let (sx, sy) = (src::<bool>(x, &sizes)?, src::<bool>(y, &sizes)?);
            let v = match op {
                Op::BitAnd => map2(&sizes, &sx, &sy, |p, q| p & q),
                Op::BitOr => map2(&sizes, &sx, &sy, |p, q| p | q),
                _ => map2(&sizes, &sx, &sy, |p, q| p ^ q),
            };
            finish(v, dtype, sizes)
        }
        Op::BitAnd | Op::BitOr | Op::BitXor | Op::Shl | Op::Shr => {
            if dtype.is_float() {
                return fail(format!("{op} is not defined for {dtype}"));
            }
            // Integers (bools as 0/1), wrapped to the dtype as they are stored.
            let (sx, sy) = (src::<i64>(x, &sizes)?, src::<i64>(y, &sizes)?);
            let v = match op {
                Op::BitAnd => map2(&sizes, &sx, &sy, |p, q| p & q),
                Op::BitOr => map2(&sizes, &sx, &sy, |p, q| p | q),
                Op::BitXor => map2(&sizes, &sx, &sy, |p, q| p ^ q),
                _ => map2(&sizes, &sx, &sy, |p, q| {
                    coil_kernel::scalar::shift(op == Op::Shl, p, q, dtype)
                }),
            };
            finish(v, dtype, sizes)
        }
        Op::Add | Op::Sub | Op::TrueDiv | Op::FloorDiv | Op::TruncDiv | Op::Fmod => fail(format!(
            "{op} is no op kind's whole body (add, sub and div take their own arguments)"
        )),
        coil_kernel::unary_ops!() | Op::Where => fail(format!("{op} takes one or three operands")),
    }
}
