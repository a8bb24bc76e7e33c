//! The kernel IR's text reader: the inverse of [`Kernel`]'s `Display`.
//!
//! It reads one or more kernels, each a header line (`kernel NAME (pointwise) ranges=[16]
//! reduction_ranges=[]`), argument lines (`arg0 x: f32[1024] in`), stage headers (`outer:`,
//! `reduction loop:`) and each stage's value lines (`v3: f32 = add(v1, v2)`), accumulator lines
//! (`acc0: f32 = sum(v3)`) and store lines (`store arg1[p0] = v4`), with index expressions in
//! sympy's spelling (`64*(p0//16) + ModularIndexing(p1, 1, 16)`, `8*ind3 + p1`). Blank lines,
//! lines starting with `#` and trailing spaces are skipped. Every kernel read is checked with
//! [`Kernel::verify`]; every error carries the 1-based line and column of the offending token.

use std::collections::{BTreeMap, HashSet};
use std::str::FromStr;

use crate::kernel::{
    AccId, Accumulator, ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelKind, Stage, StageKind,
    Store, StoreMode, ValueId,
};
use crate::{Const, DType, IndexExpr, Op, ReductionType, Term, Var, VarPrefix};

/// Malformed kernel text, with its line and column (1-based).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {col}: {msg}")]
pub struct ReadError {
    /// The line.
    pub line: usize,
    /// The column.
    pub col: usize,
    /// What was wrong.
    pub msg: String,
}

type Result<T> = std::result::Result<T, ReadError>;

/// The deepest nesting of parentheses an index may have (deeper text is an error, not a stack
/// overflow).
const MAX_DEPTH: usize = 32;

/// The largest magnitude an index expression may reach over its variables' ranges, so that the
/// verifier's bounds arithmetic (in `i128`) cannot overflow.
const MAX_MAGNITUDE: i128 = 1 << 100;

/// The magnitude assumed for a variable of unknown range (the verifier's assumption).
const UNKNOWN: i128 = 1 << 62;

/// Reads kernels as [`crate::Kernel`]'s `Display` prints them, separated by blank lines.
///
/// Each kernel is verified ([`Kernel::verify`]); its value ids must be exactly `0..n`, each
/// defined before it is used.
pub fn parse_kernels(text: &str) -> std::result::Result<Vec<crate::Kernel>, ReadError> {
    let mut kernels = Vec::new();
    let mut draft: Option<Draft> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        let body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let mut c = Cur {
            s: line,
            pos: 0,
            line: i + 1,
        };
        if c.peek_word() == "kernel" {
            if let Some(d) = draft.take() {
                kernels.push(d.finish()?);
            }
            draft = Some(Draft::header(&mut c)?);
        } else if let Some(d) = draft.as_mut() {
            d.statement(&mut c)?;
        } else {
            return Err(c.err("expected a `kernel` header"));
        }
    }
    if let Some(d) = draft {
        kernels.push(d.finish()?);
    }
    Ok(kernels)
}

/// `word` without `prefix`, when the rest is a non-empty run of digits (`v12` -> `12`).
fn numbered<'w>(word: &'w str, prefix: &str) -> Option<&'w str> {
    word.strip_prefix(prefix)
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The number of a numbered word (`acc3` -> 3), or an error at `at`.
fn id_number(c: &Cur<'_>, word: &str, at: usize, prefix: &str) -> Result<u32> {
    let digits = numbered(word, prefix)
        .ok_or_else(|| c.err_at(at, format!("expected `{prefix}<n>`, found `{word}`")))?;
    digits
        .parse()
        .map_err(|_| c.err_at(at, format!("`{word}`: number out of range")))
}

/// A reduction type by name.
fn reduction(name: &str) -> Option<ReductionType> {
    ReductionType::from_name(name)
}

/// An upper bound of `|e|` over its variables' ranges (`range` gives a variable's), and of every
/// subexpression's.
fn magnitude(e: &IndexExpr, range: &impl Fn(Var) -> i128) -> i128 {
    let base = i128::from(e.constant_part().unsigned_abs());
    e.terms().iter().fold(base, |acc, (t, c)| {
        let m = match t {
            Term::Var(v) => range(*v),
            Term::FloorDiv(inner, _) => magnitude(inner, range),
            Term::ModularIndexing(inner, _, m) => magnitude(inner, range).max(i128::from(*m)),
            // A size parameter's value is not known (the text has none: only generalized
            // kernels, which no file holds, do).
            Term::SizeTimes(..) => UNKNOWN,
        };
        acc.saturating_add(m.saturating_mul(i128::from(c.unsigned_abs())))
    })
}

/// A cursor over one line.
struct Cur<'a> {
    s: &'a str,
    pos: usize,
    line: usize,
}

impl<'a> Cur<'a> {
    /// An error at byte offset `at` of the line.
    fn err_at(&self, at: usize, msg: impl Into<String>) -> ReadError {
        let col = self.s.get(..at).map_or(at, |p| p.chars().count()) + 1;
        ReadError {
            line: self.line,
            col,
            msg: msg.into(),
        }
    }

    /// An error at the next token.
    fn err(&mut self, msg: impl Into<String>) -> ReadError {
        self.skip_ws();
        self.err_at(self.pos, msg)
    }

    fn rest(&self) -> &'a str {
        self.s.get(self.pos..).unwrap_or("")
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The next run of characters not matching `stop`, and where it starts.
    fn token(&mut self, stop: impl Fn(char) -> bool) -> (&'a str, usize) {
        self.skip_ws();
        let (rest, at) = (self.rest(), self.pos);
        let len = rest.find(stop).unwrap_or(rest.len());
        self.pos += len;
        (&rest[..len], at)
    }

    /// The next word (ASCII letters, digits, `_`; maybe empty), and where it starts.
    fn word(&mut self) -> (&'a str, usize) {
        self.token(|ch| !(ch.is_ascii_alphanumeric() || ch == '_'))
    }

    fn peek_word(&mut self) -> &'a str {
        let save = self.pos;
        let (w, _) = self.word();
        self.pos = save;
        w
    }

    /// Consumes `tok` if it comes next.
    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        let found = self.rest().starts_with(tok);
        if found {
            self.pos += tok.len();
        }
        found
    }

    /// Consumes the word `w` if it comes next.
    fn eat_word(&mut self, w: &str) -> bool {
        let found = self.peek_word() == w;
        if found {
            self.word();
        }
        found
    }

    fn expect(&mut self, tok: &str) -> Result<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{tok}`")))
        }
    }

    fn expect_word(&mut self, w: &str) -> Result<()> {
        match self.word() {
            (got, _) if got == w => Ok(()),
            (_, at) => Err(self.err_at(at, format!("expected `{w}`"))),
        }
    }

    /// An unsigned decimal number.
    fn number<T: FromStr>(&mut self) -> Result<T> {
        let (digits, at) = self.token(|ch| !ch.is_ascii_digit());
        if digits.is_empty() {
            return Err(self.err_at(at, "expected a number"));
        }
        digits
            .parse()
            .map_err(|_| self.err_at(at, format!("number {digits} out of range")))
    }

    /// A number `> 0` that fits an `i64`.
    fn positive(&mut self) -> Result<i64> {
        self.skip_ws();
        let at = self.pos;
        match self.number::<i64>()? {
            n if n > 0 => Ok(n),
            _ => Err(self.err_at(at, "expected a positive number")),
        }
    }

    /// Nothing but spaces left.
    fn end(&mut self) -> Result<()> {
        self.skip_ws();
        if self.rest().is_empty() {
            Ok(())
        } else {
            Err(self.err("expected the end of the line"))
        }
    }

    fn dtype(&mut self) -> Result<DType> {
        let (name, at) = self.word();
        DType::from_short_name(name)
            .ok_or_else(|| self.err_at(at, format!("unknown dtype `{name}`")))
    }

    /// `key=[a, b, ..]`, whose product must fit a `usize`.
    fn sizes(&mut self, key: &str) -> Result<Vec<usize>> {
        self.expect_word(key)?;
        self.expect("=")?;
        self.skip_ws();
        let at = self.pos;
        self.expect("[")?;
        let mut out = Vec::new();
        if !self.eat("]") {
            loop {
                out.push(self.number()?);
                if self.eat("]") {
                    break;
                }
                self.expect(",")?;
            }
        }
        if out
            .iter()
            .try_fold(1usize, |p, &s| p.checked_mul(s))
            .is_none()
        {
            return Err(self.err_at(at, format!("{key} overflow: their product is too large")));
        }
        Ok(out)
    }

    /// A constant: `True`/`False`, an integer (no `.`, `e`, `inf` or `nan`), else a float.
    fn constant(&mut self) -> Result<Const> {
        let (tok, at) = self.token(char::is_whitespace);
        let digits = tok.strip_prefix('-').unwrap_or(tok);
        let value = match tok {
            "" => return Err(self.err_at(at, "expected a constant")),
            "True" => Const::Bool(true),
            "False" => Const::Bool(false),
            _ if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => Const::Int(
                tok.parse()
                    .map_err(|_| self.err_at(at, "integer constant out of range"))?,
            ),
            _ => Const::Float(
                tok.parse()
                    .map_err(|_| self.err_at(at, format!("bad constant `{tok}`")))?,
            ),
        };
        Ok(value)
    }
}

/// A kernel being read.
struct Draft {
    /// The header's line.
    line: usize,
    name: String,
    kind: KernelKind,
    ranges: Vec<usize>,
    reduction_ranges: Vec<usize>,
    args: Vec<KernelArg>,
    /// The values read so far, by id.
    values: BTreeMap<u32, (KExpr, DType)>,
    /// The accumulators read so far.
    accs: HashSet<u32>,
    stages: Vec<Stage>,
}

impl Draft {
    /// `kernel NAME (KIND) ranges=[..] reduction_ranges=[..]`.
    fn header(c: &mut Cur<'_>) -> Result<Draft> {
        c.expect_word("kernel")?;
        let (name, at) = c.token(char::is_whitespace);
        if name.is_empty() {
            return Err(c.err_at(at, "expected a kernel name"));
        }
        c.expect("(")?;
        let kind = match c.word() {
            ("pointwise", _) => KernelKind::Pointwise,
            ("persistent", _) => KernelKind::Reduction { persistent: true },
            ("looped", _) => KernelKind::Reduction { persistent: false },
            (_, at) => {
                return Err(c.err_at(
                    at,
                    "expected `pointwise`, `persistent reduction` or `looped reduction`",
                ));
            }
        };
        if kind != KernelKind::Pointwise {
            c.expect_word("reduction")?;
        }
        c.expect(")")?;
        let ranges = c.sizes("ranges")?;
        let reduction_ranges = c.sizes("reduction_ranges")?;
        c.end()?;
        Ok(Draft {
            line: c.line,
            name: name.to_string(),
            kind,
            ranges,
            reduction_ranges,
            args: Vec::new(),
            values: BTreeMap::new(),
            accs: HashSet::new(),
            stages: Vec::new(),
        })
    }

    /// Checks the value ids and verifies the kernel.
    fn finish(self) -> Result<Kernel> {
        let err = |msg: String| ReadError {
            line: self.line,
            col: 1,
            msg,
        };
        let mut values = Vec::with_capacity(self.values.len());
        for (i, (id, v)) in self.values.into_iter().enumerate() {
            if id as usize != i {
                return Err(err(format!("v{i} is never defined")));
            }
            values.push(v);
        }
        let kernel = Kernel {
            name: self.name,
            kind: self.kind,
            ranges: self.ranges,
            reduction_ranges: self.reduction_ranges,
            args: self.args,
            values,
            stages: self.stages,
        };
        kernel.verify().map_err(|e| err(e.to_string()))?;
        Ok(kernel)
    }

    /// One line of the kernel's body.
    fn statement(&mut self, c: &mut Cur<'_>) -> Result<()> {
        let (w, at) = c.word();
        match w {
            "outer" | "reduction" => self.stage(c, w),
            "store" => self.store(c, at, StoreMode::Set),
            "atomic_add" => self.store(c, at, StoreMode::AtomicAdd),
            _ if numbered(w, "arg").is_some() => self.arg(c, w, at),
            _ if numbered(w, "acc").is_some() => self.accumulator(c, w, at),
            _ if numbered(w, "v").is_some() => self.value(c, w, at),
            _ => Err(c.err_at(
                at,
                "expected an argument, a stage header, a value, an accumulator or a store",
            )),
        }
    }

    /// `outer:` or `reduction loop:` (the first word read).
    fn stage(&mut self, c: &mut Cur<'_>, w: &str) -> Result<()> {
        let kind = if w == "outer" {
            StageKind::Outer
        } else {
            c.expect_word("loop")?;
            StageKind::Reduction
        };
        c.expect(":")?;
        c.end()?;
        self.stages.push(Stage {
            kind,
            values: vec![],
            accumulators: vec![],
            stores: vec![],
        });
        Ok(())
    }

    /// An error unless a stage has begun.
    fn need_stage(&self, c: &Cur<'_>, at: usize) -> Result<()> {
        if self.stages.is_empty() {
            return Err(c.err_at(
                at,
                "expected a stage header (`outer:` or `reduction loop:`) first",
            ));
        }
        Ok(())
    }

    /// `argN name: dtype[len] role` (the first word read).
    fn arg(&mut self, c: &mut Cur<'_>, w: &str, at: usize) -> Result<()> {
        let n = id_number(c, w, at, "arg")?;
        if !self.stages.is_empty() {
            return Err(c.err_at(at, "arguments come before the stages"));
        }
        if n as usize != self.args.len() {
            return Err(c.err_at(at, format!("expected arg{}", self.args.len())));
        }
        let (name, name_at) = c.token(|ch| ch.is_whitespace() || ch == ':');
        if name.is_empty() {
            return Err(c.err_at(name_at, "expected an argument name"));
        }
        c.expect(":")?;
        let dtype = c.dtype()?;
        c.expect("[")?;
        let len = c.number()?;
        c.expect("]")?;
        let role = match c.word() {
            ("in", _) => ArgRole::Input,
            ("out", _) => ArgRole::Output,
            ("inout", _) => ArgRole::InOut,
            (_, at) => return Err(c.err_at(at, "expected `in`, `out` or `inout`")),
        };
        c.end()?;
        self.args.push(KernelArg {
            name: name.to_string(),
            dtype,
            len,
            role,
        });
        Ok(())
    }

    /// `vN: dtype = rhs` (the first word read).
    fn value(&mut self, c: &mut Cur<'_>, w: &str, at: usize) -> Result<()> {
        let id = id_number(c, w, at, "v")?;
        self.need_stage(c, at)?;
        if self.values.contains_key(&id) {
            return Err(c.err_at(at, format!("v{id} is defined twice")));
        }
        c.expect(":")?;
        let dtype = c.dtype()?;
        c.expect("=")?;
        let expr = self.rhs(c)?;
        c.end()?;
        self.values.insert(id, (expr, dtype));
        if let Some(s) = self.stages.last_mut() {
            s.values.push(ValueId(id));
        }
        Ok(())
    }

    /// `accN: dtype = reduction(vM)` (the first word read).
    fn accumulator(&mut self, c: &mut Cur<'_>, w: &str, at: usize) -> Result<()> {
        let id = id_number(c, w, at, "acc")?;
        self.need_stage(c, at)?;
        if !self.accs.insert(id) {
            return Err(c.err_at(at, format!("acc{id} is defined twice")));
        }
        c.expect(":")?;
        let dtype = c.dtype()?;
        c.expect("=")?;
        let (name, name_at) = c.word();
        let reduction_type = reduction(name)
            .ok_or_else(|| c.err_at(name_at, format!("unknown reduction `{name}`")))?;
        c.expect("(")?;
        let value = self.value_ref(c)?;
        c.expect(")")?;
        c.end()?;
        if let Some(s) = self.stages.last_mut() {
            s.accumulators.push(Accumulator {
                id: AccId(id),
                reduction_type,
                value,
                dtype,
            });
        }
        Ok(())
    }

    /// `store argK[index] = vN` or `atomic_add argK[index] = vN` (the word read, at `at`).
    fn store(&mut self, c: &mut Cur<'_>, at: usize, mode: StoreMode) -> Result<()> {
        self.need_stage(c, at)?;
        let arg = self.arg_ref(c)?;
        c.expect("[")?;
        let index = self.index(c)?;
        c.expect("]")?;
        c.expect("=")?;
        let value = self.value_ref(c)?;
        c.end()?;
        if let Some(s) = self.stages.last_mut() {
            s.stores.push(Store {
                arg,
                index,
                value,
                mode,
            });
        }
        Ok(())
    }

    /// The right-hand side of a value line.
    fn rhs(&self, c: &mut Cur<'_>) -> Result<KExpr> {
        let (w, at) = c.word();
        match w {
            "load" => self.load(c),
            "const" => c.constant().map(KExpr::Const),
            "index" => self.index(c).map(KExpr::Index),
            "cast" => self.value_ref(c).map(KExpr::Cast),
            "bitcast" => self.value_ref(c).map(KExpr::Bitcast),
            "indirect" => self.indirect(c),
            _ if numbered(w, "acc").is_some() => self.acc_ref(c, w, at).map(KExpr::Acc),
            _ => self.call(c, w, at),
        }
    }

    /// `argK[index]` or `argK[index] if vM` (`load` read).
    fn load(&self, c: &mut Cur<'_>) -> Result<KExpr> {
        let arg = self.arg_ref(c)?;
        c.expect("[")?;
        let index = self.index(c)?;
        c.expect("]")?;
        let mask = if c.eat_word("if") {
            Some(self.value_ref(c)?)
        } else {
            None
        };
        Ok(KExpr::Load { arg, index, mask })
    }

    /// `(vN, size=S[, wrap], check=argK[C])` (`indirect` read).
    fn indirect(&self, c: &mut Cur<'_>) -> Result<KExpr> {
        c.expect("(")?;
        let value = self.value_ref(c)?;
        c.expect(",")?;
        c.expect_word("size")?;
        c.expect("=")?;
        let size = c.number()?;
        c.expect(",")?;
        let wrap_negative = c.eat_word("wrap");
        if wrap_negative {
            c.expect(",")?;
        }
        c.expect_word("check")?;
        c.expect("=")?;
        let flags = self.arg_ref(c)?;
        c.expect("[")?;
        let check = c.number()?;
        c.expect("]")?;
        c.expect(")")?;
        Ok(KExpr::IndirectIndex {
            value,
            size,
            wrap_negative,
            flags,
            check,
        })
    }

    /// `op(operands..)` or `scan_<type>(vN)`, the name `w` (at `at`) read.
    fn call(&self, c: &mut Cur<'_>, w: &str, at: usize) -> Result<KExpr> {
        if let Some(name) = w.strip_prefix("scan_") {
            let scan_type =
                reduction(name).ok_or_else(|| c.err_at(at, format!("unknown scan `{w}`")))?;
            return match self.operands(c)?.as_slice() {
                &[value] => Ok(KExpr::Scan { scan_type, value }),
                _ => Err(c.err_at(at, "a scan takes one operand")),
            };
        }
        let Some(op) = Op::from_name(w) else {
            let msg = if w.is_empty() {
                "expected an expression".to_string()
            } else {
                format!("unknown op `{w}`")
            };
            return Err(c.err_at(at, msg));
        };
        let operands = self.operands(c)?;
        match (op.arity(), operands.as_slice()) {
            (1, &[a]) => Ok(KExpr::Unary(op, a)),
            (2, &[a, b]) => Ok(KExpr::Binary(op, a, b)),
            (3, &[x, a, b]) => Ok(KExpr::Where(x, a, b)),
            (n, found) => Err(c.err_at(at, format!("{w} takes {n} operands, not {}", found.len()))),
        }
    }

    /// `(vA, vB, ..)`.
    fn operands(&self, c: &mut Cur<'_>) -> Result<Vec<ValueId>> {
        c.expect("(")?;
        let mut out = vec![self.value_ref(c)?];
        while c.eat(",") {
            out.push(self.value_ref(c)?);
        }
        c.expect(")")?;
        Ok(out)
    }

    /// `vN`, defined above.
    fn value_ref(&self, c: &mut Cur<'_>) -> Result<ValueId> {
        let (w, at) = c.word();
        let id = id_number(c, w, at, "v")?;
        if !self.values.contains_key(&id) {
            return Err(c.err_at(at, format!("v{id} is used before it is defined")));
        }
        Ok(ValueId(id))
    }

    /// `argK`, an argument of the kernel.
    fn arg_ref(&self, c: &mut Cur<'_>) -> Result<ArgId> {
        let (w, at) = c.word();
        let id = id_number(c, w, at, "arg")?;
        if id as usize >= self.args.len() {
            return Err(c.err_at(at, format!("unknown argument arg{id}")));
        }
        Ok(ArgId(id))
    }

    /// `accN` (the word `w`, at `at`), defined above.
    fn acc_ref(&self, c: &Cur<'_>, w: &str, at: usize) -> Result<AccId> {
        let id = id_number(c, w, at, "acc")?;
        if !self.accs.contains(&id) {
            return Err(c.err_at(at, format!("acc{id} is used before it is defined")));
        }
        Ok(AccId(id))
    }

    /// An index expression, small enough for the verifier's arithmetic.
    fn index(&self, c: &mut Cur<'_>) -> Result<IndexExpr> {
        c.skip_ws();
        let at = c.pos;
        let e = self.sum(c, 0)?;
        if magnitude(&e, &|v| self.var_range(v)) > MAX_MAGNITUDE {
            return Err(c.err_at(at, "index expression too large"));
        }
        Ok(e)
    }

    /// The range of a variable, as far as the kernel read so far knows.
    fn var_range(&self, v: Var) -> i128 {
        let range = match v.prefix {
            VarPrefix::P => self
                .ranges
                .iter()
                .chain(&self.reduction_ranges)
                .nth(v.n as usize)
                .copied(),
            VarPrefix::Ind => match self.values.get(&v.n) {
                Some((KExpr::IndirectIndex { size, .. }, _)) => Some(*size),
                _ => None,
            },
            VarPrefix::D | VarPrefix::S => None,
        };
        range.map_or(UNKNOWN, |r| r as i128)
    }

    /// `[-]summand (+|- summand)*`.
    fn sum(&self, c: &mut Cur<'_>, depth: usize) -> Result<IndexExpr> {
        if depth > MAX_DEPTH {
            return Err(c.err("index expression nested too deeply"));
        }
        let mut sign = if c.eat("-") { -1 } else { 1 };
        let mut acc = IndexExpr::zero();
        loop {
            acc = acc.add(&self.summand(c, sign, depth)?);
            sign = if c.eat("+") {
                1
            } else if c.eat("-") {
                -1
            } else {
                return Ok(acc);
            };
        }
    }

    /// `k`, `k*atom` or `atom`, times `sign`.
    fn summand(&self, c: &mut Cur<'_>, sign: i128, depth: usize) -> Result<IndexExpr> {
        c.skip_ws();
        let at = c.pos;
        if !c.rest().starts_with(|ch: char| ch.is_ascii_digit()) {
            return Ok(self.atom(c, depth)?.scale(sign as i64));
        }
        let k = i64::try_from(sign * c.number::<i128>()?)
            .map_err(|_| c.err_at(at, "number out of range"))?;
        if c.eat("*") {
            Ok(self.atom(c, depth)?.scale(k))
        } else {
            Ok(IndexExpr::constant(k))
        }
    }

    /// A variable, `(e)`, `(e//k)` or `ModularIndexing(e, d, m)`.
    fn atom(&self, c: &mut Cur<'_>, depth: usize) -> Result<IndexExpr> {
        if c.eat("(") {
            let inner = self.sum(c, depth + 1)?;
            let e = if c.eat("//") {
                inner.floor_div(c.positive()?)
            } else {
                inner
            };
            c.expect(")")?;
            return Ok(e);
        }
        let (w, at) = c.word();
        if w == "ModularIndexing" {
            c.expect("(")?;
            let e = self.sum(c, depth + 1)?;
            c.expect(",")?;
            let div = c.positive()?;
            c.expect(",")?;
            let m = c.positive()?;
            c.expect(")")?;
            return Ok(e.modular(div, m));
        }
        self.index_var(c, w, at).map(IndexExpr::var)
    }

    /// `pN`, `dN` or `indN` (the word `w`, at `at`); `indN` must name an indirect index above.
    fn index_var(&self, c: &Cur<'_>, w: &str, at: usize) -> Result<Var> {
        let (prefix, digits) = if let Some(d) = numbered(w, "ind") {
            (VarPrefix::Ind, d)
        } else if let Some(d) = numbered(w, "p") {
            (VarPrefix::P, d)
        } else if let Some(d) = numbered(w, "d") {
            (VarPrefix::D, d)
        } else {
            return Err(c.err_at(at, "expected an index variable, a number or `(`"));
        };
        let n: u32 = digits
            .parse()
            .map_err(|_| c.err_at(at, format!("`{w}`: number out of range")))?;
        if prefix == VarPrefix::Ind {
            match self.values.get(&n) {
                None => return Err(c.err_at(at, format!("{w}: v{n} is used before it is defined"))),
                Some((KExpr::IndirectIndex { .. }, _)) => {}
                Some(_) => return Err(c.err_at(at, format!("{w}: v{n} is not an indirect index"))),
            }
        }
        Ok(Var { prefix, n })
    }
}
