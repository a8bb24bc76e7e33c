//! Reads the PTX text coil renders into decoded instructions: one [`Entry`] per `.entry`, its
//! parameters, shared arrays and statements, with registers numbered densely and branch
//! targets resolved.

use std::collections::HashMap;

use super::EmuError;

/// An instruction type suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum T {
    Pred,
    B8,
    U8,
    S8,
    B16,
    U16,
    S16,
    F16,
    Bf16,
    B32,
    U32,
    S32,
    F32,
    B64,
    U64,
    S64,
    F64,
}

impl T {
    fn parse(s: &str) -> Option<T> {
        Some(match s {
            "pred" => T::Pred,
            "b8" => T::B8,
            "u8" => T::U8,
            "s8" => T::S8,
            "b16" => T::B16,
            "u16" => T::U16,
            "s16" => T::S16,
            "f16" => T::F16,
            "bf16" => T::Bf16,
            "b32" => T::B32,
            "u32" => T::U32,
            "s32" => T::S32,
            "f32" => T::F32,
            "b64" => T::B64,
            "u64" => T::U64,
            "s64" => T::S64,
            "f64" => T::F64,
            _ => return None,
        })
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            T::Pred => 1,
            T::B8 | T::U8 | T::S8 => 8,
            T::B16 | T::U16 | T::S16 | T::F16 | T::Bf16 => 16,
            T::B32 | T::U32 | T::S32 | T::F32 => 32,
            T::B64 | T::U64 | T::S64 | T::F64 => 64,
        }
    }

    pub(crate) fn signed(self) -> bool {
        matches!(self, T::S8 | T::S16 | T::S32 | T::S64)
    }

    pub(crate) fn float(self) -> bool {
        matches!(self, T::F16 | T::Bf16 | T::F32 | T::F64)
    }
}

/// A special register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    Tid,
    Ntid,
    Ctaid,
    Nctaid,
    LaneId,
    WarpId,
    Zero,
}

/// A decoded operand.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Src {
    Reg(u32),
    /// Raw bits: floats as their encoding, integers two's complement.
    Imm(u64),
    Special(Special),
    /// `[base + offset]`.
    Addr(Box<Src>, i64),
    Vec(Vec<u32>),
    Label(usize),
    /// A parameter (by position), a shared array (its offset) or a const table (its address).
    Param(usize),
    Shared(u64),
    Const(u64),
}

/// Memory spaces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    Global,
    Shared,
    Const,
    Param,
}

/// Comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub(crate) enum CmpOp {
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
    Num,
    Nan,
}

/// Rounding modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
    Rni,
    Rzi,
    Rmi,
    Rpi,
}

/// What an instruction does.
/// Which lane a `shfl.sync` reads: `lane ^ b`, `lane - b`, `lane + b` (its own past the
/// warp's edge), or lane `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Bfly,
    Up,
    Down,
    Idx,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A memory fence (`membar`, `fence`): a no-op here, where blocks run one at a time.
    Membar,
    /// `atom.space.add.ty` (the old value into the first operand) or, without `returns`,
    /// `red.space.add.ty` (nothing back): integers and floats.
    AtomAdd {
        space: Space,
        ty: T,
        returns: bool,
    },
    Mov(T),
    Cvt {
        to: T,
        from: T,
        rnd: Option<Rnd>,
    },
    Cvta,
    Ld {
        space: Space,
        ty: T,
        width: u32,
    },
    St {
        space: Space,
        ty: T,
        width: u32,
    },
    Add(T),
    Sub(T),
    MulLo(T),
    MulHi(T),
    MulWide(T),
    MadLo(T),
    MadWide(T),
    Fma(T),
    Div(T),
    Rem(T),
    Min(T, bool),
    Max(T, bool),
    Neg(T),
    Abs(T),
    And(T),
    Or(T),
    Xor(T),
    Not(T),
    Shl(T),
    Shr(T),
    Sqrt(T),
    Rcp(T),
    /// `ex2.approx.ftz.f32`: modelled as the exact 2^x with subnormals flushed to zero.
    Ex2Approx,
    Copysign(T),
    Setp(CmpOp, T),
    Selp(T),
    TestNan(T),
    TestFinite(T),
    TestInfinite(T),
    Shfl(ShflMode),
    Bar,
    Bra,
    Ret,
}

/// A decoded instruction.
#[derive(Clone, Debug)]
pub(crate) struct Inst {
    pub(crate) guard: Option<(u32, bool)>,
    pub(crate) kind: Kind,
    pub(crate) ops: Vec<Src>,
    pub(crate) text: String,
}

/// One `.entry`.
#[derive(Clone, Debug)]
pub struct Entry {
    pub(crate) name: String,
    pub(crate) params: Vec<String>,
    pub(crate) regs: usize,
    pub(crate) shared_bytes: u64,
    pub(crate) code: Vec<Inst>,
}

impl Entry {
    /// The entry's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many parameters a launch passes.
    pub fn param_count(&self) -> usize {
        self.params.len()
    }
}

/// A parsed module: its entries and constant tables.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub(crate) entries: Vec<Entry>,
    /// Constant tables, each at `CONST_BASE + index << 32`.
    pub(crate) consts: Vec<Vec<u8>>,
}

impl Module {
    /// The entry called `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }
}

/// Addresses of const tables start here (table `i` at `CONST_BASE + (i << 32)`).
pub(crate) const CONST_BASE: u64 = 0xC000_0000_0000_0000;

fn err(line: usize, msg: impl Into<String>) -> EmuError {
    EmuError::Parse {
        line: line + 1,
        msg: msg.into(),
    }
}

/// Splits operands at top-level commas (not inside `{}` or `[]`).
fn split_operands(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut cur = String::new();
    for c in s.chars() {
        match c {
            '{' | '[' => {
                depth += 1;
                cur.push(c);
            }
            '}' | ']' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
            }
            _ => cur.push(c),
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

struct EntryParser<'a> {
    regs: HashMap<String, u32>,
    params: Vec<String>,
    shared: HashMap<String, u64>,
    shared_bytes: u64,
    consts: &'a HashMap<String, usize>,
    labels: HashMap<String, usize>,
    code: Vec<(Inst, Option<String>)>,
}

impl EntryParser<'_> {
    fn reg(&mut self, name: &str) -> u32 {
        let n = self.regs.len() as u32;
        *self.regs.entry(name.to_string()).or_insert(n)
    }

    fn operand(&mut self, s: &str, line: usize) -> Result<(Src, Option<String>), EmuError> {
        let s = s.trim();
        if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let (base, offset) = match inner.rfind('+') {
                Some(i) => (
                    &inner[..i],
                    inner[i + 1..]
                        .trim()
                        .parse::<i64>()
                        .map_err(|_| err(line, format!("bad offset in {s}")))?,
                ),
                None => (inner, 0),
            };
            let (b, _) = self.operand(base, line)?;
            return Ok((Src::Addr(Box::new(b), offset), None));
        }
        if let Some(inner) = s.strip_prefix('{').and_then(|x| x.strip_suffix('}')) {
            let regs = inner
                .split(',')
                .map(|r| self.reg(r.trim()))
                .collect::<Vec<_>>();
            return Ok((Src::Vec(regs), None));
        }
        if let Some(sp) = match s {
            "%tid.x" => Some(Special::Tid),
            "%ntid.x" => Some(Special::Ntid),
            "%ctaid.x" => Some(Special::Ctaid),
            "%nctaid.x" => Some(Special::Nctaid),
            "%laneid" => Some(Special::LaneId),
            "%warpid" => Some(Special::WarpId),
            "%tid.y" | "%tid.z" | "%ctaid.y" | "%ctaid.z" => Some(Special::Zero),
            _ => None,
        } {
            return Ok((Src::Special(sp), None));
        }
        if s.starts_with('%') {
            return Ok((Src::Reg(self.reg(s)), None));
        }
        if s.starts_with('$') {
            return Ok((Src::Label(0), Some(s.to_string())));
        }
        if let Some(hex) = s.strip_prefix("0f").or_else(|| s.strip_prefix("0F")) {
            let bits =
                u32::from_str_radix(hex, 16).map_err(|_| err(line, format!("bad f32 {s}")))?;
            return Ok((Src::Imm(u64::from(bits)), None));
        }
        if let Some(hex) = s.strip_prefix("0d").or_else(|| s.strip_prefix("0D")) {
            let bits =
                u64::from_str_radix(hex, 16).map_err(|_| err(line, format!("bad f64 {s}")))?;
            return Ok((Src::Imm(bits), None));
        }
        if let Some(hex) = s.strip_prefix("0x") {
            let v = u64::from_str_radix(hex, 16).map_err(|_| err(line, format!("bad hex {s}")))?;
            return Ok((Src::Imm(v), None));
        }
        if s.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            let v: i128 = s
                .parse()
                .map_err(|_| err(line, format!("bad integer {s}")))?;
            return Ok((Src::Imm(v as u64), None));
        }
        if let Some(i) = self.params.iter().position(|p| p == s) {
            return Ok((Src::Param(i), None));
        }
        if let Some(&off) = self.shared.get(s) {
            return Ok((Src::Shared(off), None));
        }
        if let Some(&t) = self.consts.get(s) {
            return Ok((Src::Const(CONST_BASE + ((t as u64) << 32)), None));
        }
        Err(err(line, format!("unknown operand {s}")))
    }
}

fn parse_cmp(s: &str) -> Option<CmpOp> {
    Some(match s {
        "eq" => CmpOp::Eq,
        "ne" => CmpOp::Ne,
        "lt" => CmpOp::Lt,
        "le" => CmpOp::Le,
        "gt" => CmpOp::Gt,
        "ge" => CmpOp::Ge,
        "equ" => CmpOp::Equ,
        "neu" => CmpOp::Neu,
        "ltu" => CmpOp::Ltu,
        "leu" => CmpOp::Leu,
        "gtu" => CmpOp::Gtu,
        "geu" => CmpOp::Geu,
        "num" => CmpOp::Num,
        "nan" => CmpOp::Nan,
        _ => return None,
    })
}

fn parse_rnd(s: &str) -> Option<Rnd> {
    Some(match s {
        "rn" => Rnd::Rn,
        "rz" => Rnd::Rz,
        "rm" => Rnd::Rm,
        "rp" => Rnd::Rp,
        "rni" => Rnd::Rni,
        "rzi" => Rnd::Rzi,
        "rmi" => Rnd::Rmi,
        "rpi" => Rnd::Rpi,
        _ => return None,
    })
}

fn decode(opcode: &str, line: usize) -> Result<Kind, EmuError> {
    let parts: Vec<&str> = opcode.split('.').collect();
    let types: Vec<T> = parts.iter().filter_map(|p| T::parse(p)).collect();
    let last = types.last().copied();
    let has = |m: &str| parts.contains(&m);
    let ty = || last.ok_or_else(|| err(line, format!("{opcode}: no type")));
    let space = || {
        if has("global") {
            Ok(Space::Global)
        } else if has("shared") {
            Ok(Space::Shared)
        } else if has("const") {
            Ok(Space::Const)
        } else if has("param") {
            Ok(Space::Param)
        } else {
            Err(err(line, format!("{opcode}: unsupported state space")))
        }
    };
    let width = parts
        .iter()
        .find_map(|p| p.strip_prefix('v').and_then(|n| n.parse::<u32>().ok()))
        .unwrap_or(1);
    Ok(match parts[0] {
        "mov" => Kind::Mov(ty()?),
        "cvt" => {
            if types.len() != 2 {
                return Err(err(line, format!("{opcode}: cvt needs two types")));
            }
            Kind::Cvt {
                to: types[0],
                from: types[1],
                rnd: parts.iter().find_map(|p| parse_rnd(p)),
            }
        }
        "cvta" => Kind::Cvta,
        "ld" => Kind::Ld {
            space: space()?,
            ty: ty()?,
            width,
        },
        "st" => Kind::St {
            space: space()?,
            ty: ty()?,
            width,
        },
        "add" => Kind::Add(ty()?),
        "sub" => Kind::Sub(ty()?),
        "mul" if has("hi") => Kind::MulHi(ty()?),
        "mul" if has("wide") => Kind::MulWide(ty()?),
        "mul" => Kind::MulLo(ty()?),
        "mad" if has("wide") => Kind::MadWide(ty()?),
        "mad" => Kind::MadLo(ty()?),
        "fma" => Kind::Fma(ty()?),
        "div" => Kind::Div(ty()?),
        "rem" => Kind::Rem(ty()?),
        "min" => Kind::Min(ty()?, has("NaN")),
        "max" => Kind::Max(ty()?, has("NaN")),
        "neg" => Kind::Neg(ty()?),
        "abs" => Kind::Abs(ty()?),
        "and" => Kind::And(ty()?),
        "or" => Kind::Or(ty()?),
        "xor" => Kind::Xor(ty()?),
        "not" => Kind::Not(ty()?),
        "shl" => Kind::Shl(ty()?),
        "shr" => Kind::Shr(ty()?),
        "sqrt" if has("rn") => Kind::Sqrt(ty()?),
        "rcp" if has("rn") => Kind::Rcp(ty()?),
        "ex2" if has("approx") && has("ftz") && ty()? == T::F32 => Kind::Ex2Approx,
        "copysign" => Kind::Copysign(ty()?),
        "setp" => Kind::Setp(
            parts
                .get(1)
                .and_then(|c| parse_cmp(c))
                .ok_or_else(|| err(line, format!("{opcode}: bad comparison")))?,
            ty()?,
        ),
        "selp" => Kind::Selp(ty()?),
        "testp" if has("notanumber") => Kind::TestNan(ty()?),
        "testp" if has("finite") => Kind::TestFinite(ty()?),
        "testp" if has("infinite") => Kind::TestInfinite(ty()?),
        "shfl" if has("bfly") => Kind::Shfl(ShflMode::Bfly),
        "shfl" if has("up") => Kind::Shfl(ShflMode::Up),
        "shfl" if has("down") => Kind::Shfl(ShflMode::Down),
        "shfl" if has("idx") => Kind::Shfl(ShflMode::Idx),
        "bar" => Kind::Bar,
        "membar" | "fence" => Kind::Membar,
        "atom" | "red" if has("add") => Kind::AtomAdd {
            space: space()?,
            ty: ty()?,
            returns: parts[0] == "atom",
        },
        "bra" => Kind::Bra,
        "ret" => Kind::Ret,
        _ => return Err(err(line, format!("the emulator does not know {opcode}"))),
    })
}

/// Parses a module of PTX text as coil renders it.
pub fn parse(text: &str) -> Result<Module, EmuError> {
    let lines: Vec<&str> = text.lines().collect();
    let mut module = Module::default();
    let mut const_names: HashMap<String, usize> = HashMap::new();
    // Constant tables first: entries refer to them.
    for (n, raw) in lines.iter().enumerate() {
        let l = raw.trim();
        if let Some(rest) = l.strip_prefix(".const ") {
            let (decl, values) = rest
                .split_once('=')
                .ok_or_else(|| err(n, "const table without values"))?;
            let decl: Vec<&str> = decl.split_whitespace().collect();
            let ty = decl
                .iter()
                .find_map(|p| p.strip_prefix('.').and_then(T::parse))
                .ok_or_else(|| err(n, "const table without a type"))?;
            let name = decl
                .last()
                .and_then(|d| d.split('[').next())
                .ok_or_else(|| err(n, "const table without a name"))?;
            let body = values.trim().trim_start_matches('{').trim_end_matches("};");
            let mut bytes = Vec::new();
            for v in body.split(',') {
                let v = v.trim().trim_end_matches('}');
                let x = u64::from_str_radix(v.trim_start_matches("0x"), 16)
                    .map_err(|_| err(n, format!("bad const value {v}")))?;
                bytes.extend_from_slice(&x.to_le_bytes()[..(ty.bits() / 8) as usize]);
            }
            const_names.insert(name.to_string(), module.consts.len());
            module.consts.push(bytes);
        }
    }
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim();
        let Some(rest) = l.strip_prefix(".visible .entry ") else {
            i += 1;
            continue;
        };
        let name = rest.trim_end_matches('(').to_string();
        let mut p = EntryParser {
            regs: HashMap::new(),
            params: vec![],
            shared: HashMap::new(),
            shared_bytes: 0,
            consts: &const_names,
            labels: HashMap::new(),
            code: vec![],
        };
        i += 1;
        while i < lines.len() && lines[i].trim() != ")" {
            let decl = lines[i].trim().trim_end_matches(',');
            let pname = decl
                .split_whitespace()
                .last()
                .ok_or_else(|| err(i, "empty parameter"))?;
            p.params.push(pname.to_string());
            i += 1;
        }
        i += 1;
        while i < lines.len() && lines[i].trim() != "}" {
            let n = i;
            let l = lines[i].trim();
            i += 1;
            if l.is_empty()
                || l == "{"
                || l.starts_with("//")
                || l.starts_with(".reg")
                || l.starts_with(".maxntid")
                || l.starts_with(".minnctapersm")
            {
                continue;
            }
            if let Some(decl) = l.strip_prefix(".shared ") {
                let words: Vec<&str> = decl.trim_end_matches(';').split_whitespace().collect();
                let align: u64 = words
                    .iter()
                    .position(|w| *w == ".align")
                    .and_then(|k| words.get(k + 1))
                    .and_then(|a| a.parse().ok())
                    .unwrap_or(4);
                let last = words.last().ok_or_else(|| err(n, "bad shared decl"))?;
                let (sname, size) = last
                    .trim_end_matches(']')
                    .split_once('[')
                    .ok_or_else(|| err(n, "bad shared decl"))?;
                let size: u64 = size.parse().map_err(|_| err(n, "bad shared size"))?;
                let off = p.shared_bytes.next_multiple_of(align.max(1));
                p.shared.insert(sname.to_string(), off);
                p.shared_bytes = off + size;
                continue;
            }
            if let Some(label) = l.strip_suffix(':') {
                p.labels.insert(label.to_string(), p.code.len());
                continue;
            }
            let body = l.trim_end_matches(';');
            let (guard, body) = match body.strip_prefix('@') {
                Some(g) => {
                    let (pred, rest) = g.split_once(' ').ok_or_else(|| err(n, "bad guard"))?;
                    let (neg, pred) = match pred.strip_prefix('!') {
                        Some(x) => (true, x),
                        None => (false, pred),
                    };
                    (Some((p.reg(pred), neg)), rest.trim())
                }
                None => (None, body),
            };
            let (opcode, args) = match body.split_once(' ') {
                Some((o, a)) => (o, a),
                None => (body, ""),
            };
            let kind = decode(opcode, n)?;
            let mut ops = Vec::new();
            let mut label = None;
            for a in split_operands(args) {
                let (o, l) = p.operand(&a, n)?;
                if l.is_some() {
                    label = l;
                }
                ops.push(o);
            }
            p.code.push((
                Inst {
                    guard,
                    kind,
                    ops,
                    text: l.to_string(),
                },
                label,
            ));
        }
        let mut code = Vec::with_capacity(p.code.len());
        for (mut inst, label) in p.code {
            if let Some(l) = label {
                let at = *p
                    .labels
                    .get(&l)
                    .ok_or_else(|| err(i, format!("label {l} is never placed")))?;
                for o in &mut inst.ops {
                    if let Src::Label(t) = o {
                        *t = at;
                    }
                }
            }
            code.push(inst);
        }
        module.entries.push(Entry {
            name,
            params: p.params,
            regs: p.regs.len(),
            shared_bytes: p.shared_bytes,
            code,
        });
        i += 1;
    }
    Ok(module)
}
