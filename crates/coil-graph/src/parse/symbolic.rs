//! Graph files with symbolic sizes, as PyTorch prints a dynamic graph: size placeholders
//! (`s0: "Sym(s0)"`), shapes over the symbols (`"f32[s0, 64]"`, `"f32[2*s0 + 1]"`), size
//! values (`sym_size_int: "Sym(s0)" = torch.ops.aten.sym_size.int(x, 0)`,
//! `mul: "Sym(2*s0)" = sym_size_int * 2`) and checks on them (`_assert_scalar`).
//!
//! coil reads such a graph for one binding of its symbols ([`Bindings`], from the inputs'
//! sizes: [`bind_inputs`]): every size is then a number, a size value a constant, a check run
//! once. The graph it gives is static; kernels that take their sizes at run time are issue
//! "Dynamic shapes"'s remaining work.

use std::collections::BTreeMap;
use std::fmt;

use super::lex::{TokKind, lex_line};
use crate::GraphError;

/// Values of a graph's size symbols (`s0 = 8`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings(BTreeMap<String, i64>);

impl Bindings {
    /// No symbol bound.
    pub fn new() -> Bindings {
        Bindings::default()
    }

    /// Binds `symbol` to `value`.
    pub fn insert(&mut self, symbol: &str, value: i64) {
        self.0.insert(symbol.to_string(), value);
    }

    /// The value of `symbol`.
    pub fn get(&self, symbol: &str) -> Option<i64> {
        self.0.get(symbol).copied()
    }

    /// Every symbol and its value, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64)> {
        self.0.iter().map(|(k, v)| (k.as_str(), *v))
    }
}

impl fmt::Display for Bindings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(f, "{}", parts.join(", "))
    }
}

/// Whether `text` has symbolic sizes: a `Sym(...)` annotation, or a shape with a name in it.
pub fn is_symbolic(text: &str) -> bool {
    text.contains("\"Sym(") || def_params(text).is_ok_and(|ps| ps.iter().any(|p| p.symbolic()))
}

/// One parameter of `forward` and its annotation.
struct Param {
    name: String,
    annotation: String,
    line: usize,
    col: usize,
}

impl Param {
    /// The size expressions of a tensor annotation (`"f32[s0, 64]"`), `None` for a `Sym(...)`.
    fn dims(&self) -> Option<Vec<String>> {
        let a = &self.annotation;
        if a.starts_with("Sym(") {
            return None;
        }
        let open = a.find('[')?;
        let body = a[open + 1..].strip_suffix(']')?;
        if body.trim().is_empty() {
            return Some(Vec::new());
        }
        Some(body.split(',').map(|d| d.trim().to_string()).collect())
    }

    fn symbolic(&self) -> bool {
        self.annotation.starts_with("Sym(")
            || self
                .dims()
                .is_some_and(|ds| ds.iter().any(|d| !d.chars().all(|c| c.is_ascii_digit())))
    }
}

/// The parameters of the `def forward(self, ...)` line.
fn def_params(text: &str) -> Result<Vec<Param>, GraphError> {
    for (index, raw) in text.lines().enumerate() {
        if !raw.trim_start().starts_with("def forward") {
            continue;
        }
        let toks = lex_line(raw, index + 1)?;
        let mut params = Vec::new();
        for w in toks.windows(3) {
            if let (TokKind::Ident(name), TokKind::Punct(':'), TokKind::Str { value, .. }) =
                (&w[0].kind, &w[1].kind, &w[2].kind)
            {
                params.push(Param {
                    name: name.clone(),
                    annotation: value.clone(),
                    line: index + 1,
                    col: w[2].col,
                });
            }
        }
        return Ok(params);
    }
    Ok(Vec::new())
}

/// The names of `text`'s tensor inputs, in order (its size inputs, `Sym(...)`, left out): the
/// order [`bind_inputs`] takes their sizes in.
pub fn tensor_inputs(text: &str) -> Result<Vec<String>, GraphError> {
    Ok(def_params(text)?
        .into_iter()
        .filter(|p| p.dims().is_some())
        .map(|p| p.name)
        .collect())
}

/// The symbols of `text`'s inputs bound to `sizes`, the sizes of its tensor inputs in order:
/// a dim that is a bare symbol binds it (the same symbol twice must get the same size), a dim
/// that is an expression must equal its value. Errors name the input and what disagrees.
pub fn bind_inputs(text: &str, sizes: &[Vec<usize>]) -> Result<Bindings, GraphError> {
    let params = def_params(text)?;
    let tensors: Vec<&Param> = params.iter().filter(|p| p.dims().is_some()).collect();
    let err = |p: &Param, msg: String| GraphError::Parse {
        line: p.line,
        col: p.col,
        msg,
    };
    if tensors.len() != sizes.len() {
        return Err(GraphError::Shape(format!(
            "the graph takes {} tensor inputs, {} given",
            tensors.len(),
            sizes.len()
        )));
    }
    let mut b = Bindings::new();
    let mut later = Vec::new();
    for (p, got) in tensors.iter().zip(sizes) {
        let dims = p.dims().unwrap_or_default();
        if dims.len() != got.len() {
            return Err(err(
                p,
                format!(
                    "input '{}' is {}-d ({}), the tensor given is {}-d {got:?}",
                    p.name,
                    dims.len(),
                    p.annotation,
                    got.len()
                ),
            ));
        }
        for (d, &n) in dims.iter().zip(got) {
            if is_name(d) {
                match b.get(d) {
                    Some(v) if v != n as i64 => {
                        return Err(err(
                            p,
                            format!(
                                "input '{}': {d} is {v} in an earlier input but {n} here",
                                p.name
                            ),
                        ));
                    }
                    _ => b.insert(d, n as i64),
                }
            } else {
                later.push((*p, d.clone(), n));
            }
        }
    }
    for (p, d, n) in later {
        let v = eval(&d, &b).map_err(|m| err(p, format!("input '{}': {m}", p.name)))?;
        if v != n as i64 {
            return Err(err(
                p,
                format!(
                    "input '{}': size {d} is {v}, the tensor given has {n}",
                    p.name
                ),
            ));
        }
    }
    for p in params.iter().filter(|p| p.dims().is_none()) {
        let inner = p.annotation["Sym(".len()..].trim_end_matches(')');
        eval(inner, &b).map_err(|m| {
            err(
                p,
                format!(
                    "size input '{}' ({}): {m}; it is no input's dim",
                    p.name, p.annotation
                ),
            )
        })?;
    }
    Ok(b)
}

fn is_name(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The value of a size expression as PyTorch prints them (sympy's): integers, symbols,
/// `+ - * // %`, `/` of exact multiples, parentheses, `Max(a, b)`, `Min(a, b)`, and the
/// comparisons `== != < <= > >=` (1 or 0).
pub fn eval(expr: &str, b: &Bindings) -> Result<i64, String> {
    let toks = tokens(expr)?;
    let mut p = ExprParser {
        toks: &toks,
        pos: 0,
        b,
    };
    let v = p.comparison()?;
    if p.pos != toks.len() {
        return Err(format!(
            "unexpected '{}' in size expression '{expr}'",
            toks[p.pos]
        ));
    }
    Ok(v)
}

fn tokens(expr: &str) -> Result<Vec<String>, String> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(chars[start..i].iter().collect());
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            if ["//", "==", "!=", "<=", ">="].contains(&two.as_str()) {
                out.push(two);
                i += 2;
            } else if "+-*/%()<>,".contains(c) {
                out.push(c.to_string());
                i += 1;
            } else {
                return Err(format!("unexpected '{c}' in size expression '{expr}'"));
            }
        }
    }
    Ok(out)
}

struct ExprParser<'a> {
    toks: &'a [String],
    pos: usize,
    b: &'a Bindings,
}

impl ExprParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.pos).map(String::as_str)
    }

    fn eat(&mut self, t: &str) -> bool {
        let hit = self.peek() == Some(t);
        self.pos += usize::from(hit);
        hit
    }

    fn comparison(&mut self) -> Result<i64, String> {
        let a = self.sum()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                let b = self.sum()?;
                let r = match op {
                    "==" => a == b,
                    "!=" => a != b,
                    "<=" => a <= b,
                    ">=" => a >= b,
                    "<" => a < b,
                    _ => a > b,
                };
                return Ok(i64::from(r));
            }
        }
        Ok(a)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        loop {
            if self.eat("+") {
                v = v.checked_add(self.product()?).ok_or("size overflow")?;
            } else if self.eat("-") {
                v = v.checked_sub(self.product()?).ok_or("size overflow")?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        loop {
            if self.eat("*") {
                v = v.checked_mul(self.unary()?).ok_or("size overflow")?;
            } else if self.eat("//") || self.eat("/") {
                let d = self.unary()?;
                if d == 0 {
                    return Err("division by zero in a size".into());
                }
                v = v.div_euclid(d);
            } else if self.eat("%") {
                let d = self.unary()?;
                if d == 0 {
                    return Err("modulo by zero in a size".into());
                }
                v = v.rem_euclid(d);
            } else {
                return Ok(v);
            }
        }
    }

    fn unary(&mut self) -> Result<i64, String> {
        if self.eat("-") {
            return Ok(-self.unary()?);
        }
        let Some(t) = self.peek().map(str::to_string) else {
            return Err("a size expression ends early".into());
        };
        self.pos += 1;
        if t == "(" {
            let v = self.comparison()?;
            return if self.eat(")") {
                Ok(v)
            } else {
                Err("missing ')' in a size expression".into())
            };
        }
        if (t == "Max" || t == "Min") && self.eat("(") {
            let mut vals = vec![self.comparison()?];
            while self.eat(",") {
                vals.push(self.comparison()?);
            }
            if !self.eat(")") {
                return Err(format!("missing ')' after {t}(...)"));
            }
            let pick = if t == "Max" {
                vals.iter().max()
            } else {
                vals.iter().min()
            };
            return Ok(*pick.expect("one value at least"));
        }
        if t.chars().all(|c| c.is_ascii_digit()) {
            return t.parse().map_err(|_| format!("size {t} is too large"));
        }
        if is_name(&t) {
            return self
                .b
                .get(&t)
                .ok_or_else(|| format!("symbol '{t}' has no value"));
        }
        Err(format!("unexpected '{t}' in a size expression"))
    }
}

/// A line of a bound graph that is about sizes alone, recognised before lexing (its right-hand
/// side may hold `*`, `>=` and other operators the op-call subset has no tokens for).
pub(super) enum SizeLine {
    /// `name: "Sym(expr)" = ...`: `name` is the value of `expr`.
    Value { name: String, expr: String },
    /// `torch.ops.aten._assert_scalar.default(cond, "msg")` (or a range constraint): a check
    /// of sizes, `cond` a size name.
    Check { cond: String, msg: String },
    /// `torch.ops.aten.sym_constrain_range*(...)`: nothing to do for a binding.
    Skip,
}

/// What `raw` is, when it is a size line.
pub(super) fn size_line(raw: &str) -> Option<SizeLine> {
    let t = raw.trim();
    let rhs = t.split_once(" = ").map_or(t, |(_, r)| r);
    if rhs.starts_with("torch.ops.aten._assert_scalar.default(") {
        let args = rhs.trim_start_matches("torch.ops.aten._assert_scalar.default(");
        let (cond, rest) = args.split_once(',')?;
        let msg = rest
            .split(')')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches('"');
        return Some(SizeLine::Check {
            cond: cond.trim().to_string(),
            msg: msg.to_string(),
        });
    }
    if rhs.starts_with("torch.ops.aten.sym_constrain_range") {
        return Some(SizeLine::Skip);
    }
    let (lhs, _) = t.split_once(" = ")?;
    let (name, ann) = lhs.split_once(':')?;
    let ann = ann.trim().trim_matches('"');
    let expr = ann.strip_prefix("Sym(")?.strip_suffix(')')?;
    Some(SizeLine::Value {
        name: name.trim().to_string(),
        expr: expr.to_string(),
    })
}
