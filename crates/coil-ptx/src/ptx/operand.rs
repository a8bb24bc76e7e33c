//! PTX operands and the vocabulary of instructions: types and register classes, registers,
//! immediates, addresses, state spaces, cache hints, comparisons, rounding modes, parameters.

use std::fmt::{self, Write as _};

/// A PTX instruction type (`.f32`, `.u64`, `.pred`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variants are the PTX type names
pub enum Ty {
    Pred,
    B8,
    U8,
    S8,
    B16,
    U16,
    S16,
    F16,
    B32,
    U32,
    S32,
    F32,
    B64,
    U64,
    S64,
    F64,
}

impl Ty {
    /// The type's name without the dot: `f32`, `u64`, `pred`.
    pub fn name(self) -> &'static str {
        match self {
            Ty::Pred => "pred",
            Ty::B8 => "b8",
            Ty::U8 => "u8",
            Ty::S8 => "s8",
            Ty::B16 => "b16",
            Ty::U16 => "u16",
            Ty::S16 => "s16",
            Ty::F16 => "f16",
            Ty::B32 => "b32",
            Ty::U32 => "u32",
            Ty::S32 => "s32",
            Ty::F32 => "f32",
            Ty::B64 => "b64",
            Ty::U64 => "u64",
            Ty::S64 => "s64",
            Ty::F64 => "f64",
        }
    }

    /// The register class that holds a value of this type.
    pub fn class(self) -> RegClass {
        match self {
            Ty::Pred => RegClass::Pred,
            Ty::B8 | Ty::U8 | Ty::S8 | Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 => RegClass::B16,
            Ty::B32 | Ty::U32 | Ty::S32 => RegClass::B32,
            Ty::F32 => RegClass::F32,
            Ty::B64 | Ty::U64 | Ty::S64 => RegClass::B64,
            Ty::F64 => RegClass::F64,
        }
    }

    /// Size in bits (1 for `.pred`).
    pub fn bits(self) -> u32 {
        match self {
            Ty::Pred => 1,
            Ty::B8 | Ty::U8 | Ty::S8 => 8,
            Ty::B16 | Ty::U16 | Ty::S16 | Ty::F16 => 16,
            Ty::B32 | Ty::U32 | Ty::S32 | Ty::F32 => 32,
            Ty::B64 | Ty::U64 | Ty::S64 | Ty::F64 => 64,
        }
    }

    /// `.f16`, `.f32`, `.f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Ty::F16 | Ty::F32 | Ty::F64)
    }

    /// `.bN`: untyped bits, compatible with any register of the same size.
    pub fn is_bits(self) -> bool {
        matches!(self, Ty::B8 | Ty::B16 | Ty::B32 | Ty::B64)
    }

    /// `.uN` or `.sN` or `.bN`.
    pub fn is_int(self) -> bool {
        !self.is_float() && self != Ty::Pred
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A register class: one `.reg` declaration and one name prefix each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RegClass {
    /// `.pred %p`
    Pred,
    /// `.b16 %rs`
    B16,
    /// `.b32 %r` (u32, s32, b32)
    B32,
    /// `.b64 %rd` (u64, s64, b64, addresses)
    B64,
    /// `.f32 %f`
    F32,
    /// `.f64 %fd`
    F64,
}

impl RegClass {
    pub(super) const ALL: [RegClass; 6] = [
        RegClass::Pred,
        RegClass::B16,
        RegClass::B32,
        RegClass::B64,
        RegClass::F32,
        RegClass::F64,
    ];

    pub(super) fn slot(self) -> usize {
        self as usize
    }

    /// The register name prefix without `%`: `p`, `rs`, `r`, `rd`, `f`, `fd`.
    pub fn prefix(self) -> &'static str {
        match self {
            RegClass::Pred => "p",
            RegClass::B16 => "rs",
            RegClass::B32 => "r",
            RegClass::B64 => "rd",
            RegClass::F32 => "f",
            RegClass::F64 => "fd",
        }
    }

    pub(super) fn decl_type(self) -> &'static str {
        match self {
            RegClass::Pred => "pred",
            RegClass::B16 => "b16",
            RegClass::B32 => "b32",
            RegClass::B64 => "b64",
            RegClass::F32 => "f32",
            RegClass::F64 => "f64",
        }
    }

    /// Size in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        match self {
            RegClass::Pred => 1,
            RegClass::B16 => 16,
            RegClass::B32 | RegClass::F32 => 32,
            RegClass::B64 | RegClass::F64 => 64,
        }
    }
}

/// A virtual register: its class and number, printed as `%f3`, `%rd0`, `%p1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reg {
    pub(super) class: RegClass,
    pub(super) index: u32,
}

impl Reg {
    /// The register's class.
    pub fn class(self) -> RegClass {
        self.class
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}{}", self.class.prefix(), self.index)
    }
}

/// An immediate operand. Its text depends on the instruction type: floats print as exact hex
/// (`0f3F800000`, `0d3FF0000000000000`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Imm {
    /// A signed integer.
    Int(i64),
    /// An unsigned integer.
    Uint(u64),
    /// An `f32` constant.
    F32(f32),
    /// An `f64` constant.
    F64(f64),
}

impl fmt::Display for Imm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Imm::Int(v) => write!(f, "{v}"),
            Imm::Uint(v) => write!(f, "{v}"),
            Imm::F32(v) => write!(f, "0f{:08X}", v.to_bits()),
            Imm::F64(v) => write!(f, "0d{:016X}", v.to_bits()),
        }
    }
}

/// A value: a register or an inline immediate (constants stay inline in the PTX text).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// A register.
    Reg(Reg),
    /// An immediate.
    Imm(Imm),
}

impl From<Reg> for Val {
    fn from(r: Reg) -> Val {
        Val::Reg(r)
    }
}

impl From<Val> for Operand {
    fn from(v: Val) -> Operand {
        match v {
            Val::Reg(r) => Operand::Reg(r),
            Val::Imm(i) => Operand::Imm(i),
        }
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Reg(r) => write!(f, "{r}"),
            Val::Imm(i) => write!(f, "{i}"),
        }
    }
}

/// A special register (`%tid.x`, ...), read with [`KernelBuilder::sreg`](super::KernelBuilder::sreg).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX names
pub enum Sreg {
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    LaneId,
    WarpId,
}

impl Sreg {
    pub(super) fn name(self) -> &'static str {
        match self {
            Sreg::TidX => "%tid.x",
            Sreg::TidY => "%tid.y",
            Sreg::TidZ => "%tid.z",
            Sreg::NtidX => "%ntid.x",
            Sreg::NtidY => "%ntid.y",
            Sreg::CtaidX => "%ctaid.x",
            Sreg::CtaidY => "%ctaid.y",
            Sreg::CtaidZ => "%ctaid.z",
            Sreg::NctaidX => "%nctaid.x",
            Sreg::NctaidY => "%nctaid.y",
            Sreg::LaneId => "%laneid",
            Sreg::WarpId => "%warpid",
        }
    }
}

/// A branch target, printed as `$L_<hint>_<n>`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub(super) id: u32,
    pub(super) hint: String,
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "$L_{}_{}", self.hint, self.id)
    }
}

/// A named variable (parameter, shared array, const table) used as an address base.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Symbol(pub(super) String);

impl Symbol {
    /// The variable's name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A memory operand `[base+offset]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Addr {
    base: AddrBase,
    offset: i64,
}

#[derive(Clone, Debug, PartialEq)]
enum AddrBase {
    Reg(Reg),
    Symbol(Symbol),
}

impl Addr {
    /// `[reg]`: the register holds a 64-bit address (or a 32-bit shared-window address).
    pub fn reg(base: Reg) -> Addr {
        Addr {
            base: AddrBase::Reg(base),
            offset: 0,
        }
    }

    /// `[name]`: a variable's own address.
    pub fn symbol(base: &Symbol) -> Addr {
        Addr {
            base: AddrBase::Symbol(base.clone()),
            offset: 0,
        }
    }

    /// The same base, `bytes` further on.
    pub fn offset(mut self, bytes: i64) -> Addr {
        self.offset += bytes;
        self
    }
}

impl From<Reg> for Addr {
    fn from(r: Reg) -> Addr {
        Addr::reg(r)
    }
}

impl fmt::Display for Addr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_char('[')?;
        match &self.base {
            AddrBase::Reg(r) => write!(f, "{r}")?,
            AddrBase::Symbol(s) => write!(f, "{s}")?,
        }
        if self.offset != 0 {
            write!(f, "+{}", self.offset)?;
        }
        f.write_char(']')
    }
}

/// An instruction operand. Registers, immediates and special registers convert with `into()`
/// (`2.0f32`, `4u32`, `-1i64`, a [`Reg`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// An immediate.
    Imm(Imm),
    /// A special register.
    Sreg(Sreg),
    /// A memory address.
    Addr(Addr),
    /// A vector of registers `{%f0, %f1, %f2, %f3}`.
    Vec(Vec<Reg>),
    /// A branch target.
    Label(Label),
    /// A variable's name (its address, in `mov`).
    Symbol(Symbol),
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(i) => write!(f, "{i}"),
            Operand::Sreg(s) => f.write_str(s.name()),
            Operand::Addr(a) => write!(f, "{a}"),
            Operand::Vec(regs) => {
                f.write_char('{')?;
                for (i, r) in regs.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{r}")?;
                }
                f.write_char('}')
            }
            Operand::Label(l) => write!(f, "{l}"),
            Operand::Symbol(s) => write!(f, "{s}"),
        }
    }
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}
impl From<Imm> for Operand {
    fn from(i: Imm) -> Operand {
        Operand::Imm(i)
    }
}
impl From<Sreg> for Operand {
    fn from(s: Sreg) -> Operand {
        Operand::Sreg(s)
    }
}
impl From<f32> for Operand {
    fn from(v: f32) -> Operand {
        Operand::Imm(Imm::F32(v))
    }
}
impl From<f64> for Operand {
    fn from(v: f64) -> Operand {
        Operand::Imm(Imm::F64(v))
    }
}
impl From<i32> for Operand {
    fn from(v: i32) -> Operand {
        Operand::Imm(Imm::Int(v.into()))
    }
}
impl From<i64> for Operand {
    fn from(v: i64) -> Operand {
        Operand::Imm(Imm::Int(v))
    }
}
impl From<u32> for Operand {
    fn from(v: u32) -> Operand {
        Operand::Imm(Imm::Uint(v.into()))
    }
}
impl From<u64> for Operand {
    fn from(v: u64) -> Operand {
        Operand::Imm(Imm::Uint(v))
    }
}
impl From<&Symbol> for Operand {
    fn from(s: &Symbol) -> Operand {
        Operand::Symbol(s.clone())
    }
}

/// A state space for loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// `.global`: device memory.
    Global,
    /// `.shared`: the block's shared memory.
    Shared,
    /// `.const`: module-scope constant tables.
    Const,
    /// `.local`: per-thread spill memory.
    Local,
    /// `.param`: kernel parameters.
    Param,
}

impl Space {
    pub(super) fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
            Space::Const => "const",
            Space::Local => "local",
            Space::Param => "param",
        }
    }
}

/// A cache operator (`.ca .cg .cs .lu .cv` for loads, `.wb .cg .cs .wt` for stores).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOp {
    /// Cache at all levels (loads' default).
    Ca,
    /// Cache in L2 only.
    Cg,
    /// Streaming, likely accessed once: evict first.
    Cs,
    /// Last use.
    Lu,
    /// Don't cache, fetch again.
    Cv,
    /// Write back (stores' default).
    Wb,
    /// Write through.
    Wt,
}

impl CacheOp {
    pub(super) fn name(self) -> &'static str {
        match self {
            CacheOp::Ca => "ca",
            CacheOp::Cg => "cg",
            CacheOp::Cs => "cs",
            CacheOp::Lu => "lu",
            CacheOp::Cv => "cv",
            CacheOp::Wb => "wb",
            CacheOp::Wt => "wt",
        }
    }
}

/// Cache hints on a load or store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cache {
    /// An explicit cache operator, or the default.
    pub op: Option<CacheOp>,
    /// `.nc`: load through the non-coherent (read-only) path; global loads of data the kernel
    /// never writes.
    pub non_coherent: bool,
}

impl Cache {
    /// No hints.
    pub const DEFAULT: Cache = Cache {
        op: None,
        non_coherent: false,
    };
    /// `ld.global.nc`: read-only data.
    pub const READ_ONLY: Cache = Cache {
        op: None,
        non_coherent: true,
    };
    /// `.cs`: streamed once, evict first.
    pub const STREAMING: Cache = Cache {
        op: Some(CacheOp::Cs),
        non_coherent: false,
    };
}

/// A comparison for `setp`. Float comparisons with a `u` suffix are true when either operand is
/// NaN; the others are false then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX names
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    /// Both are numbers.
    Num,
    /// Either is NaN.
    Nan,
}

impl Cmp {
    pub(super) fn name(self) -> &'static str {
        match self {
            Cmp::Eq => "eq",
            Cmp::Ne => "ne",
            Cmp::Lt => "lt",
            Cmp::Le => "le",
            Cmp::Gt => "gt",
            Cmp::Ge => "ge",
            Cmp::Equ => "equ",
            Cmp::Neu => "neu",
            Cmp::Ltu => "ltu",
            Cmp::Leu => "leu",
            Cmp::Gtu => "gtu",
            Cmp::Geu => "geu",
            Cmp::Num => "num",
            Cmp::Nan => "nan",
        }
    }

    pub(super) fn float_only(self) -> bool {
        matches!(
            self,
            Cmp::Equ | Cmp::Neu | Cmp::Ltu | Cmp::Leu | Cmp::Gtu | Cmp::Geu | Cmp::Num | Cmp::Nan
        )
    }
}

/// A class test for `testp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestP {
    /// Finite (not inf, not NaN).
    Finite,
    /// ±inf.
    Infinite,
    /// A number (not NaN).
    Number,
    /// NaN.
    NotANumber,
    /// Normal.
    Normal,
    /// Subnormal.
    Subnormal,
}

impl TestP {
    pub(super) fn name(self) -> &'static str {
        match self {
            TestP::Finite => "finite",
            TestP::Infinite => "infinite",
            TestP::Number => "number",
            TestP::NotANumber => "notanumber",
            TestP::Normal => "normal",
            TestP::Subnormal => "subnormal",
        }
    }
}

/// A rounding mode for `cvt`: `Rn`..`Rp` round to a float, `Rni`..`Rpi` to an integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX names
pub enum Round {
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

impl Round {
    pub(super) fn name(self) -> &'static str {
        match self {
            Round::Rn => "rn",
            Round::Rz => "rz",
            Round::Rm => "rm",
            Round::Rp => "rp",
            Round::Rni => "rni",
            Round::Rzi => "rzi",
            Round::Rmi => "rmi",
            Round::Rpi => "rpi",
        }
    }
}

/// An atomic read-modify-write operation (`atom`, `red`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the variants are the PTX names
pub enum AtomOp {
    Add,
    Min,
    Max,
    Exch,
    And,
    Or,
    Xor,
}

impl AtomOp {
    pub(super) fn name(self) -> &'static str {
        match self {
            AtomOp::Add => "add",
            AtomOp::Min => "min",
            AtomOp::Max => "max",
            AtomOp::Exch => "exch",
            AtomOp::And => "and",
            AtomOp::Or => "or",
            AtomOp::Xor => "xor",
        }
    }
}

/// A `shfl.sync` mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shfl {
    /// Exchange with lane `lane ^ b` (butterfly; all-reduce).
    Bfly,
    /// Read lane `lane + b`.
    Down,
    /// Read lane `lane - b`.
    Up,
    /// Read lane `b`.
    Idx,
}

/// The type of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamTy {
    /// A global-memory pointer, aligned to `align` bytes (rendered `.u64 .ptr.global.align N`).
    Ptr {
        /// Guaranteed alignment of the address in bytes (a power of two).
        align: u32,
    },
    /// `.u32`
    U32,
    /// `.s32`
    S32,
    /// `.u64`
    U64,
    /// `.s64`
    S64,
    /// `.f32`
    F32,
    /// `.f64`
    F64,
}

impl ParamTy {
    /// The PTX type the parameter is loaded as.
    pub fn ty(self) -> Ty {
        match self {
            ParamTy::Ptr { .. } | ParamTy::U64 => Ty::U64,
            ParamTy::U32 => Ty::U32,
            ParamTy::S32 => Ty::S32,
            ParamTy::S64 => Ty::S64,
            ParamTy::F32 => Ty::F32,
            ParamTy::F64 => Ty::F64,
        }
    }

    /// Size in bytes of the argument passed at launch.
    pub fn bytes(self) -> usize {
        (self.ty().bits() / 8) as usize
    }
}

/// A declared kernel parameter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    /// The parameter's name in the PTX.
    pub name: String,
    /// Its type.
    pub ty: ParamTy,
}
