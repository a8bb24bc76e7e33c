//! Parser for PyTorch's readable FX graph text (`graph_module.print_readable()`), the Python
//! subset described in DESIGN.md section 3.
//!
//! The text is read one physical line at a time (PyTorch never splits a statement), each line
//! lexed by [`lex`] into tokens with 1-based columns counted in characters. Nodes are appended
//! through the builder's `push_call_named`/`push_getitem`, so their metas are inferred as they
//! are read; a type annotation, when present, must agree with the inferred meta. Malformed
//! text is a [`GraphError::Parse`] with its line and column, an op outside the registry is a
//! [`GraphError::UnsupportedOp`], and a call the op rejects (arguments, shapes, dtypes) is a
//! [`GraphError::AtNode`] naming the node and its line. No input makes it panic.

mod lex;
mod symbolic;

pub use symbolic::{Bindings, bind_inputs, eval as eval_size, is_symbolic, tensor_inputs};
use symbolic::{SizeLine, size_line};

use std::collections::HashMap;

use crate::builder::{push_call_named, push_getitem};
use crate::meta::checked_numel;
use crate::verify::is_identifier;
use crate::{
    Arg, Call, DType, DeviceSpec, Dims, Graph, GraphError, Layout, MemoryFormat, Node, NodeId,
    NodeKind, OpRef, TensorMeta,
};
use lex::{TokKind, Token, describe, lex_line};

/// How deeply lists may nest in an argument (`[[1, 2], [3]]` is depth 2). Bounds the
/// recursion of the parser and of everything that walks arguments later.
const MAX_NESTING: usize = 32;

/// Parses readable FX text into a verified graph.
///
/// Accepts the class line, `def forward(self, x: "f32[4, 8]", ...):`, blank and comment
/// lines, statements `name[: "ann"] = torch.ops.aten.<op>.<overload>(args, kw = value)` and
/// `name[: "ann"] = other[i]`, each optionally followed by FX's `;  a = b = None` clean-up, and
/// a final `return (a, b)`.
pub fn parse(text: &str) -> Result<Graph, GraphError> {
    parse_with(text, None)
}

/// [`parse`] of a graph with symbolic sizes (as PyTorch prints a dynamic graph: see
/// [`is_symbolic`]) for one binding of its symbols ([`bind_inputs`]): every size a number,
/// size placeholders and size values constants, size checks run (one that fails is an error).
pub fn parse_bound(text: &str, bindings: &Bindings) -> Result<Graph, GraphError> {
    parse_with(text, Some(bindings))
}

fn parse_with(text: &str, bindings: Option<&Bindings>) -> Result<Graph, GraphError> {
    let mut p = Parser {
        bindings: bindings.cloned(),
        ..Parser::default()
    };
    let mut stage = Stage::Class;
    let mut last = (1, 1);
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        last = (line, raw.chars().count() + 1);
        if p.bindings.is_some()
            && matches!(stage, Stage::Body { .. })
            && let Some(size) = size_line(raw)
        {
            p.size_statement(size, line, raw)?;
            continue;
        }
        let toks = lex_line(raw, line)?;
        let Some(first) = toks.first() else {
            continue; // blank or comment line
        };
        let indent = first.col - 1;
        let eol = toks.last().map_or(1, |t| t.end);
        let mut cur = Cursor {
            toks: &toks,
            pos: 0,
            line,
            eol,
        };
        stage = match stage {
            Stage::Class => {
                if indent != 0 {
                    return cur.err(first.col, "the class line must not be indented");
                }
                p.class_line(&mut cur)?;
                Stage::Def
            }
            Stage::Def => {
                if indent == 0 {
                    return cur.err(
                        first.col,
                        "expected 'def forward(self, ...):' indented inside the class",
                    );
                }
                p.def_line(&mut cur)?;
                Stage::Body {
                    def_indent: indent,
                    body_indent: None,
                }
            }
            Stage::Body {
                def_indent,
                body_indent,
            } => {
                let expected = body_indent.unwrap_or(if indent > def_indent {
                    indent
                } else {
                    def_indent + 4
                });
                if indent != expected {
                    return cur.err(
                        first.col,
                        format!(
                            "unexpected indentation: the body of forward is indented by \
                             {expected} spaces"
                        ),
                    );
                }
                if first.ident() == Some("return") {
                    p.return_line(&mut cur)?;
                    Stage::Done
                } else {
                    p.statement(&mut cur)?;
                    Stage::Body {
                        def_indent,
                        body_indent: Some(indent),
                    }
                }
            }
            Stage::Done => {
                return cur.err(
                    first.col,
                    "statement after return: return must be the last statement of forward",
                );
            }
        };
    }
    let missing = match stage {
        Stage::Done => None,
        Stage::Class => Some("empty input: expected 'class GraphModule(torch.nn.Module):'"),
        Stage::Def => Some("missing 'def forward(self, ...):' after the class line"),
        Stage::Body { .. } => Some("missing return statement at the end of forward"),
    };
    if let Some(msg) = missing {
        return Err(GraphError::Parse {
            line: last.0,
            col: last.1,
            msg: msg.into(),
        });
    }
    crate::verify(&p.graph)?;
    Ok(p.graph)
}

/// Where in the file the parser is.
#[derive(Clone, Copy)]
enum Stage {
    Class,
    Def,
    Body {
        def_indent: usize,
        body_indent: Option<usize>,
    },
    Done,
}

/// A name defined in the text.
struct Value {
    /// The node; `None` for the result of an op that returns nothing (`_assert_tensor_metadata`).
    id: Option<NodeId>,
    /// The line that defined it.
    line: usize,
    /// The line of the `name = None` that released it, if any.
    freed_at: Option<usize>,
}

#[derive(Default)]
struct Parser {
    graph: Graph,
    values: HashMap<String, Value>,
    /// The symbols' values, when the graph is read for one binding of them.
    bindings: Option<Bindings>,
    /// Names that hold sizes (a `Sym` input or value), with the binding's value.
    sizes: HashMap<String, i64>,
}

/// The tokens of one line and a position in them.
struct Cursor<'t> {
    toks: &'t [Token],
    pos: usize,
    line: usize,
    /// The column just after the last token (where "end of line" is reported).
    eol: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.toks.get(self.pos)
    }

    fn peek_at(&self, ahead: usize) -> Option<&'t Token> {
        self.toks.get(self.pos + ahead)
    }

    fn bump(&mut self) -> Option<&'t Token> {
        let t = self.toks.get(self.pos);
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// The column of the next token, or of the end of the line.
    fn col(&self) -> usize {
        self.peek().map_or(self.eol, |t| t.col)
    }

    fn error(&self, col: usize, msg: impl Into<String>) -> GraphError {
        GraphError::Parse {
            line: self.line,
            col,
            msg: msg.into(),
        }
    }

    fn err<T>(&self, col: usize, msg: impl Into<String>) -> Result<T, GraphError> {
        Err(self.error(col, msg))
    }

    /// An error about the next token: "expected {what}, found ...".
    fn unexpected<T>(&self, what: &str) -> Result<T, GraphError> {
        self.err(
            self.col(),
            format!("expected {what}, found {}", describe(self.peek())),
        )
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.peek().is_some_and(|t| t.is_punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char, context: &str) -> Result<(), GraphError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.unexpected(&format!("'{c}' {context}"))
        }
    }

    /// The next token as an identifier, with its column.
    fn expect_ident(&mut self, what: &str) -> Result<(&'t str, usize), GraphError> {
        match self.peek() {
            Some(t) => match t.ident() {
                Some(s) => {
                    self.pos += 1;
                    Ok((s, t.col))
                }
                None => self.unexpected(what),
            },
            None => self.unexpected(what),
        }
    }

    fn expect_keyword(&mut self, word: &str, context: &str) -> Result<(), GraphError> {
        if self.peek().and_then(Token::ident) == Some(word) {
            self.pos += 1;
            Ok(())
        } else {
            self.unexpected(&format!("'{word}' {context}"))
        }
    }

    fn expect_end(&self, after: &str) -> Result<(), GraphError> {
        if self.at_end() {
            Ok(())
        } else {
            self.err(
                self.col(),
                format!("unexpected {} after {after}", describe(self.peek())),
            )
        }
    }

    /// `a.b.c`: identifiers joined by dots, starting at the next token.
    fn dotted_path(&mut self, what: &str) -> Result<(Vec<&'t str>, usize), GraphError> {
        let (first, col) = self.expect_ident(what)?;
        let mut parts = vec![first];
        while self.peek().is_some_and(|t| t.is_punct('.')) {
            self.pos += 1;
            parts.push(self.expect_ident("a name after '.'")?.0);
        }
        Ok((parts, col))
    }
}

/// Python's keywords, which cannot name values (`True`, `None`, ... are rejected by
/// `is_identifier`; `inf` and `nan` are taken by the float literals).
const PYTHON_KEYWORDS: &[&str] = &[
    "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
    "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
];

/// Positional and keyword arguments of a call.
type ArgLists = (Vec<Arg>, Vec<(String, Arg)>);

/// A parsed `"f32[4, 8]"` annotation and its column.
struct Annotation {
    dtype: DType,
    sizes: Vec<usize>,
    col: usize,
}

impl Parser {
    /// `class GraphModule(torch.nn.Module):`
    fn class_line(&mut self, cur: &mut Cursor<'_>) -> Result<(), GraphError> {
        const WANT: &str = "'class GraphModule(torch.nn.Module):'";
        if cur.peek().and_then(Token::ident) != Some("class") {
            return cur.unexpected(WANT);
        }
        cur.bump();
        cur.expect_ident("the class name")?;
        cur.expect_punct('(', "after the class name")?;
        let col = cur.col();
        let (base, _) = cur.dotted_path("torch.nn.Module")?;
        if base != ["torch", "nn", "Module"] {
            return cur.err(
                col,
                format!(
                    "the graph class must derive from torch.nn.Module, not {}",
                    base.join(".")
                ),
            );
        }
        cur.expect_punct(')', "after torch.nn.Module")?;
        cur.expect_punct(':', "at the end of the class line")?;
        cur.expect_end("the class line")
    }

    /// `def forward(self, x: "f32[4, 8]", ...):`
    fn def_line(&mut self, cur: &mut Cursor<'_>) -> Result<(), GraphError> {
        cur.expect_keyword("def", "(the forward method)")?;
        cur.expect_keyword("forward", "after 'def'")?;
        cur.expect_punct('(', "after 'def forward'")?;
        cur.expect_keyword("self", "as the first parameter of forward")?;
        loop {
            if cur.eat_punct(')') {
                break;
            }
            cur.expect_punct(',', "or ')' in the parameters of forward")?;
            if cur.eat_punct(')') {
                break; // trailing comma
            }
            let (name, col) = cur.expect_ident("a parameter name")?;
            self.check_new_name(cur, name, col)?;
            if !cur.eat_punct(':') {
                return cur.err(
                    cur.col(),
                    format!("input '{name}' needs a type annotation such as \"f32[4, 8]\""),
                );
            }
            if let (Some(b), Some(TokKind::Str { value, .. })) =
                (&self.bindings, cur.peek().map(|t| &t.kind))
                && let Some(expr) = value.strip_prefix("Sym(").and_then(|v| v.strip_suffix(')'))
            {
                let scol = cur.col();
                let v = symbolic::eval(expr, b).map_err(|m| cur.error(scol, m))?;
                cur.bump();
                self.sizes.insert(name.to_string(), v);
                continue;
            }
            let ann = parse_annotation(cur, self.bindings.as_ref())?;
            let id = self.graph.push(Node {
                name: name.to_string(),
                kind: NodeKind::Input,
                outputs: vec![TensorMeta::contiguous(ann.dtype, ann.sizes)],
                multi_output: false,
            });
            self.define(name, Some(id), cur.line);
        }
        cur.expect_punct(':', "at the end of the def line")?;
        cur.expect_end("the def line")
    }

    /// `name[: "ann"] = torch.ops.aten.op.overload(...)` or `name[: "ann"] = other[i]`, with an
    /// optional `;  a = b = None` tail.
    fn statement(&mut self, cur: &mut Cursor<'_>) -> Result<(), GraphError> {
        let (name, name_col) = cur.expect_ident("a statement 'name = torch.ops.aten...'")?;
        self.check_new_name(cur, name, name_col)?;
        let ann = if cur.eat_punct(':') {
            Some(parse_annotation(cur, self.bindings.as_ref())?)
        } else {
            None
        };
        cur.expect_punct('=', &format!("after '{name}'"))?;
        let is_name = cur.peek().and_then(Token::ident).is_some();
        let is_getitem = is_name && cur.peek_at(1).is_some_and(|t| t.is_punct('['));
        // `a = b`, which export prints for an `nn.Sequential`'s input: a second name for b.
        let is_alias = is_name && cur.peek_at(1).is_none_or(|t| t.is_punct(';'));
        let id = if is_alias {
            let (src, col) = cur.expect_ident("a value name")?;
            Some(self.lookup(cur, src, col)?)
        } else if is_getitem {
            Some(self.getitem(cur, name)?)
        } else {
            self.call(cur, name)?
        };
        match (ann, id) {
            (Some(ann), Some(id)) => self.check_annotation(cur, id, &ann)?,
            (Some(ann), None) => {
                return cur.err(ann.col, format!("'{name}' is the result of an op that returns nothing and takes no annotation"));
            }
            (None, _) => {}
        }
        self.define(name, id, cur.line);
        self.cleanup_tail(cur)
    }

    /// `other[i]`.
    fn getitem(&mut self, cur: &mut Cursor<'_>, name: &str) -> Result<NodeId, GraphError> {
        let (src_name, src_col) = cur.expect_ident("a value name")?;
        let source = self.lookup(cur, src_name, src_col)?;
        cur.expect_punct('[', "after the value name")?;
        let index_col = cur.col();
        let index = match cur.bump().map(|t| &t.kind) {
            Some(TokKind::Int(digits)) => digits.parse::<usize>().ok(),
            _ => None,
        };
        let Some(index) = index else {
            return cur.err(index_col, "expected a non-negative integer index");
        };
        cur.expect_punct(']', "after the index")?;
        let src = self.graph.node(source);
        if !src.multi_output {
            return cur.err(
                src_col,
                format!(
                    "'{src_name}' is a single tensor and cannot be indexed (only multi-output \
                     values such as split_with_sizes can)"
                ),
            );
        }
        if index >= src.outputs.len() {
            return cur.err(
                index_col,
                format!(
                    "index {index} is out of range: '{src_name}' has {} outputs",
                    src.outputs.len()
                ),
            );
        }
        push_getitem(&mut self.graph, name.to_string(), source, index)
            .map_err(|e| e.at_node(name, Some(cur.line)))
    }

    /// `torch.ops.aten.op.overload(args, kw = value)`.
    /// `None` for an op that returns nothing: it is checked (`_assert_tensor_metadata` compares
    /// its tensor's meta) and keeps no node.
    fn call(&mut self, cur: &mut Cursor<'_>, name: &str) -> Result<Option<NodeId>, GraphError> {
        const WANT: &str = "torch.ops.aten.<op>.<overload>(...) or name[index]";
        let col = cur.col();
        match cur.peek().map(|t| &t.kind) {
            Some(TokKind::Ident(s)) if s == "self" => {
                let (path, _) = cur.dotted_path("self")?;
                return cur.err(
                    col,
                    format!(
                        "'{}': module attributes (constants, parameters, submodules) are not \
                         supported; pass them as inputs of forward",
                        path.join(".")
                    ),
                );
            }
            Some(TokKind::Ident(_)) => {}
            _ => return cur.unexpected(WANT),
        }
        let (path, _) = cur.dotted_path(WANT)?;
        let is_op_path = path.len() >= 2 && path[0] == "torch" && path[1] == "ops";
        if !is_op_path || !cur.peek().is_some_and(|t| t.is_punct('(')) {
            return cur.err(col, format!("expected {WANT}, found '{}'", path.join(".")));
        }
        let [_, _, namespace, op, overload] = path[..] else {
            let msg = if path.len() == 4 {
                format!(
                    "'{}' has no overload: write {}.<overload>, e.g. {}.default",
                    path.join("."),
                    path.join("."),
                    path.join(".")
                )
            } else {
                format!(
                    "'{}' is not an op: expected torch.ops.<namespace>.<op>.<overload>",
                    path.join(".")
                )
            };
            return cur.err(col, msg);
        };
        let qualified = format!("{namespace}.{op}.{overload}");
        // ATen's ops, and coil's own (`torch.ops.coil.philox_rand.default`).
        let op_ref = OpRef::lookup(&qualified).ok_or_else(|| GraphError::UnsupportedOp {
            op: qualified.clone(),
            line: Some(cur.line),
        })?;
        let open_col = cur.col();
        cur.expect_punct('(', "after the op")?;
        let (args, kwargs) = self.call_args(cur, open_col, "argument list", 0)?;
        let call = Call {
            op: op_ref,
            args,
            kwargs,
        };
        if op_ref.schema().returns == crate::Returns::Nothing {
            crate::infer_call(&self.graph, &call).map_err(|e| e.at_node(name, Some(cur.line)))?;
            return Ok(None);
        }
        push_call_named(&mut self.graph, name.to_string(), call, Some(cur.line)).map(Some)
    }

    /// Arguments up to the closing `)`, which the caller has opened at `open_col`.
    fn call_args(
        &mut self,
        cur: &mut Cursor<'_>,
        open_col: usize,
        what: &str,
        depth: usize,
    ) -> Result<ArgLists, GraphError> {
        let mut args = Vec::new();
        let mut kwargs: Vec<(String, Arg)> = Vec::new();
        loop {
            if cur.at_end() {
                return cur.err(
                    open_col,
                    format!(
                        "unterminated {what}: this '(' is not closed before the end of the line"
                    ),
                );
            }
            if cur.eat_punct(')') {
                break;
            }
            let is_kw = cur.peek().and_then(Token::ident).is_some()
                && cur.peek_at(1).is_some_and(|t| t.is_punct('='));
            if is_kw {
                let (key, key_col) = cur.expect_ident("a keyword")?;
                cur.bump(); // '='
                if kwargs.iter().any(|(k, _)| k == key) {
                    return cur.err(key_col, format!("keyword argument '{key}' is repeated"));
                }
                let value = self.value(cur, depth + 1)?;
                kwargs.push((key.to_string(), value));
            } else {
                let col = cur.col();
                let value = self.value(cur, depth + 1)?;
                if !kwargs.is_empty() {
                    return cur.err(col, "positional argument follows keyword argument");
                }
                args.push(value);
            }
            if cur.at_end() {
                continue; // reported as unterminated above
            }
            if !cur.eat_punct(',') && !cur.peek().is_some_and(|t| t.is_punct(')')) {
                return cur.unexpected(&format!("',' or ')' in the {what}"));
            }
        }
        Ok((args, kwargs))
    }

    /// One argument value.
    fn value(&mut self, cur: &mut Cursor<'_>, depth: usize) -> Result<Arg, GraphError> {
        let col = cur.col();
        if depth > MAX_NESTING {
            return cur.err(
                col,
                format!("arguments nest more than {MAX_NESTING} levels deep"),
            );
        }
        let Some(tok) = cur.peek() else {
            return cur.unexpected("a value");
        };
        match &tok.kind {
            TokKind::Punct('-') => {
                cur.bump();
                let num_col = cur.col();
                match cur.bump().map(|t| &t.kind) {
                    Some(TokKind::Int(digits)) => int_literal(cur, &format!("-{digits}"), col),
                    Some(TokKind::Float(text)) => {
                        float_literal(cur, text, num_col).map(|f| Arg::Float(-f))
                    }
                    Some(TokKind::Ident(s)) if s == "inf" => Ok(Arg::Float(f64::NEG_INFINITY)),
                    Some(TokKind::Ident(s)) if s == "nan" => Ok(Arg::Float(f64::NAN)),
                    _ => cur.err(num_col, "expected a number after '-'"),
                }
            }
            TokKind::Int(digits) => {
                cur.bump();
                int_literal(cur, digits, col)
            }
            TokKind::Float(text) => {
                cur.bump();
                float_literal(cur, text, col).map(Arg::Float)
            }
            TokKind::Str { value, .. } => {
                cur.bump();
                Ok(Arg::Str(value.clone()))
            }
            TokKind::Punct('[') => {
                cur.bump();
                self.sequence(cur, ']', col, depth).map(Arg::List)
            }
            TokKind::Punct('(') => {
                cur.bump();
                // `(x)` is just `x`; `()` and `(x,)` are tuples, stored as lists.
                if cur.eat_punct(')') {
                    return Ok(Arg::List(vec![]));
                }
                let first = self.value(cur, depth + 1)?;
                if cur.eat_punct(')') {
                    return Ok(first);
                }
                if cur.at_end() {
                    return cur.err(
                        col,
                        "unterminated tuple: this '(' is not closed before the end of the line",
                    );
                }
                cur.expect_punct(',', "or ')' in the tuple")?;
                let mut items = vec![first];
                items.extend(self.sequence(cur, ')', col, depth)?);
                Ok(Arg::List(items))
            }
            TokKind::Ident(word) => match word.as_str() {
                "True" => {
                    cur.bump();
                    Ok(Arg::Bool(true))
                }
                "False" => {
                    cur.bump();
                    Ok(Arg::Bool(false))
                }
                "None" => {
                    cur.bump();
                    Ok(Arg::None)
                }
                "inf" => {
                    cur.bump();
                    Ok(Arg::Float(f64::INFINITY))
                }
                "nan" => {
                    cur.bump();
                    Ok(Arg::Float(f64::NAN))
                }
                "torch" => torch_constant(cur),
                "device" if cur.peek_at(1).is_some_and(|t| t.is_punct('(')) => {
                    self.device(cur, depth)
                }
                "self" => {
                    let (path, _) = cur.dotted_path("self")?;
                    cur.err(
                        col,
                        format!(
                            "'{}': module attributes (constants, parameters, submodules) are \
                             not supported; pass them as inputs of forward",
                            path.join(".")
                        ),
                    )
                }
                name if self.sizes.contains_key(name) => {
                    cur.bump();
                    Ok(Arg::Int(self.sizes[name]))
                }
                name => {
                    cur.bump();
                    if cur
                        .peek()
                        .is_some_and(|t| t.is_punct('.') || t.is_punct('('))
                    {
                        return cur.err(
                            col,
                            format!(
                                "unsupported expression starting with '{name}': arguments are \
                                 values, literals, lists, torch.<constant> or device(...)"
                            ),
                        );
                    }
                    if cur.peek().is_some_and(|t| t.is_punct('[')) {
                        return cur.err(
                            col,
                            format!(
                                "'{name}[...]' inside an argument is not supported; give the \
                                 getitem its own statement"
                            ),
                        );
                    }
                    let id = self.lookup(cur, name, col)?;
                    if self.graph.node(id).multi_output {
                        return cur.err(
                            col,
                            format!(
                                "'{name}' returns several values; read one with {name}[i] in \
                                 its own statement"
                            ),
                        );
                    }
                    Ok(Arg::Node(id))
                }
            },
            _ => cur.unexpected("a value"),
        }
    }

    /// Items up to `close` (the opener, at `open_col`, is consumed), trailing comma allowed.
    fn sequence(
        &mut self,
        cur: &mut Cursor<'_>,
        close: char,
        open_col: usize,
        depth: usize,
    ) -> Result<Vec<Arg>, GraphError> {
        let (kind, open) = if close == ']' {
            ("list", '[')
        } else {
            ("tuple", '(')
        };
        let mut items = Vec::new();
        loop {
            if cur.at_end() {
                return cur.err(
                    open_col,
                    format!(
                        "unterminated {kind}: this '{open}' is not closed before the end of the line"
                    ),
                );
            }
            if cur.eat_punct(close) {
                return Ok(items);
            }
            items.push(self.value(cur, depth + 1)?);
            if cur.at_end() {
                continue;
            }
            if !cur.eat_punct(',') && !cur.peek().is_some_and(|t| t.is_punct(close)) {
                return cur.unexpected(&format!("',' or '{close}' in the {kind}"));
            }
        }
    }

    /// `device(type='cuda', index=0)`.
    fn device(&mut self, cur: &mut Cursor<'_>, depth: usize) -> Result<Arg, GraphError> {
        let col = cur.col();
        cur.bump(); // device
        let open_col = cur.col();
        cur.bump(); // (
        let (args, kwargs) = self.call_args(cur, open_col, "device(...)", depth)?;
        let mut kind = None;
        let mut index = None;
        for a in args {
            match (a, kind.is_none()) {
                (Arg::Str(s), true) => kind = Some(s),
                _ => return cur.err(col, "device(...) takes type='cpu' and optionally index=0"),
            }
        }
        for (k, a) in kwargs {
            match (k.as_str(), a) {
                ("type", Arg::Str(s)) if kind.is_none() => kind = Some(s),
                ("index", Arg::Int(i)) if index.is_none() => index = Some(i),
                ("index", Arg::None) if index.is_none() => {}
                _ => {
                    return cur.err(col, "device(...) takes type='cpu' and optionally index=0");
                }
            }
        }
        match kind {
            Some(kind) => Ok(Arg::Device(DeviceSpec { kind, index })),
            None => cur.err(col, "device(...) needs type='cpu' (or another device type)"),
        }
    }

    /// The clean-up tail: `;  a = b = None` (several, or a bare `;`, are accepted).
    fn cleanup_tail(&mut self, cur: &mut Cursor<'_>) -> Result<(), GraphError> {
        while cur.eat_punct(';') {
            if cur.at_end() {
                break;
            }
            let mut names = Vec::new();
            loop {
                let (name, col) = cur.expect_ident("'name = None' after ';'")?;
                if name == "None" {
                    if names.is_empty() {
                        return cur.err(col, "expected 'name = None' after ';'");
                    }
                    break;
                }
                cur.expect_punct('=', &format!("after '{name}' in the clean-up"))?;
                names.push((name, col));
            }
            for (name, col) in names {
                if self.sizes.contains_key(name) {
                    continue; // a size of a bound graph: a constant, nothing to release
                }
                if self.values.get(name).is_none_or(|v| v.id.is_some()) {
                    self.lookup(cur, name, col)?;
                }
                if let Some(v) = self.values.get_mut(name) {
                    v.freed_at = Some(cur.line);
                }
            }
        }
        cur.expect_end("the statement")
    }

    /// `return (a, b)`, `return (a,)`, `return a` or `return a, b`.
    fn return_line(&mut self, cur: &mut Cursor<'_>) -> Result<(), GraphError> {
        let return_col = cur.col();
        cur.bump(); // return
        let mut outputs = Vec::new();
        let open_col = cur.col();
        if cur.eat_punct('(') {
            loop {
                if cur.eat_punct(')') {
                    break;
                }
                if cur.at_end() {
                    return cur.err(
                        open_col,
                        "unterminated return tuple: this '(' is not closed before the end of \
                         the line",
                    );
                }
                outputs.push(self.output(cur)?);
                if !cur.eat_punct(',')
                    && !cur.at_end()
                    && !cur.peek().is_some_and(|t| t.is_punct(')'))
                {
                    return cur.unexpected("',' or ')' in the return tuple");
                }
            }
        } else {
            loop {
                outputs.push(self.output(cur)?);
                if !cur.eat_punct(',') || cur.at_end() {
                    break;
                }
            }
        }
        if outputs.is_empty() {
            return cur.err(return_col, "forward must return at least one value");
        }
        cur.expect_end("the return statement")?;
        self.graph.set_outputs(outputs);
        Ok(())
    }

    /// One returned name.
    fn output(&self, cur: &mut Cursor<'_>) -> Result<NodeId, GraphError> {
        let (name, col) = cur.expect_ident("a value name to return")?;
        let id = self.lookup(cur, name, col)?;
        if self.graph.node(id).multi_output {
            return cur.err(
                col,
                format!("'{name}' returns several values; return one of them with {name}[i]"),
            );
        }
        Ok(id)
    }

    /// Checks that `name` can name a new value.
    fn check_new_name(&self, cur: &Cursor<'_>, name: &str, col: usize) -> Result<(), GraphError> {
        if !is_identifier(name) || matches!(name, "inf" | "nan") || PYTHON_KEYWORDS.contains(&name)
        {
            return cur.err(col, format!("'{name}' cannot be used as a value name"));
        }
        if let Some(v) = self.values.get(name) {
            return cur.err(
                col,
                format!("'{name}' is already defined at line {}", v.line),
            );
        }
        Ok(())
    }

    /// A line about sizes alone in a bound graph ([`size_line`]): a size value defined, a
    /// check run.
    fn size_statement(&mut self, size: SizeLine, line: usize, raw: &str) -> Result<(), GraphError> {
        let b = self.bindings.clone().unwrap_or_default();
        let col = raw.len() - raw.trim_start().len() + 1;
        let at = |msg: String| GraphError::Parse { line, col, msg };
        match size {
            SizeLine::Value { name, expr } => {
                if self.values.contains_key(&name) || self.sizes.contains_key(&name) {
                    return Err(at(format!("'{name}' is already defined")));
                }
                let v = symbolic::eval(&expr, &b).map_err(at)?;
                self.sizes.insert(name, v);
            }
            SizeLine::Check { cond, msg } => {
                let v = match self.sizes.get(&cond) {
                    Some(&v) => v,
                    None => symbolic::eval(&cond, &b).map_err(at)?,
                };
                if v == 0 {
                    return Err(at(format!("a size check fails for {b}: {msg}")));
                }
            }
            SizeLine::Skip => {}
        }
        Ok(())
    }

    fn define(&mut self, name: &str, id: Option<NodeId>, line: usize) {
        self.values.insert(
            name.to_string(),
            Value {
                id,
                line,
                freed_at: None,
            },
        );
    }

    /// The value a name refers to; unknown and released names are errors.
    fn lookup(&self, cur: &Cursor<'_>, name: &str, col: usize) -> Result<NodeId, GraphError> {
        match self.values.get(name) {
            None => cur.err(col, format!("unknown name '{name}'")),
            Some(Value {
                freed_at: Some(at), ..
            }) => cur.err(
                col,
                format!("'{name}' was set to None at line {at} and cannot be used after that"),
            ),
            Some(Value { id: None, .. }) => cur.err(
                col,
                format!("'{name}' is the result of an op that returns nothing and holds no value"),
            ),
            Some(Value { id: Some(id), .. }) => Ok(*id),
        }
    }

    /// The annotation must state what inference found.
    fn check_annotation(
        &self,
        cur: &Cursor<'_>,
        id: NodeId,
        ann: &Annotation,
    ) -> Result<(), GraphError> {
        let node = self.graph.node(id);
        if node.multi_output {
            return cur.err(
                ann.col,
                format!(
                    "'{}' returns several values and takes no annotation (FX writes none)",
                    node.name
                ),
            );
        }
        let meta = node.meta();
        if meta.dtype != ann.dtype || meta.sizes != ann.sizes {
            let what = match &node.kind {
                NodeKind::Call(c) => c.op.to_string(),
                _ => "the getitem".to_string(),
            };
            return cur.err(
                ann.col,
                format!(
                    "annotation {}{} does not match {}{}, which {what} gives for '{}'",
                    ann.dtype,
                    Dims(&ann.sizes),
                    meta.dtype,
                    Dims(&meta.sizes),
                    node.name
                ),
            );
        }
        Ok(())
    }
}

/// An integer literal (with its sign, if any) as an int64.
fn int_literal(cur: &Cursor<'_>, text: &str, col: usize) -> Result<Arg, GraphError> {
    match text.parse::<i64>() {
        Ok(i) => Ok(Arg::Int(i)),
        Err(_) => cur.err(col, format!("integer {text} does not fit in int64")),
    }
}

/// An unsigned float literal.
fn float_literal(cur: &Cursor<'_>, text: &str, col: usize) -> Result<f64, GraphError> {
    match text.parse::<f64>() {
        Ok(f) => Ok(f),
        Err(_) => cur.err(col, format!("malformed float '{text}'")),
    }
}

/// `torch.float32`, `torch.strided`, `torch.contiguous_format`, ...
fn torch_constant(cur: &mut Cursor<'_>) -> Result<Arg, GraphError> {
    let col = cur.col();
    let (path, _) = cur.dotted_path("torch")?;
    let name = path.join(".");
    if let Some(d) = DType::from_torch_name(&name) {
        return Ok(Arg::DType(d));
    }
    let arg = match name.as_str() {
        "torch.strided" => Arg::Layout(Layout::Strided),
        "torch.contiguous_format" => Arg::MemoryFormat(MemoryFormat::Contiguous),
        "torch.preserve_format" => Arg::MemoryFormat(MemoryFormat::Preserve),
        "torch.channels_last" => Arg::MemoryFormat(MemoryFormat::ChannelsLast),
        _ if path.get(1) == Some(&"ops") => {
            return cur.err(
                col,
                "op calls cannot be nested in arguments; give the call its own statement",
            );
        }
        _ => {
            return cur.err(
                col,
                format!(
                    "unsupported constant '{name}' (expected a dtype such as torch.float32, \
                     torch.strided, or a memory format such as torch.contiguous_format)"
                ),
            );
        }
    };
    Ok(arg)
}

/// `"f32[4, 8]"` (the next token): a dtype short name and static sizes.
fn parse_annotation(
    cur: &mut Cursor<'_>,
    bindings: Option<&Bindings>,
) -> Result<Annotation, GraphError> {
    let Some(tok) = cur.peek() else {
        return cur.unexpected("a type annotation such as \"f32[4, 8]\"");
    };
    let TokKind::Str { value, escaped } = &tok.kind else {
        return cur.unexpected("a type annotation such as \"f32[4, 8]\"");
    };
    cur.bump();
    let str_col = tok.col;
    // Column of the character at `offset` inside the literal (the literal's own column when
    // escapes make the mapping ambiguous).
    let at = |offset: usize| {
        if *escaped {
            str_col
        } else {
            str_col + 1 + offset
        }
    };
    let chars: Vec<char> = value.chars().collect();
    let bad =
        |offset: usize, msg: String| -> Result<Annotation, GraphError> { cur.err(at(offset), msg) };
    let example = "expected an annotation such as \"f32[4, 8]\" (dtype, then static sizes)";
    if value.starts_with("Sym(") {
        return bad(
            0,
            format!(
                "symbolic value annotation \"{value}\": a graph with symbolic sizes is read for \
                 one binding of them (coil run-model binds them to the sizes of --inputs)"
            ),
        );
    }
    let Some(open) = chars.iter().position(|&c| c == '[') else {
        return bad(0, format!("bad annotation \"{value}\": {example}"));
    };
    let dtype_name: String = chars[..open].iter().collect();
    let Some(dtype) = DType::from_short_name(&dtype_name) else {
        return bad(
            0,
            format!(
                "unknown dtype '{dtype_name}' in annotation (expected one of b8, i32, i64, f16, \
                 bf16, f32, f64)"
            ),
        );
    };
    if chars.last() != Some(&']') {
        return bad(
            chars.len(),
            format!("bad annotation \"{value}\": missing ']' at the end"),
        );
    }
    let body = &chars[open + 1..chars.len() - 1];
    let mut sizes = Vec::new();
    if !body.iter().all(|c| *c == ' ') {
        let mut start = 0;
        for piece in body.split(|&c| c == ',') {
            let offset = open + 1 + start;
            start += piece.len() + 1;
            let lead = piece.iter().take_while(|&&c| c == ' ').count();
            let item: String = piece.iter().collect::<String>().trim().to_string();
            let item_offset = offset + lead;
            if item.is_empty() {
                return bad(
                    item_offset,
                    format!("bad annotation \"{value}\": empty size"),
                );
            }
            if item.chars().all(|c| c.is_ascii_digit()) {
                match item.parse::<usize>() {
                    Ok(s) => sizes.push(s),
                    Err(_) => return bad(item_offset, format!("size {item} is too large")),
                }
            } else if let Some(b) = bindings {
                match symbolic::eval(&item, b) {
                    Ok(v) if v >= 0 => sizes.push(v as usize),
                    Ok(v) => return bad(item_offset, format!("size {item} is {v} for {b}")),
                    Err(m) => return bad(item_offset, m),
                }
            } else if item
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            {
                return bad(
                    item_offset,
                    format!(
                        "symbolic size '{item}': a graph with symbolic sizes is read for one \
                         binding of them (coil run-model binds them to the sizes of --inputs; \
                         coil_graph::bind_inputs and parse_bound)"
                    ),
                );
            } else {
                return bad(
                    item_offset,
                    format!("bad size '{item}' in annotation: sizes are non-negative integers"),
                );
            }
        }
    }
    if let Err(e) = checked_numel(&sizes) {
        let msg = match e {
            GraphError::Shape(msg) => msg,
            other => other.to_string(),
        };
        return bad(0, msg);
    }
    Ok(Annotation {
        dtype,
        sizes,
        col: str_col,
    })
}
