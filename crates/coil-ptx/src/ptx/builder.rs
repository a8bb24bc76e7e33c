//! [`KernelBuilder`]: emits one kernel instruction by instruction, checking operand classes,
//! and renders it on [`KernelBuilder::finish`].

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use super::MAX_STATIC_SHARED_BYTES;
use super::kernel::{ConstTable, PtxKernel};
use super::operand::*;
use crate::PtxError;
use crate::PtxTarget;

#[derive(Clone, Debug)]
struct SharedDecl {
    name: String,
    align: u32,
    bytes: u32,
}

#[derive(Clone, Debug)]
enum Stmt {
    Inst {
        guard: Option<(Reg, bool)>,
        opcode: String,
        args: Vec<Operand>,
    },
    Label(Label),
    Comment(String),
}

/// Builds one kernel (`.entry`) instruction by instruction. Every emitting method returns the
/// fresh register it defined; [`KernelBuilder::assign`] writes an existing one (loop counters,
/// values merged after a branch).
#[derive(Debug)]
pub struct KernelBuilder {
    name: String,
    target: PtxTarget,
    params: Vec<Param>,
    stmts: Vec<Stmt>,
    reg_counts: [u32; 6],
    labels: Vec<(Label, bool)>,
    shared: Vec<SharedDecl>,
    tables: Vec<ConstTable>,
    max_threads: Option<u32>,
    min_blocks_per_sm: Option<u32>,
    guard: Option<(Reg, bool)>,
    error: Option<String>,
    /// Pure integer instructions emitted inside [`KernelBuilder::with_cse`] since the last
    /// label, by their text: asked again with the same operands, the builder hands back the
    /// register that holds the result (index arithmetic repeats across a kernel's loads).
    /// Cleared where control flow joins (a label) and wherever a register is overwritten.
    cse: HashMap<String, Reg>,
    /// Registers some instruction has written.
    written: HashSet<Reg>,
    /// Inside [`KernelBuilder::with_cse`].
    cse_on: bool,
}

/// `k` when `ty` is an unsigned 32- or 64-bit integer and `b` the immediate `2^k`.
fn unsigned_power_of_two(ty: Ty, b: &Operand) -> Option<u32> {
    if !matches!(ty, Ty::U32 | Ty::U64) {
        return None;
    }
    let v = match b {
        Operand::Imm(Imm::Int(v)) if *v > 0 => *v as u64,
        Operand::Imm(Imm::Uint(v)) => *v,
        _ => return None,
    };
    v.is_power_of_two().then(|| v.trailing_zeros())
}

/// Whether an integer instruction only computes its destination from its operands.
fn pure_int_opcode(opcode: &str) -> bool {
    const PURE: &[&str] = &[
        "add.", "sub.", "mul.", "mad.", "div.", "rem.", "min.", "max.", "neg.", "abs.", "mov.",
        "and.", "or.", "xor.", "not.", "shl.", "shr.",
    ];
    PURE.iter().any(|p| opcode.starts_with(p))
}

/// The operand-check rule for an instruction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// The register's class must be the type's class (bit types: any class of the same size).
    Exact,
    /// Also allow an integer type narrower than a 32-bit register (`ld.u8 %r1`, `cvt.u32.u8`).
    Widen,
}

impl KernelBuilder {
    /// Starts a kernel called `name` for `target`.
    pub fn new(name: impl Into<String>, target: PtxTarget) -> KernelBuilder {
        KernelBuilder {
            name: name.into(),
            target,
            params: Vec::new(),
            stmts: Vec::new(),
            reg_counts: [0; 6],
            labels: Vec::new(),
            shared: Vec::new(),
            tables: Vec::new(),
            max_threads: None,
            min_blocks_per_sm: None,
            guard: None,
            error: None,
            cse: HashMap::new(),
            written: HashSet::new(),
            cse_on: false,
        }
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target being rendered for.
    pub fn target(&self) -> PtxTarget {
        self.target
    }

    /// Declares that the kernel is launched with at most `threads` threads per block
    /// (`.maxntid`), which lets ptxas budget registers.
    pub fn max_threads_per_block(&mut self, threads: u32) {
        self.max_threads = Some(threads);
    }

    /// Asks ptxas to fit at least `blocks` blocks per SM (`.minnctapersm`; needs
    /// [`KernelBuilder::max_threads_per_block`]).
    pub fn min_blocks_per_sm(&mut self, blocks: u32) {
        self.min_blocks_per_sm = Some(blocks);
    }

    // ---- errors --------------------------------------------------------------------------

    fn fail(&mut self, reason: String) {
        if self.error.is_none() {
            let at = self.stmts.len();
            self.error = Some(format!("instruction {at}: {reason}"));
        }
    }

    /// Records a generator error (the first one wins); [`KernelBuilder::finish`] returns it.
    /// For code generators that find, mid-kernel, something they cannot render.
    pub fn report_error(&mut self, reason: impl Into<String>) {
        self.fail(reason.into());
    }

    fn fits(ty: Ty, class: RegClass, fit: Fit) -> bool {
        if ty.class() == class {
            return true;
        }
        if ty.is_bits() && ty.bits() == class.bits() && class != RegClass::Pred {
            return true;
        }
        fit == Fit::Widen
            && ty.is_int()
            && ty.bits() < 32
            && matches!(class, RegClass::B32 | RegClass::B64)
    }

    fn check(&mut self, opcode: &str, ty: Ty, operand: &Operand, fit: Fit) {
        let ok = match operand {
            Operand::Reg(r) => Self::fits(ty, r.class, fit),
            Operand::Imm(Imm::F32(_)) => ty == Ty::F32 || (ty.is_bits() && ty.bits() == 32),
            Operand::Imm(Imm::F64(_)) => ty == Ty::F64 || (ty.is_bits() && ty.bits() == 64),
            Operand::Imm(Imm::Int(_) | Imm::Uint(_)) => ty.is_int(),
            Operand::Sreg(_) => ty.class() == RegClass::B32,
            Operand::Vec(regs) => regs.iter().all(|r| Self::fits(ty, r.class, fit)),
            Operand::Addr(_) | Operand::Label(_) | Operand::Symbol(_) => true,
        };
        if !ok {
            self.fail(format!(
                "{opcode}: operand {operand} does not fit type .{ty}"
            ));
        }
    }

    fn check_class(&mut self, opcode: &str, operand: &Operand, class: RegClass) {
        let ok = match operand {
            Operand::Reg(r) => r.class == class,
            Operand::Imm(Imm::Int(_) | Imm::Uint(_)) => {
                matches!(class, RegClass::B32 | RegClass::B64 | RegClass::B16)
            }
            _ => false,
        };
        if !ok {
            self.fail(format!(
                "{opcode}: operand {operand} must be a .{} value",
                class.decl_type()
            ));
        }
    }

    // ---- raw emission ---------------------------------------------------------------------

    /// A fresh register of `class`.
    pub fn reg(&mut self, class: RegClass) -> Reg {
        let slot = class.slot();
        let index = self.reg_counts[slot];
        self.reg_counts[slot] += 1;
        Reg { class, index }
    }

    /// Runs `f` with common subexpressions shared: an unguarded pure integer instruction
    /// (`add`, `mul`, `div`, `rem`, shifts, ...) that an earlier one inside `with_cse` already
    /// computed, with nothing between them joining control flow or overwriting a register,
    /// gives that one's register instead of a new instruction. For values never assigned to
    /// afterwards (index arithmetic): a register handed out twice must not be mutated.
    pub fn with_cse<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let outer = std::mem::replace(&mut self.cse_on, true);
        let r = f(self);
        self.cse_on = outer;
        r
    }

    /// Emits `opcode args;` as given, unchecked: the escape hatch for instructions this builder
    /// has no method for. The current guard (see [`KernelBuilder::guarded`]) applies. It may
    /// overwrite any register, so no earlier result is reused after it.
    pub fn emit(&mut self, opcode: impl Into<String>, args: Vec<Operand>) {
        self.cse.clear();
        self.push(opcode, args);
    }

    fn push(&mut self, opcode: impl Into<String>, args: Vec<Operand>) {
        // The destination (an instruction's first operand, when it is a register) written a
        // second time: results computed from its old value are no longer what they say.
        let dests: &[Reg] = match args.first() {
            Some(Operand::Reg(r)) => std::slice::from_ref(r),
            Some(Operand::Vec(rs)) => rs,
            _ => &[],
        };
        let mut overwritten = false;
        for r in dests {
            overwritten |= !self.written.insert(*r);
        }
        if overwritten {
            self.cse.clear();
        }
        self.stmts.push(Stmt::Inst {
            guard: self.guard,
            opcode: opcode.into(),
            args,
        });
    }

    /// Emits a `// text` comment line.
    pub fn comment(&mut self, text: impl Into<String>) {
        self.stmts.push(Stmt::Comment(text.into()));
    }

    fn def(&mut self, opcode: String, class: RegClass, srcs: Vec<Operand>) -> Reg {
        let d = self.reg(class);
        let mut args = Vec::with_capacity(srcs.len() + 1);
        args.push(Operand::Reg(d));
        args.extend(srcs);
        self.push(opcode, args);
        d
    }

    fn typed(&mut self, opcode: String, ty: Ty, srcs: Vec<Operand>) -> Reg {
        for s in &srcs {
            self.check(&opcode, ty, s, Fit::Exact);
        }
        self.def_pure(opcode, ty, srcs)
    }

    /// [`KernelBuilder::def`] of a `ty` result, computed once per straight-line stretch when it
    /// is unguarded pure integer arithmetic.
    fn def_pure(&mut self, opcode: String, ty: Ty, srcs: Vec<Operand>) -> Reg {
        if self.cse_on && self.guard.is_none() && ty.is_int() && pure_int_opcode(&opcode) {
            let key = format!("{opcode} {srcs:?}");
            if let Some(&r) = self.cse.get(&key) {
                return r;
            }
            let r = self.def(opcode, ty.class(), srcs);
            self.cse.insert(key, r);
            return r;
        }
        self.def(opcode, ty.class(), srcs)
    }

    // ---- moves ----------------------------------------------------------------------------

    /// `mov.ty d, a`: a fresh register holding `a` (a register, an immediate, or a symbol's
    /// address).
    pub fn mov(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("mov.{ty}"), ty, vec![a.into()])
    }

    /// The value in a register: `v` itself when it is one, else a `mov` of the immediate.
    pub fn materialize(&mut self, ty: Ty, v: Val) -> Reg {
        match v {
            Val::Reg(r) => r,
            Val::Imm(_) => self.mov(ty, v),
        }
    }

    /// `mov.ty dst, a`: overwrites an existing register (PTX registers are not SSA).
    pub fn assign(&mut self, ty: Ty, dst: Reg, a: impl Into<Operand>) {
        let op = format!("mov.{ty}");
        let a = a.into();
        self.check(&op, ty, &Operand::Reg(dst), Fit::Exact);
        self.check(&op, ty, &a, Fit::Exact);
        self.cse.clear();
        self.push(op, vec![Operand::Reg(dst), a]);
    }

    /// Reinterprets the bits of `a` as a `to` value (`mov.b32 %r1, %f1`).
    pub fn bitcast(&mut self, to: Ty, a: Reg) -> Reg {
        if to.bits() != a.class.bits() || to == Ty::Pred {
            self.fail(format!("bitcast of {a} to .{to}: sizes differ"));
        }
        let op = format!("mov.b{}", to.bits());
        self.def(op, to.class(), vec![a.into()])
    }

    /// Reads a special register into a fresh `.u32`.
    pub fn sreg(&mut self, s: Sreg) -> Reg {
        self.def("mov.u32".into(), RegClass::B32, vec![Operand::Sreg(s)])
    }

    /// The address of a variable (shared array or const table) as a `.u64`.
    pub fn address_of(&mut self, s: &Symbol) -> Reg {
        self.def("mov.u64".into(), RegClass::B64, vec![s.into()])
    }

    /// The address of a shared array as a `.u32` shared-window address (cheaper arithmetic;
    /// valid as `[%r]` in `ld.shared`/`st.shared`).
    pub fn shared_address32(&mut self, s: &Symbol) -> Reg {
        self.def("mov.u32".into(), RegClass::B32, vec![s.into()])
    }

    /// The low 32 bits of a 64-bit register (`cvt.u32.u64`).
    pub fn low32(&mut self, a: Reg) -> Reg {
        self.cvt(Ty::U32, Ty::U64, None, a)
    }

    // ---- arithmetic ---------------------------------------------------------------------

    /// `add`: `add.rn.f32` for floats (never contracted into an fma), `add.s64` etc. for
    /// integers.
    pub fn add(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("add.rn.{ty}")
        } else {
            format!("add.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `sub` (`sub.rn.f32` for floats).
    pub fn sub(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("sub.rn.{ty}")
        } else {
            format!("sub.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `mul`: `mul.rn.f32` for floats, `mul.lo` (the low half) for integers.
    pub fn mul(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = if ty.is_float() {
            format!("mul.rn.{ty}")
        } else {
            format!("mul.lo.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into()])
    }

    /// `mul.hi`: the high half of an integer product.
    pub fn mul_hi(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if !ty.is_int() {
            self.fail(format!("mul.hi needs an integer type, not .{ty}"));
        }
        self.typed(format!("mul.hi.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `mul.wide.u32`/`.s32`: the full 64-bit product of two 32-bit integers.
    pub fn mul_wide(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = format!("mul.wide.{ty}");
        let (a, b) = (a.into(), b.into());
        if !matches!(ty, Ty::U32 | Ty::S32 | Ty::U16 | Ty::S16) {
            self.fail(format!("{op}: needs a 16- or 32-bit integer type"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        let class = if ty.bits() == 32 {
            RegClass::B64
        } else {
            RegClass::B32
        };
        self.def(op, class, vec![a, b])
    }

    /// `mad.wide.u32 d, a, b, c`: `a * b + c` with 32-bit `a`, `b` and a 64-bit `c` (address
    /// arithmetic: `base + index * size`).
    pub fn mad_wide(
        &mut self,
        ty: Ty,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Reg {
        let op = format!("mad.wide.{ty}");
        let (a, b, c) = (a.into(), b.into(), c.into());
        if !matches!(ty, Ty::U32 | Ty::S32) {
            self.fail(format!("{op}: needs .u32 or .s32"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.check_class(&op, &c, RegClass::B64);
        self.def(op, RegClass::B64, vec![a, b, c])
    }

    /// `a * b + c`: `fma.rn` (one rounding) for floats, `mad.lo` for integers.
    pub fn fma(
        &mut self,
        ty: Ty,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Reg {
        let op = if ty.is_float() {
            format!("fma.rn.{ty}")
        } else {
            format!("mad.lo.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b.into(), c.into()])
    }

    /// `div`: `div.rn.f32` (IEEE, correctly rounded) for floats, integer division otherwise
    /// (a shift for an unsigned one by a power of two).
    pub fn div(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let b = b.into();
        if let Some(k) = unsigned_power_of_two(ty, &b) {
            return self.shr(ty, a, Imm::Uint(u64::from(k)));
        }
        let op = if ty.is_float() {
            format!("div.rn.{ty}")
        } else {
            format!("div.{ty}")
        };
        self.typed(op, ty, vec![a.into(), b])
    }

    /// `rem`: integer remainder (a mask for an unsigned one by a power of two).
    pub fn rem(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if !ty.is_int() {
            self.fail(format!("rem needs an integer type, not .{ty}"));
        }
        let b = b.into();
        if let Some(k) = unsigned_power_of_two(ty, &b) {
            let bits = if ty.bits() == 64 { Ty::B64 } else { Ty::B32 };
            return self.and(bits, a, Imm::Uint((1u64 << k) - 1));
        }
        self.typed(format!("rem.{ty}"), ty, vec![a.into(), b])
    }

    /// `neg`.
    pub fn neg(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("neg.{ty}"), ty, vec![a.into()])
    }

    /// `abs`.
    pub fn abs(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("abs.{ty}"), ty, vec![a.into()])
    }

    /// `min`: for floats, the non-NaN operand when one is NaN (C's `fminf`).
    pub fn min(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.typed(format!("min.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `max`: for floats, the non-NaN operand when one is NaN (C's `fmaxf`).
    pub fn max(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.typed(format!("max.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `min.NaN.f32`: NaN if either operand is NaN (PyTorch's `minimum`/`amin`; sm_80+).
    pub fn min_nan(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if ty != Ty::F32 {
            self.fail(format!("min.NaN is .f32 only, not .{ty}"));
        }
        self.typed(format!("min.NaN.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `max.NaN.f32`: NaN if either operand is NaN (PyTorch's `maximum`/`amax`; sm_80+).
    pub fn max_nan(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        if ty != Ty::F32 {
            self.fail(format!("max.NaN is .f32 only, not .{ty}"));
        }
        self.typed(format!("max.NaN.{ty}"), ty, vec![a.into(), b.into()])
    }

    /// `and` (bit types and `.pred`).
    pub fn and(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("and", ty, vec![a.into(), b.into()])
    }

    /// `or` (bit types and `.pred`).
    pub fn or(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("or", ty, vec![a.into(), b.into()])
    }

    /// `xor` (bit types and `.pred`).
    pub fn xor(&mut self, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        self.logic("xor", ty, vec![a.into(), b.into()])
    }

    /// `not` (bit types and `.pred`).
    pub fn not(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.logic("not", ty, vec![a.into()])
    }

    fn logic(&mut self, name: &str, ty: Ty, srcs: Vec<Operand>) -> Reg {
        if !(ty.is_bits() || ty == Ty::Pred) {
            self.fail(format!("{name} needs a .bN or .pred type, not .{ty}"));
        }
        self.typed(format!("{name}.{ty}"), ty, srcs)
    }

    /// `shl.bN d, a, amount` (`amount` is a `.u32`).
    pub fn shl(&mut self, ty: Ty, a: impl Into<Operand>, amount: impl Into<Operand>) -> Reg {
        self.shift("shl", ty, a.into(), amount.into())
    }

    /// `shr`: arithmetic for `.sN`, logical for `.uN`/`.bN`.
    pub fn shr(&mut self, ty: Ty, a: impl Into<Operand>, amount: impl Into<Operand>) -> Reg {
        self.shift("shr", ty, a.into(), amount.into())
    }

    fn shift(&mut self, name: &str, ty: Ty, a: Operand, amount: Operand) -> Reg {
        let op = format!("{name}.{ty}");
        if !ty.is_int() || (name == "shl" && !ty.is_bits()) {
            self.fail(format!("{op}: shl needs a .bN type, shr an integer type"));
        }
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, Ty::U32, &amount, Fit::Exact);
        self.def_pure(op, ty, vec![a, amount])
    }

    /// `sqrt.rn`: IEEE square root, correctly rounded.
    pub fn sqrt(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("sqrt.rn.{ty}"), ty, vec![a.into()])
    }

    /// `rcp.rn`: IEEE reciprocal, correctly rounded.
    pub fn rcp(&mut self, ty: Ty, a: impl Into<Operand>) -> Reg {
        self.typed(format!("rcp.rn.{ty}"), ty, vec![a.into()])
    }

    /// `copysign d, sign, magnitude`: `magnitude` with the sign of `sign` (PTX's operand order).
    pub fn copysign(
        &mut self,
        ty: Ty,
        sign: impl Into<Operand>,
        magnitude: impl Into<Operand>,
    ) -> Reg {
        self.typed(
            format!("copysign.{ty}"),
            ty,
            vec![sign.into(), magnitude.into()],
        )
    }

    /// `ex2.approx.ftz.f32`: 2^a, about 2 ulp, subnormal results flushed to zero.
    pub fn ex2_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("ex2.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `lg2.approx.ftz.f32`: log2(a), about 2^-22 absolute error.
    pub fn lg2_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("lg2.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `rsqrt.approx.ftz.f32`: 1/sqrt(a), about 2 ulp.
    pub fn rsqrt_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("rsqrt.approx.ftz.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `tanh.approx.f32` (sm_75+): about 2^-11 relative error; see `math::tanh` for an accurate
    /// one.
    pub fn tanh_approx(&mut self, a: impl Into<Operand>) -> Reg {
        self.typed("tanh.approx.f32".into(), Ty::F32, vec![a.into()])
    }

    /// `cvt{.rnd}.to.from`: converts between types. Float-to-integer and float narrowing need a
    /// rounding mode; `cvt.rni.f32.f32` rounds a float to an integral float.
    pub fn cvt(&mut self, to: Ty, from: Ty, round: Option<Round>, a: impl Into<Operand>) -> Reg {
        let rnd = round.map(|r| format!(".{}", r.name())).unwrap_or_default();
        let op = format!("cvt{rnd}.{to}.{from}");
        let a = a.into();
        self.check(&op, from, &a, Fit::Widen);
        let class = if to.bits() < 32 && to.is_int() {
            RegClass::B32
        } else {
            to.class()
        };
        self.def(op, class, vec![a])
    }

    /// `setp.cmp.ty p, a, b`.
    pub fn setp(&mut self, cmp: Cmp, ty: Ty, a: impl Into<Operand>, b: impl Into<Operand>) -> Reg {
        let op = format!("setp.{}.{ty}", cmp.name());
        if cmp.float_only() && !ty.is_float() {
            self.fail(format!("{op}: unordered comparisons are for floats"));
        }
        let (a, b) = (a.into(), b.into());
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.def(op, RegClass::Pred, vec![a, b])
    }

    /// `selp.ty d, a, b, p`: `p ? a : b`.
    pub fn selp(
        &mut self,
        ty: Ty,
        if_true: impl Into<Operand>,
        if_false: impl Into<Operand>,
        p: Reg,
    ) -> Reg {
        let op = format!("selp.{ty}");
        let (a, b) = (if_true.into(), if_false.into());
        self.check(&op, ty, &a, Fit::Exact);
        self.check(&op, ty, &b, Fit::Exact);
        self.check_class(&op, &Operand::Reg(p), RegClass::Pred);
        self.def(op, ty.class(), vec![a, b, Operand::Reg(p)])
    }

    /// `testp.class.ty p, a`.
    pub fn testp(&mut self, test: TestP, ty: Ty, a: impl Into<Operand>) -> Reg {
        let op = format!("testp.{}.{ty}", test.name());
        let a = a.into();
        self.check(&op, ty, &a, Fit::Exact);
        self.def(op, RegClass::Pred, vec![a])
    }

    // ---- parameters and memory ----------------------------------------------------------

    /// Declares a kernel parameter; read it with [`KernelBuilder::load_param`].
    pub fn param(&mut self, name: impl Into<String>, ty: ParamTy) -> Param {
        let name = name.into();
        if !is_identifier(&name) {
            self.fail(format!("parameter name '{name}' is not a PTX identifier"));
        }
        if self.params.iter().any(|p| p.name == name) {
            self.fail(format!("parameter '{name}' declared twice"));
        }
        let p = Param { name, ty };
        self.params.push(p.clone());
        p
    }

    /// `ld.param` of a declared parameter.
    pub fn load_param(&mut self, p: Param) -> Reg {
        let ty = p.ty.ty();
        self.def(
            format!("ld.param.{ty}"),
            ty.class(),
            vec![Operand::Addr(Addr::symbol(&Symbol(p.name)))],
        )
    }

    /// Declares a global-pointer parameter aligned to `align` bytes, loads it and converts it to
    /// a global address (`cvta.to.global.u64`): the register to index from.
    pub fn ptr_param(&mut self, name: impl Into<String>, align: u32) -> Reg {
        let p = self.param(name, ParamTy::Ptr { align });
        let generic = self.load_param(p);
        self.def(
            "cvta.to.global.u64".into(),
            RegClass::B64,
            vec![generic.into()],
        )
    }

    /// Declares a shared array of `bytes` bytes, `align`-aligned; the name is made unique.
    pub fn shared_array(&mut self, hint: &str, align: u32, bytes: u32) -> Symbol {
        let name = format!("{}_{}", sanitize(hint), self.shared.len());
        self.shared.push(SharedDecl {
            name: name.clone(),
            align,
            bytes,
        });
        Symbol(name)
    }

    /// Declares (once per name) a module-scope constant table of `.b32` or `.b64` values.
    /// Kernels of one module that declare the same table share it.
    pub fn const_table(&mut self, name: &str, ty: Ty, values: &[u64]) -> Symbol {
        if !matches!(ty, Ty::B32 | Ty::B64) {
            self.fail(format!("const table {name}: type must be .b32 or .b64"));
        }
        if !self.tables.iter().any(|t| t.name == name) {
            self.tables.push(ConstTable {
                name: name.to_string(),
                ty,
                values: values.to_vec(),
            });
        }
        Symbol(name.to_string())
    }

    fn mem_op(space: Space, cache: Cache, store: bool, width: u32, ty: Ty) -> String {
        let mut op = format!("{}.{}", if store { "st" } else { "ld" }, space.name());
        if let Some(c) = cache.op {
            op.push('.');
            op.push_str(c.name());
        }
        if cache.non_coherent {
            op.push_str(".nc");
        }
        if width > 1 {
            let _ = write!(op, ".v{width}");
        }
        let _ = write!(op, ".{ty}");
        op
    }

    fn check_cache(&mut self, space: Space, cache: Cache, store: bool) {
        if cache.non_coherent && (store || space != Space::Global) {
            self.fail("the .nc hint is for global loads only".into());
        }
        if let Some(c) = cache.op {
            let ok = if store {
                matches!(c, CacheOp::Wb | CacheOp::Cg | CacheOp::Cs | CacheOp::Wt)
            } else {
                matches!(
                    c,
                    CacheOp::Ca | CacheOp::Cg | CacheOp::Cs | CacheOp::Lu | CacheOp::Cv
                )
            };
            let nc_compatible = matches!(c, CacheOp::Ca | CacheOp::Cg | CacheOp::Cs);
            let ok = ok && (nc_compatible || !cache.non_coherent);
            if !ok {
                self.fail(format!(
                    "cache operator .{} is not valid on a {}",
                    c.name(),
                    if store { "store" } else { "load" }
                ));
            }
        }
    }

    /// A scalar load. Integer types narrower than 32 bits load into a `.b32` register.
    pub fn ld(&mut self, space: Space, ty: Ty, addr: Addr, cache: Cache) -> Reg {
        self.check_cache(space, cache, false);
        let op = Self::mem_op(space, cache, false, 1, ty);
        let class = if ty.is_int() && ty.bits() < 32 {
            RegClass::B32
        } else {
            ty.class()
        };
        self.def(op, class, vec![Operand::Addr(addr)])
    }

    /// A vector load of `width` (2 or 4) elements: `ld.global.nc.v4.f32 {..}, [a]`. The address
    /// must be aligned to the vector's size.
    pub fn ld_vec(
        &mut self,
        space: Space,
        ty: Ty,
        addr: Addr,
        width: u32,
        cache: Cache,
    ) -> Vec<Reg> {
        self.check_cache(space, cache, false);
        if !matches!(width, 2 | 4) || ty.bits() * width > 128 {
            self.fail(format!(
                "ld.v{width}.{ty}: vectors are 2 or 4 wide, at most 128 bits"
            ));
        }
        let op = Self::mem_op(space, cache, false, width, ty);
        let regs: Vec<Reg> = (0..width).map(|_| self.reg(ty.class())).collect();
        self.push(op, vec![Operand::Vec(regs.clone()), Operand::Addr(addr)]);
        regs
    }

    /// A scalar store.
    pub fn st(
        &mut self,
        space: Space,
        ty: Ty,
        addr: Addr,
        value: impl Into<Operand>,
        cache: Cache,
    ) {
        self.check_cache(space, cache, true);
        let op = Self::mem_op(space, cache, true, 1, ty);
        let value = value.into();
        self.check(&op, ty, &value, Fit::Widen);
        self.push(op, vec![Operand::Addr(addr), value]);
    }

    /// A vector store of 2 or 4 registers: `st.global.v4.f32 [a], {..}`.
    pub fn st_vec(&mut self, space: Space, ty: Ty, addr: Addr, values: &[Reg], cache: Cache) {
        self.check_cache(space, cache, true);
        let width = values.len() as u32;
        if !matches!(width, 2 | 4) || ty.bits() * width > 128 {
            self.fail(format!(
                "st.v{width}.{ty}: vectors are 2 or 4 wide, at most 128 bits"
            ));
        }
        let op = Self::mem_op(space, cache, true, width, ty);
        let v = Operand::Vec(values.to_vec());
        self.check(&op, ty, &v, Fit::Exact);
        self.push(op, vec![Operand::Addr(addr), v]);
    }

    /// `atom.space.op.ty d, [a], b`: the old value.
    pub fn atom(
        &mut self,
        space: Space,
        op: AtomOp,
        ty: Ty,
        addr: Addr,
        value: impl Into<Operand>,
    ) -> Reg {
        let opcode = format!("atom.{}.{}.{ty}", space.name(), op.name());
        let value = value.into();
        self.check(&opcode, ty, &value, Fit::Exact);
        self.def(opcode, ty.class(), vec![Operand::Addr(addr), value])
    }

    /// `red.space.op.ty [a], b`: an atomic update whose old value is not needed.
    pub fn red(&mut self, space: Space, op: AtomOp, ty: Ty, addr: Addr, value: impl Into<Operand>) {
        let opcode = format!("red.{}.{}.{ty}", space.name(), op.name());
        let value = value.into();
        self.check(&opcode, ty, &value, Fit::Exact);
        self.push(opcode, vec![Operand::Addr(addr), value]);
    }

    /// `shfl.sync.mode.b32 d, a, b, c, 0xffffffff` over the full warp: `b` is the lane offset
    /// or mask (see [`Shfl`]); `a` is any 32-bit register.
    pub fn shfl(&mut self, mode: Shfl, a: Reg, b: impl Into<Operand>) -> Reg {
        let (name, clamp) = match mode {
            Shfl::Bfly => ("bfly", 31),
            Shfl::Down => ("down", 31),
            Shfl::Up => ("up", 0),
            Shfl::Idx => ("idx", 31),
        };
        let op = format!("shfl.sync.{name}.b32");
        let b = b.into();
        self.check(&op, Ty::B32, &Operand::Reg(a), Fit::Exact);
        self.check(&op, Ty::U32, &b, Fit::Exact);
        self.def(
            op,
            a.class,
            vec![a.into(), b, Imm::Uint(clamp).into(), Imm::Int(-1).into()],
        )
    }

    /// `bar.sync id`: waits for every thread of the block.
    pub fn bar_sync(&mut self, id: u32) {
        self.push("bar.sync", vec![Imm::Uint(id.into()).into()]);
    }

    /// `membar.gl`: this thread's writes to global memory are visible to the whole device
    /// before any write it makes after the fence (a split reduction's partial before the
    /// counter that says it is there).
    pub fn membar_gl(&mut self) {
        self.push("membar.gl", vec![]);
    }

    // ---- control flow -------------------------------------------------------------------

    /// A new label (not yet placed).
    pub fn label(&mut self, hint: &str) -> Label {
        let l = Label {
            id: self.labels.len() as u32,
            hint: sanitize(hint),
        };
        self.labels.push((l.clone(), false));
        l
    }

    /// Places `label` here. A label may be placed once.
    pub fn place(&mut self, label: &Label) {
        let problem = match self.labels.get_mut(label.id as usize) {
            Some((l, placed)) if l == label => {
                let twice = *placed;
                *placed = true;
                twice.then(|| format!("label {label} placed twice"))
            }
            _ => Some(format!("label {label} does not belong to this kernel")),
        };
        if let Some(msg) = problem {
            self.fail(msg);
        }
        // Control flow joins here: a result computed before may not have been on every path.
        self.cse.clear();
        self.stmts.push(Stmt::Label(label.clone()));
    }

    /// `bra label`.
    pub fn bra(&mut self, label: &Label) {
        self.push("bra", vec![Operand::Label(label.clone())]);
    }

    /// `@p bra label`.
    pub fn bra_if(&mut self, p: Reg, label: &Label) {
        self.guarded(p, false, |b| b.bra(label));
    }

    /// `@!p bra label`.
    pub fn bra_unless(&mut self, p: Reg, label: &Label) {
        self.guarded(p, true, |b| b.bra(label));
    }

    /// `ret`.
    pub fn ret(&mut self) {
        self.push("ret", vec![]);
    }

    /// Emits what `body` emits under the guard `@p` (or `@!p` when `negate`). Guards do not
    /// nest.
    pub fn guarded(&mut self, p: Reg, negate: bool, body: impl FnOnce(&mut Self)) {
        if p.class != RegClass::Pred {
            self.fail(format!("guard {p} is not a predicate"));
        }
        if self.guard.is_some() {
            self.fail("guarded blocks do not nest".into());
        }
        let saved = self.guard.replace((p, negate));
        body(self);
        self.guard = saved;
    }

    /// A loop `for i in (start..end).step_by(step)` over `ty` integers, tested at the top:
    /// the body sees the counter register (do not assign to it).
    pub fn counted_loop(
        &mut self,
        ty: Ty,
        start: impl Into<Operand>,
        end: impl Into<Operand>,
        step: impl Into<Operand>,
        body: impl FnOnce(&mut Self, Reg),
    ) {
        let (end, step) = (end.into(), step.into());
        let i = self.mov(ty, start);
        let top = self.label("loop");
        let done = self.label("loop_end");
        let exit = self.setp(Cmp::Ge, ty, i, end.clone());
        self.bra_if(exit, &done);
        self.place(&top);
        body(self, i);
        let next = self.add(ty, i, step);
        self.assign(ty, i, next);
        let more = self.setp(Cmp::Lt, ty, i, end);
        self.bra_if(more, &top);
        self.place(&done);
    }

    /// The global thread index `ctaid.x * ntid.x + tid.x` as a `.u64`.
    pub fn global_thread_index(&mut self) -> Reg {
        let block = self.sreg(Sreg::CtaidX);
        let threads = self.sreg(Sreg::NtidX);
        let tid = self.sreg(Sreg::TidX);
        let base = self.mul_wide(Ty::U32, block, threads);
        let tid = self.cvt(Ty::U64, Ty::U32, None, tid);
        self.add(Ty::U64, base, tid)
    }

    /// A grid-stride loop over `0..n` (`n` a `.u64`): each thread starts at its global index
    /// and steps by the grid's thread count, so any grid size covers any `n`.
    pub fn grid_stride_loop(&mut self, n: impl Into<Operand>, body: impl FnOnce(&mut Self, Reg)) {
        let n = n.into();
        let start = self.global_thread_index();
        let grid = self.sreg(Sreg::NctaidX);
        let threads = self.sreg(Sreg::NtidX);
        let stride = self.mul_wide(Ty::U32, grid, threads);
        self.counted_loop(Ty::U64, start, n, stride, body);
    }

    // ---- finishing ----------------------------------------------------------------------

    /// Verifies the kernel (no recorded error, every label placed, shared memory within
    /// [`MAX_STATIC_SHARED_BYTES`]), appends `ret` if missing, and renders it.
    pub fn finish(mut self) -> Result<PtxKernel, PtxError> {
        if let Some((l, _)) = self.labels.iter().find(|(_, placed)| !placed) {
            let msg = format!("label {l} is never placed");
            self.fail(msg);
        }
        let shared_bytes: u32 = self
            .shared
            .iter()
            .map(|s| s.bytes.next_multiple_of(s.align.max(1)))
            .sum();
        if shared_bytes > MAX_STATIC_SHARED_BYTES {
            self.fail(format!(
                "{shared_bytes} bytes of shared memory exceed the static limit of {MAX_STATIC_SHARED_BYTES}"
            ));
        }
        if self.min_blocks_per_sm.is_some() && self.max_threads.is_none() {
            self.fail(".minnctapersm needs .maxntid".into());
        }
        if let Some(reason) = self.error.take() {
            return Err(PtxError {
                kernel: self.name,
                reason,
            });
        }
        let ends_in_ret = matches!(self.stmts.last(), Some(Stmt::Inst { opcode, guard: None, .. }) if opcode == "ret");
        if !ends_in_ret {
            self.guard = None;
            self.ret();
        }
        let entry = self.render_entry();
        Ok(PtxKernel {
            name: self.name,
            target: self.target,
            params: self.params,
            shared_bytes,
            max_threads: self.max_threads,
            tables: self.tables,
            entry,
        })
    }

    fn render_entry(&self) -> String {
        let mut s = String::new();
        let _ = write!(s, ".visible .entry {}(", self.name);
        for (i, p) in self.params.iter().enumerate() {
            s.push_str(if i == 0 { "\n" } else { ",\n" });
            let ty = match p.ty {
                ParamTy::Ptr { align } => format!(".u64 .ptr.global.align {align}"),
                other => format!(".{}", other.ty()),
            };
            let _ = write!(s, "    .param {ty} {}", p.name);
        }
        s.push_str("\n)\n");
        if let Some(t) = self.max_threads {
            let _ = writeln!(s, ".maxntid {t}, 1, 1");
        }
        if let Some(k) = self.min_blocks_per_sm {
            let _ = writeln!(s, ".minnctapersm {k}");
        }
        s.push_str("{\n");
        for class in RegClass::ALL {
            let n = self.reg_counts[class.slot()];
            if n > 0 {
                let _ = writeln!(
                    s,
                    "    .reg .{} %{}<{n}>;",
                    class.decl_type(),
                    class.prefix()
                );
            }
        }
        for sh in &self.shared {
            let _ = writeln!(
                s,
                "    .shared .align {} .b8 {}[{}];",
                sh.align, sh.name, sh.bytes
            );
        }
        s.push('\n');
        for stmt in &self.stmts {
            match stmt {
                Stmt::Label(l) => {
                    let _ = writeln!(s, "{l}:");
                }
                Stmt::Comment(c) => {
                    let _ = writeln!(s, "    // {c}");
                }
                Stmt::Inst {
                    guard,
                    opcode,
                    args,
                } => {
                    s.push_str("    ");
                    if let Some((p, neg)) = guard {
                        let _ = write!(s, "@{}{p} ", if *neg { "!" } else { "" });
                    }
                    s.push_str(opcode);
                    for (i, a) in args.iter().enumerate() {
                        s.push_str(if i == 0 { " " } else { ", " });
                        let _ = write!(s, "{a}");
                    }
                    s.push_str(";\n");
                }
            }
        }
        s.push_str("}\n");
        s
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn sanitize(hint: &str) -> String {
    let s: String = hint
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "l".into() } else { s }
}
