//! The op registry: every supported ATen overload with its schema (PyTorch's own syntax) and
//! the closed set of op kinds the rest of coil dispatches on.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use crate::schema::Schema;

/// What an op does, independent of its overload. Closed: adding an op means adding a variant
/// and handling it in inference and in the interpreter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum OpKind {
    // Pointwise, binary arithmetic.
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    // Pointwise comparisons and logic.
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
    LogicalNot,
    BitwiseNot,
    // Pointwise unary.
    Neg,
    Abs,
    Exp,
    Log,
    Log1p,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tanh,
    Erf,
    Sigmoid,
    Relu,
    Reciprocal,
    Gelu,
    Silu,
    // Pointwise, other.
    Where,
    Clamp,
    ToCopy,
    // Reductions.
    Sum,
    Mean,
    Amax,
    Amin,
    Prod,
    Var,
    VarMean,
    Argmax,
    Argmin,
    // Composite ops the passes decompose.
    Softmax,
    LogSoftmax,
    NativeLayerNorm,
    // Views and copies.
    View,
    Reshape,
    UnsafeView,
    Permute,
    Transpose,
    T,
    Expand,
    Unsqueeze,
    Squeeze,
    Slice,
    Select,
    SplitWithSizes,
    Alias,
    Clone,
    Cat,
    // Factories.
    Full,
    Arange,
    ScalarTensor,
    // Extern kernels (matmul).
    Mm,
    Bmm,
    Addmm,
}

/// The broad class of an op, which later stages use to decide how to lower and fuse it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    /// Elementwise over broadcast operands.
    Pointwise,
    /// Reduces one or more dims.
    Reduction,
    /// Composite of pointwise ops and reductions (`_softmax`, `native_layer_norm`).
    Composite,
    /// Shares storage with its input (no data moves).
    View,
    /// Copies data without computing (`clone`, `cat`).
    Copy,
    /// Creates data from nothing (`full`, `arange`).
    Factory,
    /// Runs in a library kernel (matmul).
    Extern,
}

impl OpKind {
    /// The op's class.
    pub fn class(self) -> OpClass {
        use OpKind::*;
        match self {
            Sum | Mean | Amax | Amin | Prod | Var | VarMean | Argmax | Argmin => OpClass::Reduction,
            Softmax | LogSoftmax | NativeLayerNorm => OpClass::Composite,
            View | Reshape | UnsafeView | Permute | Transpose | T | Expand | Unsqueeze
            | Squeeze | Slice | Select | SplitWithSizes | Alias => OpClass::View,
            Clone | Cat => OpClass::Copy,
            Full | Arange | ScalarTensor => OpClass::Factory,
            Mm | Bmm | Addmm => OpClass::Extern,
            _ => OpClass::Pointwise,
        }
    }
}

/// The schemas, in PyTorch's `native_functions.yaml` syntax, and the kind each overload is.
const SCHEMAS: &[(OpKind, &str)] = {
    use OpKind::*;
    &[
        (
            Add,
            "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        ),
        (
            Add,
            "add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        ),
        (
            Sub,
            "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        ),
        (
            Sub,
            "sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor",
        ),
        (Mul, "mul.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Mul, "mul.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Div, "div.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Div, "div.Scalar(Tensor self, Scalar other) -> Tensor"),
        (
            Div,
            "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
        ),
        (
            Div,
            "div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode) -> Tensor",
        ),
        (
            Pow,
            "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
        ),
        (
            Pow,
            "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
        ),
        (Pow, "pow.Scalar(Scalar self, Tensor exponent) -> Tensor"),
        (
            Maximum,
            "maximum.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Minimum,
            "minimum.default(Tensor self, Tensor other) -> Tensor",
        ),
        (Eq, "eq.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Eq, "eq.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Ne, "ne.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Ne, "ne.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Lt, "lt.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Lt, "lt.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Le, "le.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Le, "le.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Gt, "gt.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Gt, "gt.Scalar(Tensor self, Scalar other) -> Tensor"),
        (Ge, "ge.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Ge, "ge.Scalar(Tensor self, Scalar other) -> Tensor"),
        (
            LogicalAnd,
            "logical_and.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            LogicalOr,
            "logical_or.default(Tensor self, Tensor other) -> Tensor",
        ),
        (LogicalNot, "logical_not.default(Tensor self) -> Tensor"),
        (BitwiseNot, "bitwise_not.default(Tensor self) -> Tensor"),
        (Neg, "neg.default(Tensor self) -> Tensor"),
        (Abs, "abs.default(Tensor self) -> Tensor"),
        (Exp, "exp.default(Tensor self) -> Tensor"),
        (Log, "log.default(Tensor self) -> Tensor"),
        (Log1p, "log1p.default(Tensor self) -> Tensor"),
        (Sqrt, "sqrt.default(Tensor self) -> Tensor"),
        (Rsqrt, "rsqrt.default(Tensor self) -> Tensor"),
        (Sin, "sin.default(Tensor self) -> Tensor"),
        (Cos, "cos.default(Tensor self) -> Tensor"),
        (Tanh, "tanh.default(Tensor self) -> Tensor"),
        (Erf, "erf.default(Tensor self) -> Tensor"),
        (Sigmoid, "sigmoid.default(Tensor self) -> Tensor"),
        (Relu, "relu.default(Tensor self) -> Tensor"),
        (Reciprocal, "reciprocal.default(Tensor self) -> Tensor"),
        (
            Gelu,
            "gelu.default(Tensor self, *, str approximate='none') -> Tensor",
        ),
        (Silu, "silu.default(Tensor self) -> Tensor"),
        (
            Where,
            "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
        ),
        (
            Where,
            "where.ScalarSelf(Tensor condition, Scalar self, Tensor other) -> Tensor",
        ),
        (
            Where,
            "where.ScalarOther(Tensor condition, Tensor self, Scalar other) -> Tensor",
        ),
        (
            Where,
            "where.Scalar(Tensor condition, Scalar self, Scalar other) -> Tensor",
        ),
        (
            Clamp,
            "clamp.default(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
        ),
        (
            Clamp,
            "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
        ),
        (
            ToCopy,
            "_to_copy.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
             bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (
            Sum,
            "sum.default(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Sum,
            "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Mean,
            "mean.default(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Mean,
            "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Amax,
            "amax.default(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
        ),
        (
            Amin,
            "amin.default(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
        ),
        (
            Prod,
            "prod.default(Tensor self, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Prod,
            "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Var,
            "var.default(Tensor self, bool unbiased=True) -> Tensor",
        ),
        (
            Var,
            "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
        ),
        (
            Var,
            "var.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
        ),
        (
            VarMean,
            "var_mean.default(Tensor self, bool unbiased=True) -> (Tensor, Tensor)",
        ),
        (
            VarMean,
            "var_mean.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)",
        ),
        (
            VarMean,
            "var_mean.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) \
             -> (Tensor, Tensor)",
        ),
        (
            Argmax,
            "argmax.default(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
        ),
        (
            Argmin,
            "argmin.default(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
        ),
        (
            Softmax,
            "_softmax.default(Tensor self, int dim, bool half_to_float) -> Tensor",
        ),
        (
            LogSoftmax,
            "_log_softmax.default(Tensor self, int dim, bool half_to_float) -> Tensor",
        ),
        (
            NativeLayerNorm,
            "native_layer_norm.default(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, \
             float eps) -> (Tensor, Tensor, Tensor)",
        ),
        (View, "view.default(Tensor self, SymInt[] size) -> Tensor"),
        (
            Reshape,
            "reshape.default(Tensor self, SymInt[] shape) -> Tensor",
        ),
        (
            UnsafeView,
            "_unsafe_view.default(Tensor self, SymInt[] size) -> Tensor",
        ),
        (
            Permute,
            "permute.default(Tensor self, int[] dims) -> Tensor",
        ),
        (
            Transpose,
            "transpose.int(Tensor self, int dim0, int dim1) -> Tensor",
        ),
        (T, "t.default(Tensor self) -> Tensor"),
        (
            Expand,
            "expand.default(Tensor self, SymInt[] size, *, bool implicit=False) -> Tensor",
        ),
        (
            Unsqueeze,
            "unsqueeze.default(Tensor self, int dim) -> Tensor",
        ),
        (Squeeze, "squeeze.default(Tensor self) -> Tensor"),
        (Squeeze, "squeeze.dim(Tensor self, int dim) -> Tensor"),
        (Squeeze, "squeeze.dims(Tensor self, int[] dim) -> Tensor"),
        (
            Slice,
            "slice.Tensor(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
        ),
        (
            Select,
            "select.int(Tensor self, int dim, SymInt index) -> Tensor",
        ),
        (
            SplitWithSizes,
            "split_with_sizes.default(Tensor self, SymInt[] split_sizes, int dim=0) -> Tensor[]",
        ),
        (Alias, "alias.default(Tensor self) -> Tensor"),
        (
            Clone,
            "clone.default(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (Cat, "cat.default(Tensor[] tensors, int dim=0) -> Tensor"),
        (
            Full,
            "full.default(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, \
             Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            Arange,
            "arange.default(Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
             bool? pin_memory=None) -> Tensor",
        ),
        (
            Arange,
            "arange.start(Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, \
             Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            Arange,
            "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, \
             Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            ScalarTensor,
            "scalar_tensor.default(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, \
             bool? pin_memory=None) -> Tensor",
        ),
        (Mm, "mm.default(Tensor self, Tensor mat2) -> Tensor"),
        (Bmm, "bmm.default(Tensor self, Tensor mat2) -> Tensor"),
        (
            Addmm,
            "addmm.default(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        ),
    ]
};

/// One registered overload.
#[derive(Debug)]
pub struct OpDef {
    /// What the op does.
    pub kind: OpKind,
    /// Its signature.
    pub schema: Schema,
}

/// A handle to a registered overload; cheap to copy, prints as `aten.add.Tensor`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpRef(u16);

struct Registry {
    defs: Vec<OpDef>,
    by_name: HashMap<String, OpRef>,
}

fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let defs: Vec<OpDef> = SCHEMAS
            .iter()
            .map(|&(kind, text)| OpDef {
                kind,
                // The table is ours and checked by a test; a bad entry is a bug, not user input.
                schema: Schema::parse(text).unwrap_or_else(|e| panic!("bad schema {text:?}: {e}")),
            })
            .collect();
        let by_name = defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.schema.qualified_name(), OpRef(i as u16)))
            .collect();
        Registry { defs, by_name }
    })
}

impl OpRef {
    /// Looks up `add.Tensor` (with or without the `aten.` / `torch.ops.aten.` prefix).
    pub fn lookup(name: &str) -> Option<OpRef> {
        let name = name.strip_prefix("torch.ops.").unwrap_or(name);
        let name = name.strip_prefix("aten.").unwrap_or(name);
        registry().by_name.get(name).copied()
    }

    /// The default overload chosen for a kind when building graphs in Rust: the first listed.
    pub fn of_kind(kind: OpKind) -> OpRef {
        let i = registry()
            .defs
            .iter()
            .position(|d| d.kind == kind)
            .expect("every kind has an overload");
        OpRef(i as u16)
    }

    /// Finds `name.overload` among the overloads of `kind`.
    pub fn overload(kind: OpKind, overload: &str) -> Option<OpRef> {
        registry()
            .defs
            .iter()
            .position(|d| d.kind == kind && d.schema.overload == overload)
            .map(|i| OpRef(i as u16))
    }

    /// The registered definition.
    pub fn def(self) -> &'static OpDef {
        &registry().defs[self.0 as usize]
    }

    /// What the op does.
    pub fn kind(self) -> OpKind {
        self.def().kind
    }

    /// The schema.
    pub fn schema(self) -> &'static Schema {
        &self.def().schema
    }

    /// Every registered overload.
    pub fn all() -> impl Iterator<Item = OpRef> {
        (0..registry().defs.len()).map(|i| OpRef(i as u16))
    }
}

impl fmt::Display for OpRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "aten.{}", self.schema().qualified_name())
    }
}

impl fmt::Debug for OpRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_parses_and_names_are_unique() {
        assert_eq!(OpRef::all().count(), SCHEMAS.len());
        assert_eq!(registry().by_name.len(), SCHEMAS.len());
        assert_eq!(
            OpRef::lookup("torch.ops.aten.add.Tensor").unwrap().kind(),
            OpKind::Add
        );
        assert_eq!(
            OpRef::lookup("aten.native_layer_norm.default")
                .unwrap()
                .schema()
                .returns
                .count(),
            Some(3)
        );
        assert!(OpRef::lookup("aten.foo.bar").is_none());
    }
}
