//! The e-graph language: one e-node per ATen call (children in schema order, defaults filled),
//! plus graph inputs, literal arguments, lists, and `getitem`.

use std::fmt;
use std::str::FromStr;

use coil_graph::{Arg, DType, DeviceSpec, Layout, MemoryFormat, OpRef, format_float};
use egg::{FromOpError, Id, Language};

/// A float literal, compared and hashed by its bits so that `nan` is a value like any other.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatBits(pub u64);

impl FloatBits {
    /// The value.
    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

/// A non-tensor argument value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lit {
    /// An int.
    Int(i64),
    /// A float.
    Float(FloatBits),
    /// A bool.
    Bool(bool),
    /// `None`.
    None,
    /// A string.
    Str(String),
    /// A dtype.
    DType(DType),
    /// A layout.
    Layout(Layout),
    /// A memory format.
    MemoryFormat(MemoryFormat),
    /// A device.
    Device(DeviceSpec),
}

impl Lit {
    /// The literal for a non-tensor, non-list argument.
    pub fn from_arg(a: &Arg) -> Option<Lit> {
        Some(match a {
            Arg::Int(i) => Lit::Int(*i),
            Arg::Float(f) => Lit::Float(FloatBits(f.to_bits())),
            Arg::Bool(b) => Lit::Bool(*b),
            Arg::None => Lit::None,
            Arg::Str(s) => Lit::Str(s.clone()),
            Arg::DType(d) => Lit::DType(*d),
            Arg::Layout(l) => Lit::Layout(*l),
            Arg::MemoryFormat(m) => Lit::MemoryFormat(*m),
            Arg::Device(d) => Lit::Device(d.clone()),
            Arg::Node(_) | Arg::List(_) => return None,
        })
    }

    /// The argument spelling.
    pub fn to_arg(&self) -> Arg {
        match self {
            Lit::Int(i) => Arg::Int(*i),
            Lit::Float(f) => Arg::Float(f.get()),
            Lit::Bool(b) => Arg::Bool(*b),
            Lit::None => Arg::None,
            Lit::Str(s) => Arg::Str(s.clone()),
            Lit::DType(d) => Arg::DType(*d),
            Lit::Layout(l) => Arg::Layout(*l),
            Lit::MemoryFormat(m) => Arg::MemoryFormat(*m),
            Lit::Device(d) => Arg::Device(d.clone()),
        }
    }

    /// The value of a number literal.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Lit::Int(i) => Some(*i as f64),
            Lit::Float(f) => Some(f.get()),
            Lit::Bool(b) => Some(*b as i64 as f64),
            _ => None,
        }
    }

    /// A float literal.
    pub fn float(x: f64) -> Lit {
        Lit::Float(FloatBits(x.to_bits()))
    }
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Int(i) => write!(f, "{i}"),
            Lit::Float(x) => f.write_str(&format_float(x.get())),
            Lit::Bool(true) => f.write_str("True"),
            Lit::Bool(false) => f.write_str("False"),
            Lit::None => f.write_str("None"),
            Lit::Str(s) => write!(f, "'{s}'"),
            Lit::DType(d) => f.write_str(d.torch_name()),
            Lit::Layout(Layout::Strided) => f.write_str("torch.strided"),
            Lit::MemoryFormat(m) => f.write_str(m.torch_name()),
            Lit::Device(d) => match d.index {
                Some(i) => write!(f, "device:{}:{i}", d.kind),
                None => write!(f, "device:{}", d.kind),
            },
        }
    }
}

impl FromStr for Lit {
    type Err = ();

    fn from_str(s: &str) -> Result<Lit, ()> {
        Ok(match s {
            "True" => Lit::Bool(true),
            "False" => Lit::Bool(false),
            "None" => Lit::None,
            "inf" => Lit::float(f64::INFINITY),
            "-inf" => Lit::float(f64::NEG_INFINITY),
            "nan" => Lit::float(f64::NAN),
            "torch.strided" => Lit::Layout(Layout::Strided),
            "torch.contiguous_format" => Lit::MemoryFormat(MemoryFormat::Contiguous),
            "torch.preserve_format" => Lit::MemoryFormat(MemoryFormat::Preserve),
            "torch.channels_last" => Lit::MemoryFormat(MemoryFormat::ChannelsLast),
            _ if s.starts_with('\'') && s.ends_with('\'') && s.len() >= 2 => {
                Lit::Str(s[1..s.len() - 1].to_string())
            }
            _ if s.starts_with("device:") => {
                let mut parts = s.split(':').skip(1);
                let kind = parts.next().ok_or(())?.to_string();
                let index = parts
                    .next()
                    .map(|i| i.parse().map_err(|_| ()))
                    .transpose()?;
                Lit::Device(DeviceSpec { kind, index })
            }
            _ if s.starts_with("torch.") => Lit::DType(DType::from_torch_name(s).ok_or(())?),
            _ => {
                if let Ok(i) = s.parse::<i64>() {
                    Lit::Int(i)
                } else if let Ok(x) = s.parse::<f64>() {
                    Lit::float(x)
                } else {
                    return Err(());
                }
            }
        })
    }
}

/// An e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Aten {
    /// Graph input number `n`.
    Input(u32),
    /// A literal argument.
    Lit(Lit),
    /// A list argument (ints, or tensors for `cat`).
    List(Box<[Id]>),
    /// A call; one child per schema parameter, defaults filled in.
    Call(OpRef, Box<[Id]>),
    /// Output `n` of a multi-output call.
    GetItem(u32, [Id; 1]),
}

impl Language for Aten {
    type Discriminant = std::mem::Discriminant<Aten>;

    fn discriminant(&self) -> Self::Discriminant {
        std::mem::discriminant(self)
    }

    fn matches(&self, other: &Aten) -> bool {
        match (self, other) {
            (Aten::Input(a), Aten::Input(b)) => a == b,
            (Aten::Lit(a), Aten::Lit(b)) => a == b,
            (Aten::List(a), Aten::List(b)) => a.len() == b.len(),
            (Aten::Call(a, x), Aten::Call(b, y)) => a == b && x.len() == y.len(),
            (Aten::GetItem(a, _), Aten::GetItem(b, _)) => a == b,
            _ => false,
        }
    }

    fn children(&self) -> &[Id] {
        match self {
            Aten::Input(_) | Aten::Lit(_) => &[],
            Aten::List(c) | Aten::Call(_, c) => c,
            Aten::GetItem(_, c) => c,
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            Aten::Input(_) | Aten::Lit(_) => &mut [],
            Aten::List(c) | Aten::Call(_, c) => c,
            Aten::GetItem(_, c) => c,
        }
    }
}

impl fmt::Display for Aten {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Aten::Input(i) => write!(f, "input.{i}"),
            Aten::Lit(l) => write!(f, "{l}"),
            Aten::List(_) => f.write_str("list"),
            Aten::Call(op, _) => {
                let name = op.to_string();
                f.write_str(name.strip_prefix("aten.").unwrap_or(&name))
            }
            Aten::GetItem(i, _) => write!(f, "getitem.{i}"),
        }
    }
}

impl egg::FromOp for Aten {
    type Error = FromOpError;

    fn from_op(op: &str, children: Vec<Id>) -> Result<Aten, FromOpError> {
        let fail = || FromOpError::new(op, children.clone());
        if op == "list" {
            return Ok(Aten::List(children.into()));
        }
        if children.is_empty() {
            if let Some(i) = op.strip_prefix("input.") {
                return i.parse().map(Aten::Input).map_err(|_| fail());
            }
            if let Ok(lit) = op.parse::<Lit>() {
                return Ok(Aten::Lit(lit));
            }
        }
        if let Some(i) = op.strip_prefix("getitem.") {
            let i = i.parse().map_err(|_| fail())?;
            let [c]: [Id; 1] = children.clone().try_into().map_err(|_| fail())?;
            return Ok(Aten::GetItem(i, [c]));
        }
        match OpRef::lookup(op) {
            Some(r) if r.schema().params.len() == children.len() => {
                Ok(Aten::Call(r, children.into()))
            }
            _ => Err(fail()),
        }
    }
}
