//! Operator schemas in PyTorch's syntax (`add.Tensor(Tensor self, Tensor other, *, Scalar
//! alpha=1) -> Tensor`), and binding of a call's positional and keyword arguments to them.

use std::fmt;

use crate::{Arg, DType, GraphError, NodeId};

/// The type of a schema parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// `Tensor`.
    Tensor,
    /// `Tensor[]`.
    TensorList,
    /// `Tensor?[]`: a list whose entries are tensors or `None` (`index.Tensor`'s indices).
    OptTensorList,
    /// `Scalar`: a Python number.
    Scalar,
    /// `int` / `SymInt`.
    Int,
    /// `int[]` / `SymInt[]` (a single int is accepted for `int[1]`).
    IntList,
    /// `float`.
    Float,
    /// `bool`.
    Bool,
    /// `bool[N]` (`convolution_backward`'s `output_mask`).
    BoolList,
    /// `str`.
    Str,
    /// `ScalarType` (a dtype).
    ScalarType,
    /// `Layout`.
    Layout,
    /// `Device`.
    Device,
    /// `MemoryFormat`.
    MemoryFormat,
}

/// One parameter of a schema.
#[derive(Clone, Debug)]
pub struct Param {
    /// Its name, usable as a keyword.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
    /// `Type?`: `None` is accepted.
    pub optional: bool,
    /// The default, if it may be omitted.
    pub default: Option<Arg>,
    /// Declared after `*`: keyword only.
    pub kw_only: bool,
}

/// What an op returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Returns {
    /// One tensor.
    Tensor,
    /// A fixed tuple of tensors, accessed with `getitem`.
    Tuple(usize),
    /// `Tensor[]`: a list whose length depends on the arguments.
    List,
    /// `()`: nothing (an assertion such as `_assert_tensor_metadata`).
    Nothing,
}

impl Returns {
    /// The number of outputs when the schema fixes it.
    pub fn count(self) -> Option<usize> {
        match self {
            Returns::Tensor => Some(1),
            Returns::Tuple(n) => Some(n),
            Returns::List => None,
            Returns::Nothing => Some(0),
        }
    }
}

/// A parsed operator schema.
#[derive(Clone, Debug)]
pub struct Schema {
    /// `add`.
    pub name: String,
    /// `Tensor` (overload name; `default` for the unnamed one).
    pub overload: String,
    /// Parameters in declaration order.
    pub params: Vec<Param>,
    /// The return kind.
    pub returns: Returns,
}

/// A Python number argument.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `True` / `False`.
    Bool(bool),
    /// An int.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Scalar {
    /// The value as f64.
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// The number as a comparison computed in `dtype` sees it: ATen's comparison kernels take
    /// it as that type, so in a 16-bit float type it is rounded (through f32, then to nearest
    /// even: bf16 `x > 0.3` compares with 0.30078125); in any other type, and a bool, it is
    /// itself (arithmetic, by contrast, keeps it at f32: opmath).
    pub fn compared_in(self, dtype: crate::DType) -> Scalar {
        let f = match self {
            Scalar::Float(f) => f,
            Scalar::Int(i) => i as f64,
            Scalar::Bool(_) => return self,
        };
        match dtype {
            crate::DType::BF16 => Scalar::Float(half::bf16::from_f32(f as f32).to_f64()),
            crate::DType::F16 => Scalar::Float(half::f16::from_f32(f as f32).to_f64()),
            _ => self,
        }
    }

    /// The promotion category of the number.
    pub fn category(self) -> crate::Category {
        match self {
            Scalar::Bool(_) => crate::Category::Bool,
            Scalar::Int(_) => crate::Category::Int,
            Scalar::Float(_) => crate::Category::Float,
        }
    }

    /// The argument spelling of the number.
    pub fn to_arg(self) -> Arg {
        match self {
            Scalar::Bool(b) => Arg::Bool(b),
            Scalar::Int(i) => Arg::Int(i),
            Scalar::Float(f) => Arg::Float(f),
        }
    }
}

/// A pointwise operand: a tensor or a Python number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueArg {
    /// A tensor-valued node.
    Tensor(NodeId),
    /// A number.
    Scalar(Scalar),
}

impl Schema {
    /// Parses PyTorch's schema syntax (the subset our registry uses).
    pub fn parse(text: &str) -> Result<Schema, String> {
        let (head, ret) = text.split_once("->").ok_or("missing '->'")?;
        let (qual, rest) = head.split_once('(').ok_or("missing '('")?;
        let params_text = rest.trim().strip_suffix(')').ok_or("missing ')'")?;
        let (name, overload) = qual.trim().split_once('.').ok_or("missing overload name")?;
        let returns = match ret.trim() {
            "Tensor" => Returns::Tensor,
            "Tensor[]" => Returns::List,
            "()" => Returns::Nothing,
            t if t.starts_with('(') => Returns::Tuple(t.split(',').count()),
            t => return Err(format!("unsupported return type {t}")),
        };
        let mut params = Vec::new();
        let mut kw_only = false;
        for p in split_top_level(params_text) {
            let p = p.trim();
            if p.is_empty() {
                continue;
            }
            if p == "*" {
                kw_only = true;
                continue;
            }
            let (decl, default) = match p.split_once('=') {
                Some((d, v)) => (d.trim(), Some(parse_default(v.trim())?)),
                None => (p, None),
            };
            let (ty_text, pname) = decl
                .rsplit_once(' ')
                .ok_or_else(|| format!("bad parameter {p}"))?;
            let optional = ty_text.ends_with('?');
            let base = ty_text.trim_end_matches('?');
            let base = base.split('[').next().unwrap_or(base);
            let is_list = ty_text.contains('[');
            let ty = match (base, is_list) {
                ("Tensor?", true) => ParamType::OptTensorList,
                ("Tensor", false) => ParamType::Tensor,
                ("Tensor", true) => ParamType::TensorList,
                ("Scalar", _) => ParamType::Scalar,
                ("int" | "SymInt", false) => ParamType::Int,
                ("int" | "SymInt", true) => ParamType::IntList,
                ("float", _) => ParamType::Float,
                ("bool", false) => ParamType::Bool,
                ("bool", true) => ParamType::BoolList,
                ("str", _) => ParamType::Str,
                ("ScalarType", _) => ParamType::ScalarType,
                ("Layout", _) => ParamType::Layout,
                ("Device", _) => ParamType::Device,
                ("MemoryFormat", _) => ParamType::MemoryFormat,
                _ => return Err(format!("unsupported parameter type {ty_text}")),
            };
            params.push(Param {
                name: pname.to_string(),
                ty,
                optional,
                default,
                kw_only,
            });
        }
        Ok(Schema {
            name: name.to_string(),
            overload: overload.to_string(),
            params,
            returns,
        })
    }

    /// The positional tensor and number parameters, in order: a one-kernel-op kind's operands
    /// (`self`, `other`; `pow.Scalar`'s `self`, `exponent`).
    pub fn value_operands(&self) -> Vec<&str> {
        self.params
            .iter()
            .filter(|p| !p.kw_only && matches!(p.ty, ParamType::Tensor | ParamType::Scalar))
            .map(|p| p.name.as_str())
            .collect()
    }

    /// `add.Tensor`.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.name, self.overload)
    }

    /// Matches a call's arguments to the parameters, checking count, keywords and types.
    pub fn bind<'a>(
        &'a self,
        args: &'a [Arg],
        kwargs: &'a [(String, Arg)],
    ) -> Result<Bound<'a>, GraphError> {
        let op = self.qualified_name();
        let err = |msg: String| GraphError::Arg {
            op: op.clone(),
            msg,
        };
        let positional = self.params.iter().filter(|p| !p.kw_only).count();
        if args.len() > positional {
            return Err(err(format!(
                "takes {positional} positional arguments but {} were given",
                args.len()
            )));
        }
        let mut slots: Vec<Option<&'a Arg>> = vec![None; self.params.len()];
        for (i, a) in args.iter().enumerate() {
            slots[i] = Some(a);
        }
        for (k, a) in kwargs {
            let i = self
                .params
                .iter()
                .position(|p| &p.name == k)
                .ok_or_else(|| err(format!("got an unexpected keyword argument '{k}'")))?;
            if slots[i].replace(a).is_some() {
                return Err(err(format!("got multiple values for argument '{k}'")));
            }
        }
        for (p, slot) in self.params.iter().zip(&slots) {
            match slot {
                None if p.default.is_none() => {
                    return Err(err(format!("missing required argument '{}'", p.name)));
                }
                None => {}
                Some(a) => {
                    check_type(p, a).map_err(|m| err(format!("argument '{}': {m}", p.name)))?
                }
            }
        }
        Ok(Bound {
            schema: self,
            slots,
        })
    }
}

/// Splits on commas outside brackets.
fn split_top_level(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    for (i, c) in s.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn parse_default(v: &str) -> Result<Arg, String> {
    Ok(match v {
        "None" => Arg::None,
        "True" => Arg::Bool(true),
        "False" => Arg::Bool(false),
        "[]" => Arg::List(vec![]),
        _ if v.starts_with('\'') => Arg::Str(v.trim_matches('\'').to_string()),
        _ => {
            if let Ok(i) = v.parse::<i64>() {
                Arg::Int(i)
            } else if let Ok(f) = v.parse::<f64>() {
                Arg::Float(f)
            } else {
                return Err(format!("unsupported default {v}"));
            }
        }
    })
}

fn check_type(p: &Param, a: &Arg) -> Result<(), String> {
    if matches!(a, Arg::None) {
        return if p.optional {
            Ok(())
        } else {
            Err("None is not allowed".into())
        };
    }
    let ok = match p.ty {
        // The dispatcher wraps a Python number passed for a Tensor parameter into a 0-dim
        // tensor, and FX writes such calls (`aten.mul.Tensor(x, 1.1)`); inference decides
        // whether the op can take a number there.
        ParamType::Tensor => matches!(a, Arg::Node(_) | Arg::Int(_) | Arg::Float(_) | Arg::Bool(_)),
        ParamType::TensorList => {
            matches!(a, Arg::List(items) if items.iter().all(|i| matches!(i, Arg::Node(_))))
        }
        ParamType::OptTensorList => {
            matches!(a, Arg::List(items) if items.iter().all(|i| matches!(i, Arg::Node(_) | Arg::None)))
        }
        ParamType::Scalar => matches!(a, Arg::Int(_) | Arg::Float(_) | Arg::Bool(_)),
        ParamType::Int => matches!(a, Arg::Int(_)),
        ParamType::IntList => {
            matches!(a, Arg::Int(_))
                || matches!(a, Arg::List(items) if items.iter().all(|i| matches!(i, Arg::Int(_))))
        }
        ParamType::Float => matches!(a, Arg::Float(_) | Arg::Int(_)),
        ParamType::Bool => matches!(a, Arg::Bool(_)),
        ParamType::BoolList => {
            matches!(a, Arg::List(items) if items.iter().all(|i| matches!(i, Arg::Bool(_))))
        }
        ParamType::Str => matches!(a, Arg::Str(_)),
        ParamType::ScalarType => matches!(a, Arg::DType(_)),
        ParamType::Layout => matches!(a, Arg::Layout(_)),
        ParamType::Device => matches!(a, Arg::Device(_)),
        ParamType::MemoryFormat => matches!(a, Arg::MemoryFormat(_)),
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {}, got {}", type_name(p.ty), describe(a)))
    }
}

fn type_name(t: ParamType) -> &'static str {
    match t {
        ParamType::Tensor => "a tensor",
        ParamType::TensorList => "a list of tensors",
        ParamType::OptTensorList => "a list of tensors and Nones",
        ParamType::Scalar => "a number",
        ParamType::Int => "an int",
        ParamType::IntList => "a list of ints",
        ParamType::Float => "a float",
        ParamType::Bool => "a bool",
        ParamType::BoolList => "a list of bools",
        ParamType::Str => "a string",
        ParamType::ScalarType => "a dtype",
        ParamType::Layout => "a layout",
        ParamType::Device => "a device",
        ParamType::MemoryFormat => "a memory format",
    }
}

fn describe(a: &Arg) -> String {
    match a {
        Arg::Node(_) => "a tensor".into(),
        Arg::Int(i) => format!("int {i}"),
        Arg::Float(f) => format!("float {f}"),
        Arg::Bool(b) => format!("bool {b}"),
        Arg::None => "None".into(),
        Arg::Str(s) => format!("string '{s}'"),
        Arg::DType(d) => d.torch_name().into(),
        Arg::Layout(_) => "a layout".into(),
        Arg::MemoryFormat(_) => "a memory format".into(),
        Arg::Device(_) => "a device".into(),
        Arg::List(_) => "a list".into(),
    }
}

/// A call's arguments matched to its schema. Getters return the given value or the default;
/// types were checked by [`Schema::bind`].
pub struct Bound<'a> {
    schema: &'a Schema,
    slots: Vec<Option<&'a Arg>>,
}

impl fmt::Debug for Bound<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bound")
            .field("op", &self.schema.qualified_name())
            .field("slots", &self.slots)
            .finish()
    }
}

impl<'a> Bound<'a> {
    fn err(&self, msg: String) -> GraphError {
        GraphError::Arg {
            op: self.schema.qualified_name(),
            msg,
        }
    }

    /// The schema the call was bound to.
    pub fn schema(&self) -> &'a Schema {
        self.schema
    }

    /// The argument for parameter `name` (the default when omitted; `None` for an unknown name).
    pub fn get(&self, name: &str) -> &'a Arg {
        static NONE: Arg = Arg::None;
        match self.schema.params.iter().position(|p| p.name == name) {
            Some(i) => match self.slots[i] {
                Some(a) => a,
                None => self.schema.params[i].default.as_ref().unwrap_or(&NONE),
            },
            None => &NONE,
        }
    }

    /// True when the parameter exists in this overload.
    pub fn has(&self, name: &str) -> bool {
        self.schema.params.iter().any(|p| p.name == name)
    }

    /// A tensor argument.
    pub fn tensor(&self, name: &str) -> Result<NodeId, GraphError> {
        self.opt_tensor(name)
            .ok_or_else(|| self.err(format!("argument '{name}' must be a tensor")))
    }

    /// An optional tensor argument.
    pub fn opt_tensor(&self, name: &str) -> Option<NodeId> {
        self.get(name).as_node()
    }

    /// A list of tensors.
    pub fn tensors(&self, name: &str) -> Result<Vec<NodeId>, GraphError> {
        match self.get(name) {
            Arg::List(items) => Ok(items.iter().filter_map(Arg::as_node).collect()),
            _ => Err(self.err(format!("argument '{name}' must be a list of tensors"))),
        }
    }

    /// A list of optional tensors (`Tensor?[]`).
    pub fn opt_tensors(&self, name: &str) -> Result<Vec<Option<NodeId>>, GraphError> {
        match self.get(name) {
            Arg::List(items) => Ok(items.iter().map(Arg::as_node).collect()),
            _ => Err(self.err(format!("argument '{name}' must be a list of tensors"))),
        }
    }

    /// A list of ints of length `n` (a single int, or a list of one, repeated: PyTorch's
    /// `int[2] padding=0`); an error naming the argument otherwise.
    pub fn int_n(&self, name: &str, n: usize) -> Result<Vec<i64>, GraphError> {
        let v = self.int_list(name)?;
        match v.len() {
            1 => Ok(vec![v[0]; n]),
            l if l == n => Ok(v),
            l => Err(self.err(format!(
                "argument '{name}' must have 1 or {n} ints, got {l}"
            ))),
        }
    }

    /// A tensor or a number (a pointwise operand).
    pub fn value(&self, name: &str) -> Result<ValueArg, GraphError> {
        match self.get(name) {
            Arg::Node(n) => Ok(ValueArg::Tensor(*n)),
            other => self
                .scalar_of(other)
                .map(ValueArg::Scalar)
                .ok_or_else(|| self.err(format!("argument '{name}' must be a tensor or a number"))),
        }
    }

    /// An optional tensor-or-number operand.
    pub fn opt_value(&self, name: &str) -> Result<Option<ValueArg>, GraphError> {
        match self.get(name) {
            Arg::None => Ok(None),
            _ => self.value(name).map(Some),
        }
    }

    fn scalar_of(&self, a: &Arg) -> Option<Scalar> {
        match a {
            Arg::Int(i) => Some(Scalar::Int(*i)),
            Arg::Float(f) => Some(Scalar::Float(*f)),
            Arg::Bool(b) => Some(Scalar::Bool(*b)),
            _ => None,
        }
    }

    /// A number.
    pub fn scalar(&self, name: &str) -> Result<Scalar, GraphError> {
        self.opt_scalar(name)
            .ok_or_else(|| self.err(format!("argument '{name}' must be a number")))
    }

    /// An optional number.
    pub fn opt_scalar(&self, name: &str) -> Option<Scalar> {
        self.scalar_of(self.get(name))
    }

    /// An int.
    pub fn int(&self, name: &str) -> Result<i64, GraphError> {
        self.opt_int(name)
            .ok_or_else(|| self.err(format!("argument '{name}' must be an int")))
    }

    /// An optional int.
    pub fn opt_int(&self, name: &str) -> Option<i64> {
        match self.get(name) {
            Arg::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// A float (ints accepted).
    pub fn float(&self, name: &str) -> Result<f64, GraphError> {
        match self.get(name) {
            Arg::Float(f) => Ok(*f),
            Arg::Int(i) => Ok(*i as f64),
            _ => Err(self.err(format!("argument '{name}' must be a float"))),
        }
    }

    /// A bool.
    pub fn bool(&self, name: &str) -> Result<bool, GraphError> {
        match self.get(name) {
            Arg::Bool(b) => Ok(*b),
            _ => Err(self.err(format!("argument '{name}' must be a bool"))),
        }
    }

    /// A list of bools.
    pub fn bool_list(&self, name: &str) -> Result<Vec<bool>, GraphError> {
        match self.get(name) {
            Arg::List(items) => items
                .iter()
                .map(|a| match a {
                    Arg::Bool(b) => Some(*b),
                    _ => None,
                })
                .collect::<Option<Vec<bool>>>(),
            _ => None,
        }
        .ok_or_else(|| self.err(format!("argument '{name}' must be a list of bools")))
    }

    /// A list of ints (a single int is a list of one).
    pub fn int_list(&self, name: &str) -> Result<Vec<i64>, GraphError> {
        self.opt_int_list(name)
            .ok_or_else(|| self.err(format!("argument '{name}' must be a list of ints")))
    }

    /// An optional list of ints.
    pub fn opt_int_list(&self, name: &str) -> Option<Vec<i64>> {
        match self.get(name) {
            Arg::Int(i) => Some(vec![*i]),
            Arg::List(items) => items
                .iter()
                .map(|a| match a {
                    Arg::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }

    /// An optional string.
    pub fn opt_str(&self, name: &str) -> Option<&'a str> {
        match self.get(name) {
            Arg::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A required dtype.
    pub fn dtype(&self, name: &str) -> Result<DType, GraphError> {
        self.opt_dtype(name)
            .ok_or_else(|| self.err(format!("argument '{name}' must be a dtype")))
    }

    /// An optional dtype.
    pub fn opt_dtype(&self, name: &str) -> Option<DType> {
        match self.get(name) {
            Arg::DType(d) => Some(*d),
            _ => None,
        }
    }
}
