//! Float `fmod` on the CPU ([`coil_codegen::Op::Fmod`], C's exact one). LLVM's `frem` calls
//! libm once per lane, about 20 ns each; instead, where every lane's quotient is below the
//! significand's range (the common case), `|x| - q |y|` with `q = trunc(|x| / |y|)` is exact:
//! in f64 for f32 (`q |y|` has at most 48 bits), with one fused multiply-add for f64; a
//! quotient the division rounded up to the next integer leaves a negative remainder, which
//! one `|y|` added back fixes; the result takes `x`'s sign. A vector with any other lane
//! (a larger quotient, a zero or non-finite operand, NaN) takes `frem` on a cold branch.

use inkwell::FloatPredicate as F;

use super::ir::{Class, Ir, V, err};
use crate::CpuError;

impl<'ctx> Ir<'_, 'ctx> {
    /// `fmod(a, b)` of two float values of class `c` (f32 or f64), exact.
    pub(crate) fn ffmod(&self, a: V<'ctx>, b: V<'ctx>, c: Class) -> Result<V<'ctx>, CpuError> {
        let (a, b) = (
            self.splat(a, Self::width(b))?,
            self.splat(b, Self::width(a))?,
        );
        let wide = c == Class::F64;
        let f64t = self.cx.f64_type();
        let (x, y) = if wide {
            (a, b)
        } else {
            (self.fpcast(a, f64t)?, self.fpcast(b, f64t)?)
        };
        let ax = self.fintr("llvm.fabs", &[x])?;
        let ay = self.fintr("llvm.fabs", &[y])?;
        let q = self.fintr("llvm.trunc", &[self.fdiv(ax, ay)?])?;
        let r = if wide {
            let nq = self.fneg(q)?;
            self.fintr("llvm.fma", &[nq, ay, ax])?
        } else {
            self.fsub(ax, self.fmul(q, ay)?)?
        };
        let zero = self.cf(Class::F64, 0.0);
        let below = self.fcmp(F::OLT, r, zero)?;
        let r = self.select(below, self.fadd(r, ay)?, r)?;
        let r = self.fintr("llvm.copysign", &[r, x])?;
        let fast = if wide {
            r
        } else {
            self.fpcast(r, self.cx.f32_type())?
        };
        // Exact where q is below 2^24 (f32) or 2^53 (f64) and y finite (q |y| would be NaN
        // for an infinite y); false for NaN, an infinite x (q = inf), a zero y (inf or NaN).
        let limit = self.cf(
            Class::F64,
            if wide { 9007199254740992.0 } else { 16777216.0 },
        );
        let inf = self.cf(Class::F64, f64::INFINITY);
        let ok = self.and(self.fcmp(F::OLT, q, limit)?, self.fcmp(F::OLT, ay, inf)?)?;
        let all = if Self::width(ok) > 1 {
            self.intrinsic("llvm.vector.reduce.and", &[ok.get_type()], &[ok])?
        } else {
            ok
        };
        let here = self
            .b
            .get_insert_block()
            .ok_or_else(|| err("fmod outside a block"))?;
        let f = here
            .get_parent()
            .ok_or_else(|| err("fmod outside a function"))?;
        let slow = self.cx.append_basic_block(f, "fmod.slow");
        let done = self.cx.append_basic_block(f, "fmod.done");
        self.b
            .build_conditional_branch(all.into_int_value(), done, slow)?;
        self.b.position_at_end(slow);
        let exact = self.frem(a, b)?;
        let slow_end = self
            .b
            .get_insert_block()
            .ok_or_else(|| err("fmod outside a block"))?;
        self.b.build_unconditional_branch(done)?;
        self.b.position_at_end(done);
        let phi = self.b.build_phi(fast.get_type(), "fmod")?;
        phi.add_incoming(&[(&fast, here), (&exact, slow_end)]);
        Ok(phi.as_basic_value())
    }
}
