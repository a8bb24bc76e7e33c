//! Executes decoded PTX: every thread of a block runs on its own until it reaches a warp
//! shuffle or a barrier; a shuffle completes when every live lane of the warp waits at it, a
//! barrier when every live thread of the block does. Memory accesses are checked against the
//! buffers' bounds and their natural alignment (16 bytes for `.v4.f32`).

use half::{bf16, f16};

use super::EmuError;
use super::parse::{
    CONST_BASE, CmpOp, Entry, Inst, Kind, Module, Rnd, ShflMode, Space, Special, Src, T,
};

/// Global memory: buffers at `(index + 1) << 40`.
#[derive(Debug, Default)]
pub struct Memory {
    buffers: Vec<Option<Vec<u8>>>,
}

const SHIFT: u32 = 40;

impl Memory {
    /// Empty memory.
    pub fn new() -> Memory {
        Memory::default()
    }

    /// A zeroed buffer of `bytes`; its device address.
    pub fn alloc(&mut self, bytes: usize) -> u64 {
        self.buffers.push(Some(vec![0; bytes]));
        (self.buffers.len() as u64) << SHIFT
    }

    /// Frees the buffer at `addr` (later accesses fail).
    pub fn free(&mut self, addr: u64) {
        if let Some(b) = self
            .buffers
            .get_mut(((addr >> SHIFT) as usize).wrapping_sub(1))
        {
            *b = None;
        }
    }

    fn slice(&mut self, addr: u64, len: usize) -> Result<&mut [u8], String> {
        let idx = ((addr >> SHIFT) as usize).wrapping_sub(1);
        let off = (addr & ((1 << SHIFT) - 1)) as usize;
        match self.buffers.get_mut(idx) {
            Some(Some(b)) => {
                let n = b.len();
                b.get_mut(off..off + len).ok_or_else(|| {
                    format!("address {addr:#x}: {len} bytes at offset {off} of a {n}-byte buffer")
                })
            }
            Some(None) => Err(format!("address {addr:#x}: the buffer was freed")),
            None => Err(format!("address {addr:#x} is in no buffer")),
        }
    }

    /// Copies `bytes` to `addr`.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), EmuError> {
        self.slice(addr, bytes.len())
            .map_err(EmuError::Host)?
            .copy_from_slice(bytes);
        Ok(())
    }

    /// Copies `out.len()` bytes from `addr`.
    pub fn read(&mut self, addr: u64, out: &mut [u8]) -> Result<(), EmuError> {
        out.copy_from_slice(self.slice(addr, out.len()).map_err(EmuError::Host)?);
        Ok(())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Run,
    Shfl,
    Bar,
    Done,
}

struct Thread {
    regs: Vec<u64>,
    pc: usize,
    state: State,
}

enum Flow {
    Next,
    Jump(usize),
    Exit,
    Shfl,
    Bar,
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

fn sext(v: u64, bits: u32) -> i64 {
    if bits >= 64 {
        v as i64
    } else {
        let s = 64 - bits;
        ((v << s) as i64) >> s
    }
}

fn f32v(v: u64) -> f32 {
    f32::from_bits(v as u32)
}

fn f64v(v: u64) -> f64 {
    f64::from_bits(v)
}

fn fbits(x: f32) -> u64 {
    u64::from(x.to_bits())
}

/// A float source as f64 (exact for every narrower format).
fn float_in(v: u64, t: T) -> f64 {
    match t {
        T::F16 => f16::from_bits(v as u16).to_f64(),
        T::Bf16 => bf16::from_bits(v as u16).to_f64(),
        T::F32 => f64::from(f32v(v)),
        _ => f64v(v),
    }
}

/// An integer source, extended by its signedness.
fn int_in(v: u64, t: T) -> i128 {
    let bits = t.bits();
    if t.signed() {
        i128::from(sext(v, bits))
    } else {
        i128::from(v & mask(bits))
    }
}

fn round_int(x: f64, rnd: Option<Rnd>) -> f64 {
    match rnd {
        Some(Rnd::Rni) | Some(Rnd::Rn) => x.round_ties_even(),
        Some(Rnd::Rmi) | Some(Rnd::Rm) => x.floor(),
        Some(Rnd::Rpi) | Some(Rnd::Rp) => x.ceil(),
        _ => x.trunc(),
    }
}

fn cmp_f(c: CmpOp, a: f64, b: f64) -> bool {
    let un = a.is_nan() || b.is_nan();
    match c {
        CmpOp::Eq => a == b,
        CmpOp::Ne => !un && a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Equ => un || a == b,
        CmpOp::Neu => un || a != b,
        CmpOp::Ltu => un || a < b,
        CmpOp::Leu => un || a <= b,
        CmpOp::Gtu => un || a > b,
        CmpOp::Geu => un || a >= b,
        CmpOp::Num => !un,
        CmpOp::Nan => un,
    }
}

fn cmp_i(c: CmpOp, a: i128, b: i128) -> bool {
    match c {
        CmpOp::Eq | CmpOp::Equ => a == b,
        CmpOp::Ne | CmpOp::Neu => a != b,
        CmpOp::Lt | CmpOp::Ltu => a < b,
        CmpOp::Le | CmpOp::Leu => a <= b,
        CmpOp::Gt | CmpOp::Gtu => a > b,
        CmpOp::Ge | CmpOp::Geu => a >= b,
        CmpOp::Num => true,
        CmpOp::Nan => false,
    }
}

/// Stores a float result of type `t` as register bits.
fn fout(x: f64, t: T) -> u64 {
    match t {
        T::F32 => fbits(x as f32),
        _ => x.to_bits(),
    }
}

/// The canonical NaN PTX produces.
fn nan_of(t: T) -> u64 {
    if t == T::F32 {
        0x7fff_ffff
    } else {
        0x7fff_ffff_ffff_ffff
    }
}

struct Block<'a> {
    entry: &'a Entry,
    module: &'a Module,
    params: &'a [u64],
    ctaid: u32,
    ntid: u32,
    nctaid: u32,
    shared: Vec<u8>,
}

impl Block<'_> {
    fn val(&self, th: &Thread, tid: u32, s: &Src) -> u64 {
        match s {
            Src::Reg(r) => th.regs[*r as usize],
            Src::Imm(v) => *v,
            Src::Special(sp) => u64::from(match sp {
                Special::Tid => tid,
                Special::Ntid => self.ntid,
                Special::Ctaid => self.ctaid,
                Special::Nctaid => self.nctaid,
                Special::LaneId => tid % 32,
                Special::WarpId => tid / 32,
                Special::Zero => 0,
            }),
            Src::Shared(off) => *off,
            Src::Const(a) => *a,
            Src::Param(i) => self.params.get(*i).copied().unwrap_or(0),
            Src::Addr(b, off) => self.val(th, tid, b).wrapping_add(*off as u64),
            Src::Vec(_) | Src::Label(_) => 0,
        }
    }

    fn fail(&self, inst: &Inst, msg: impl Into<String>) -> EmuError {
        EmuError::Fault {
            entry: self.entry.name.clone(),
            block: self.ctaid,
            inst: inst.text.clone(),
            msg: msg.into(),
        }
    }

    fn mem<'m>(
        &'m mut self,
        memory: &'m mut Memory,
        space: Space,
        addr: u64,
        len: usize,
    ) -> Result<&'m mut [u8], String> {
        if !addr.is_multiple_of(len as u64) && space != Space::Param {
            return Err(format!("address {addr:#x} is not aligned to {len} bytes"));
        }
        match space {
            Space::Global => memory.slice(addr, len),
            Space::Shared => {
                let a = addr as usize;
                let n = self.shared.len();
                self.shared
                    .get_mut(a..a + len)
                    .ok_or_else(|| format!("shared address {a} + {len} beyond {n} bytes"))
            }
            Space::Const => Err("const memory is read only".into()),
            Space::Param => Err("param space is read with ld.param".into()),
        }
    }

    fn read_const(&self, addr: u64, len: usize) -> Result<u64, String> {
        let rel = addr.wrapping_sub(CONST_BASE);
        let table = (rel >> 32) as usize;
        let off = (rel & 0xffff_ffff) as usize;
        let t = self
            .module
            .consts
            .get(table)
            .ok_or_else(|| format!("const address {addr:#x} is in no table"))?;
        let b = t
            .get(off..off + len)
            .ok_or_else(|| format!("const read past table {table}"))?;
        let mut x = [0u8; 8];
        x[..len].copy_from_slice(b);
        Ok(u64::from_le_bytes(x))
    }

    #[allow(clippy::too_many_lines)]
    fn exec(
        &mut self,
        th: &mut Thread,
        tid: u32,
        inst: &Inst,
        memory: &mut Memory,
    ) -> Result<Flow, EmuError> {
        if let Some((p, neg)) = inst.guard
            && (th.regs[p as usize] != 0) == neg
        {
            return Ok(Flow::Next);
        }
        let ops = &inst.ops;
        let v = |k: usize| self.val(th, tid, &ops[k]);
        let set = |th: &mut Thread, k: usize, x: u64| -> Result<(), EmuError> {
            match &ops[k] {
                Src::Reg(r) => {
                    th.regs[*r as usize] = x;
                    Ok(())
                }
                _ => Err(EmuError::Fault {
                    entry: String::new(),
                    block: 0,
                    inst: inst.text.clone(),
                    msg: "destination is not a register".into(),
                }),
            }
        };
        let result: u64 = match &inst.kind {
            Kind::Bra => {
                return match &ops[0] {
                    Src::Label(t) => Ok(Flow::Jump(*t)),
                    _ => Err(self.fail(inst, "bra without a label")),
                };
            }
            Kind::Ret => return Ok(Flow::Exit),
            Kind::Shfl(_) => return Ok(Flow::Shfl),
            Kind::Bar => return Ok(Flow::Bar),
            Kind::Mov(t) => {
                match (&ops[0], &ops[1]) {
                    (Src::Vec(parts), src) => {
                        let x = self.val(th, tid, src);
                        let w = t.bits() / parts.len() as u32;
                        for (i, r) in parts.iter().enumerate() {
                            th.regs[*r as usize] = (x >> (w * i as u32)) & mask(w);
                        }
                    }
                    (_, Src::Vec(parts)) => {
                        let w = t.bits() / parts.len() as u32;
                        let mut x = 0u64;
                        for (i, r) in parts.iter().enumerate() {
                            x |= (th.regs[*r as usize] & mask(w)) << (w * i as u32);
                        }
                        set(th, 0, x)?;
                    }
                    _ => {
                        let x = v(1) & mask(t.bits().max(1));
                        set(th, 0, if *t == T::Pred { u64::from(x != 0) } else { x })?;
                    }
                }
                return Ok(Flow::Next);
            }
            Kind::Cvta => v(1),
            Kind::Membar => return Ok(Flow::Next),
            Kind::AtomAdd { space, ty, returns } => {
                let size = (ty.bits() / 8).max(1) as usize;
                let first = usize::from(*returns);
                let (addr, add) = (v(first), v(first + 1));
                let fault = |m: String| EmuError::Fault {
                    entry: String::new(),
                    block: 0,
                    inst: inst.text.clone(),
                    msg: m,
                };
                let cell = self.mem(memory, *space, addr, size).map_err(fault)?;
                let mut x = [0u8; 8];
                x[..size].copy_from_slice(cell);
                let old = u64::from_le_bytes(x);
                let new = match ty {
                    T::F32 => fbits(f32::from_bits(old as u32) + f32::from_bits(add as u32)),
                    T::F64 => (f64v(old) + f64v(add)).to_bits(),
                    // The sum of two 16-bit floats is exact in f64: one rounding.
                    T::F16 => {
                        u64::from(f16::from_f64(float_in(old, *ty) + float_in(add, *ty)).to_bits())
                    }
                    T::Bf16 => {
                        u64::from(bf16::from_f64(float_in(old, *ty) + float_in(add, *ty)).to_bits())
                    }
                    _ => old.wrapping_add(add) & mask(ty.bits()),
                };
                cell.copy_from_slice(&new.to_le_bytes()[..size]);
                if !*returns {
                    return Ok(Flow::Next);
                }
                old
            }
            Kind::Cvt { to, from, rnd } => {
                let x = v(1);
                match (from.float(), to.float()) {
                    (true, true) => {
                        let f = float_in(x, *from);
                        let f = if rnd
                            .is_some_and(|r| matches!(r, Rnd::Rni | Rnd::Rzi | Rnd::Rmi | Rnd::Rpi))
                        {
                            round_int(f, *rnd)
                        } else {
                            f
                        };
                        match to {
                            T::F16 => u64::from(f16::from_f64(f).to_bits()),
                            T::Bf16 => u64::from(bf16::from_f64(f).to_bits()),
                            _ => fout(f, *to),
                        }
                    }
                    (true, false) => {
                        let f = round_int(float_in(x, *from), *rnd);
                        let bits = to.bits();
                        let (lo, hi) = if to.signed() {
                            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                        } else {
                            (0, (1i128 << bits) - 1)
                        };
                        let i = if f.is_nan() {
                            0
                        } else {
                            (f.clamp(lo as f64, hi as f64)) as i128
                        };
                        (i as u64) & mask(bits)
                    }
                    (false, true) => {
                        let i = int_in(x, *from);
                        match to {
                            T::F32 => fbits(i as f32),
                            T::F16 => u64::from(f16::from_f64(i as f64).to_bits()),
                            T::Bf16 => u64::from(bf16::from_f64(i as f64).to_bits()),
                            _ => (i as f64).to_bits(),
                        }
                    }
                    (false, false) => (int_in(x, *from) as u64) & mask(to.bits()),
                }
            }
            Kind::Ld { space, ty, width } => {
                let size = (ty.bits() / 8).max(1) as usize;
                let total = size * *width as usize;
                let addr = v(1);
                let mut raw = [0u64; 4];
                let n = (*width as usize).min(4);
                match space {
                    Space::Param => raw[0] = addr,
                    Space::Const => {
                        for (i, slot) in raw.iter_mut().enumerate().take(n) {
                            *slot = self
                                .read_const(addr + (i * size) as u64, size)
                                .map_err(|m| self.fail(inst, m))?;
                        }
                    }
                    _ => {
                        let bytes =
                            self.mem(memory, *space, addr, total)
                                .map_err(|m| EmuError::Fault {
                                    entry: String::new(),
                                    block: 0,
                                    inst: inst.text.clone(),
                                    msg: m,
                                })?;
                        for (slot, c) in raw.iter_mut().zip(bytes.chunks(size)) {
                            let mut x = [0u8; 8];
                            x[..size].copy_from_slice(c);
                            *slot = u64::from_le_bytes(x);
                        }
                    }
                }
                let ext = |x: u64| {
                    if ty.signed() {
                        (sext(x, ty.bits()) as u64) & mask(if ty.bits() < 32 { 32 } else { 64 })
                    } else {
                        x
                    }
                };
                match &ops[0] {
                    Src::Vec(regs) => {
                        for (r, &x) in regs.iter().zip(&raw) {
                            th.regs[*r as usize] = ext(x);
                        }
                    }
                    _ => set(th, 0, ext(raw[0]))?,
                }
                return Ok(Flow::Next);
            }
            Kind::St { space, ty, .. } => {
                let size = (ty.bits() / 8).max(1) as usize;
                let addr = v(0);
                let mut values = [0u64; 4];
                let n = match &ops[1] {
                    Src::Vec(regs) => {
                        for (slot, r) in values.iter_mut().zip(regs) {
                            *slot = th.regs[*r as usize];
                        }
                        regs.len().min(4)
                    }
                    _ => {
                        values[0] = v(1);
                        1
                    }
                };
                let mut bytes = [0u8; 32];
                for (i, x) in values.iter().take(n).enumerate() {
                    bytes[i * size..(i + 1) * size].copy_from_slice(&x.to_le_bytes()[..size]);
                }
                let len = n * size;
                match self.mem(memory, *space, addr, len) {
                    Ok(dst) => dst.copy_from_slice(&bytes[..len]),
                    Err(m) => {
                        return Err(EmuError::Fault {
                            entry: String::new(),
                            block: 0,
                            inst: inst.text.clone(),
                            msg: m,
                        });
                    }
                }
                return Ok(Flow::Next);
            }
            Kind::Add(t) | Kind::Sub(t) | Kind::MulLo(t) | Kind::Div(t) | Kind::Rem(t) => {
                let (a, b) = (v(1), v(2));
                if t.float() {
                    let (x, y) = (float_in(a, *t), float_in(b, *t));
                    if *t == T::F32 {
                        let (x, y) = (x as f32, y as f32);
                        fbits(match &inst.kind {
                            Kind::Add(_) => x + y,
                            Kind::Sub(_) => x - y,
                            Kind::MulLo(_) => x * y,
                            _ => x / y,
                        })
                    } else {
                        (match &inst.kind {
                            Kind::Add(_) => x + y,
                            Kind::Sub(_) => x - y,
                            Kind::MulLo(_) => x * y,
                            _ => x / y,
                        })
                        .to_bits()
                    }
                } else {
                    let (x, y) = (int_in(a, *t), int_in(b, *t));
                    let r = match &inst.kind {
                        Kind::Add(_) => x.wrapping_add(y),
                        Kind::Sub(_) => x.wrapping_sub(y),
                        Kind::MulLo(_) => x.wrapping_mul(y),
                        Kind::Div(_) if y == 0 => -1,
                        Kind::Div(_) => x / y,
                        _ if y == 0 => x,
                        _ => x % y,
                    };
                    (r as u64) & mask(t.bits())
                }
            }
            Kind::MulHi(t) => {
                let (x, y) = (int_in(v(1), *t), int_in(v(2), *t));
                let bits = t.bits();
                if bits == 64 {
                    let p = if t.signed() {
                        (x * y) >> 64
                    } else {
                        ((x as u128 * y as u128) >> 64) as i128
                    };
                    p as u64
                } else {
                    (((x * y) >> bits) as u64) & mask(bits)
                }
            }
            Kind::MulWide(t) => {
                let (x, y) = (int_in(v(1), *t), int_in(v(2), *t));
                ((x * y) as u64) & mask(2 * t.bits())
            }
            Kind::MadWide(t) => {
                let (x, y) = (int_in(v(1), *t), int_in(v(2), *t));
                ((x * y) as u64).wrapping_add(v(3))
            }
            Kind::MadLo(t) => {
                let (x, y, z) = (int_in(v(1), *t), int_in(v(2), *t), int_in(v(3), *t));
                (x.wrapping_mul(y).wrapping_add(z) as u64) & mask(t.bits())
            }
            Kind::Fma(t) => {
                if *t == T::F32 {
                    fbits(f32v(v(1)).mul_add(f32v(v(2)), f32v(v(3))))
                } else if *t == T::F64 {
                    f64v(v(1)).mul_add(f64v(v(2)), f64v(v(3))).to_bits()
                } else {
                    let (x, y, z) = (int_in(v(1), *t), int_in(v(2), *t), int_in(v(3), *t));
                    (x.wrapping_mul(y).wrapping_add(z) as u64) & mask(t.bits())
                }
            }
            Kind::Min(t, nan) | Kind::Max(t, nan) => {
                let is_max = matches!(inst.kind, Kind::Max(..));
                if t.float() {
                    let (x, y) = (float_in(v(1), *t), float_in(v(2), *t));
                    // `.NaN` variants propagate any NaN; plain min/max give NaN only when both are.
                    if (*nan && (x.is_nan() || y.is_nan())) || (x.is_nan() && y.is_nan()) {
                        nan_of(*t)
                    } else {
                        let r = if is_max { x.max(y) } else { x.min(y) };
                        fout(r, *t)
                    }
                } else {
                    let (x, y) = (int_in(v(1), *t), int_in(v(2), *t));
                    ((if is_max { x.max(y) } else { x.min(y) }) as u64) & mask(t.bits())
                }
            }
            Kind::Neg(t) | Kind::Abs(t) => {
                let neg = matches!(inst.kind, Kind::Neg(_));
                if t.float() {
                    let bits = t.bits();
                    let sign = 1u64 << (bits - 1);
                    let x = v(1);
                    if neg {
                        x ^ sign
                    } else {
                        x & !sign & mask(bits)
                    }
                } else {
                    let x = int_in(v(1), *t);
                    ((if neg { x.wrapping_neg() } else { x.abs() }) as u64) & mask(t.bits())
                }
            }
            Kind::And(t) | Kind::Or(t) | Kind::Xor(t) => {
                let (a, b) = (v(1), v(2));
                let r = match &inst.kind {
                    Kind::And(_) => a & b,
                    Kind::Or(_) => a | b,
                    _ => a ^ b,
                };
                if *t == T::Pred {
                    u64::from(r & 1 != 0)
                } else {
                    r & mask(t.bits())
                }
            }
            Kind::Not(t) => {
                if *t == T::Pred {
                    u64::from(v(1) == 0)
                } else {
                    !v(1) & mask(t.bits())
                }
            }
            Kind::Shl(t) | Kind::Shr(t) => {
                let bits = t.bits();
                let amount = (v(2) & 0xffff_ffff) as u32;
                let x = v(1) & mask(bits);
                if matches!(inst.kind, Kind::Shl(_)) {
                    if amount >= bits {
                        0
                    } else {
                        (x << amount) & mask(bits)
                    }
                } else if t.signed() {
                    let s = sext(x, bits);
                    ((s >> amount.min(bits - 1)) as u64) & mask(bits)
                } else if amount >= bits {
                    0
                } else {
                    x >> amount
                }
            }
            Kind::Sqrt(t) | Kind::Rcp(t) => {
                let sqrt = matches!(inst.kind, Kind::Sqrt(_));
                if *t == T::F32 {
                    let x = f32v(v(1));
                    fbits(if sqrt { x.sqrt() } else { 1.0 / x })
                } else {
                    let x = f64v(v(1));
                    (if sqrt { x.sqrt() } else { 1.0 / x }).to_bits()
                }
            }
            Kind::Ex2Approx => {
                let flush = |x: f32| {
                    if x.is_subnormal() {
                        0.0f32.copysign(x)
                    } else {
                        x
                    }
                };
                fbits(flush(flush(f32v(v(1))).exp2()))
            }
            Kind::Copysign(t) => {
                let bits = t.bits();
                let sign = 1u64 << (bits - 1);
                (v(2) & !sign & mask(bits)) | (v(1) & sign)
            }
            Kind::Setp(c, t) => {
                let r = if t.float() {
                    cmp_f(*c, float_in(v(1), *t), float_in(v(2), *t))
                } else {
                    cmp_i(*c, int_in(v(1), *t), int_in(v(2), *t))
                };
                u64::from(r)
            }
            Kind::Selp(_) => {
                if v(3) != 0 {
                    v(1)
                } else {
                    v(2)
                }
            }
            Kind::TestNan(t) | Kind::TestFinite(t) | Kind::TestInfinite(t) => {
                let x = float_in(v(1), *t);
                u64::from(match &inst.kind {
                    Kind::TestNan(_) => x.is_nan(),
                    Kind::TestFinite(_) => x.is_finite(),
                    _ => x.is_infinite(),
                })
            }
        };
        set(th, 0, result)?;
        Ok(Flow::Next)
    }
}

/// Runs `entry` of `module` on a grid of `grid` blocks of `block` threads (1-D), with
/// parameter values `params` (device addresses and scalars, in order). Returns the number of
/// instructions executed; fails on a fault (out-of-bounds or misaligned access, unknown
/// instruction), a deadlock (a barrier or shuffle not every thread reaches) or when
/// `budget` instructions have run.
pub fn launch(
    module: &Module,
    entry: &str,
    grid: u32,
    block: u32,
    params: &[u64],
    memory: &mut Memory,
    budget: u64,
) -> Result<u64, EmuError> {
    let entry = module
        .entry(entry)
        .ok_or_else(|| EmuError::Host(format!("no entry {entry} in the module")))?;
    if params.len() != entry.params.len() {
        return Err(EmuError::Host(format!(
            "{} takes {} parameters, {} given",
            entry.name,
            entry.params.len(),
            params.len()
        )));
    }
    let mut executed = 0u64;
    for ctaid in 0..grid {
        let mut blk = Block {
            entry,
            module,
            params,
            ctaid,
            ntid: block,
            nctaid: grid,
            shared: vec![0; entry.shared_bytes as usize],
        };
        let mut threads: Vec<Thread> = (0..block)
            .map(|_| Thread {
                regs: vec![0; entry.regs],
                pc: 0,
                state: State::Run,
            })
            .collect();
        loop {
            let mut progress = false;
            for (tid, th) in threads.iter_mut().enumerate() {
                while th.state == State::Run {
                    let Some(inst) = entry.code.get(th.pc) else {
                        th.state = State::Done;
                        break;
                    };
                    executed += 1;
                    if executed > budget {
                        return Err(EmuError::Budget(budget));
                    }
                    progress = true;
                    let flow = blk
                        .exec(th, tid as u32, inst, memory)
                        .map_err(|e| match e {
                            EmuError::Fault { inst, msg, .. } => EmuError::Fault {
                                entry: entry.name.clone(),
                                block: ctaid,
                                inst: format!("{inst} (thread {tid})"),
                                msg,
                            },
                            other => other,
                        })?;
                    match flow {
                        Flow::Next => th.pc += 1,
                        Flow::Jump(t) => th.pc = t,
                        Flow::Exit => th.state = State::Done,
                        Flow::Shfl => th.state = State::Shfl,
                        Flow::Bar => th.state = State::Bar,
                    }
                }
            }
            // Warp shuffles.
            for w in 0..threads.len().div_ceil(32) {
                let lanes = w * 32..((w + 1) * 32).min(threads.len());
                let live: Vec<usize> = lanes
                    .clone()
                    .filter(|&t| threads[t].state != State::Done)
                    .collect();
                if live.is_empty() || !live.iter().all(|&t| threads[t].state == State::Shfl) {
                    continue;
                }
                let pc = threads[live[0]].pc;
                if live.iter().any(|&t| threads[t].pc != pc) || live.len() != lanes.len() {
                    return Err(EmuError::Deadlock(format!(
                        "{}: warp {w} of block {ctaid} reaches shuffles apart or with exited lanes",
                        entry.name
                    )));
                }
                let inst = &entry.code[pc];
                let Src::Reg(a) = inst.ops[1] else {
                    return Err(EmuError::Host(format!("bad shuffle {}", inst.text)));
                };
                let values: Vec<u64> = live.iter().map(|&t| threads[t].regs[a as usize]).collect();
                for (i, &t) in live.iter().enumerate() {
                    let tid = t as u32;
                    let b = blk.val(&threads[t], tid, &inst.ops[2]) as usize;
                    let src = match inst.kind {
                        Kind::Shfl(ShflMode::Up) => i.checked_sub(b).unwrap_or(i),
                        Kind::Shfl(ShflMode::Down) => Some(i + b).filter(|&s| s < 32).unwrap_or(i),
                        Kind::Shfl(ShflMode::Idx) => b.min(31),
                        _ => (i ^ b).min(31),
                    };
                    let x = values.get(src).copied().unwrap_or(values[i]);
                    if let Src::Reg(d) = inst.ops[0] {
                        threads[t].regs[d as usize] = x;
                    }
                    threads[t].pc += 1;
                    threads[t].state = State::Run;
                }
                progress = true;
            }
            let live: Vec<usize> = (0..threads.len())
                .filter(|&t| threads[t].state != State::Done)
                .collect();
            if live.is_empty() {
                break;
            }
            if live.iter().all(|&t| threads[t].state == State::Bar) {
                for &t in &live {
                    threads[t].pc += 1;
                    threads[t].state = State::Run;
                }
                progress = true;
            }
            if !progress {
                let waiting_bar = live
                    .iter()
                    .filter(|&&t| threads[t].state == State::Bar)
                    .count();
                return Err(EmuError::Deadlock(format!(
                    "{}: block {ctaid}: {waiting_bar} of {} live threads wait at a barrier, the others at shuffles",
                    entry.name,
                    live.len()
                )));
            }
        }
    }
    Ok(executed)
}
