//! The op-kind table: the closed set of op kinds the rest of coil dispatches on, each declared
//! once under its class, with the kernel op and dtype rule of the kinds whose body is one
//! kernel op.

use crate::FloatFn;
use coil_kernel::Op;

/// The op-kind table: each kind declared once, under its class, with the kernel op its body
/// is when it is exactly one and its result's dtype rule (`Mul = Mul / Promote`: that op over
/// the kind's tensor and number operands in schema order, [`crate::Schema::value_operands`]).
/// [`OpKind`], [`OpKind::class`], [`OpKind::kernel_op_rule`] and [`OpKind::PLAIN`] come from
/// it. A one-kernel-op kind needs no inference, lowering or eager code (coil-eager computes
/// each kernel op): a new one is a line here and its schema below.
macro_rules! op_kinds {
    ($($class:ident { $($(#[$doc:meta])* $v:ident $(= $op:ident / $rule:ident)?,)* })*) => {
        /// What an op does, independent of its overload. Closed: adding an op means adding a
        /// variant to the table and handling it in inference and in the interpreter.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum OpKind {
            $($($(#[$doc])* $v,)*)*
            /// A float function of the table ([`FloatFn`]: `atan`, `asinh`, `erfc`,
            /// `logaddexp`, ...), lowered from the pointwise ops every backend has.
            Float(FloatFn),
        }

        impl OpKind {
            /// Every kind but the float functions' ([`FloatFn::ALL`] lists those).
            pub const PLAIN: &'static [OpKind] = &[$($(OpKind::$v,)*)*];

            /// The op's class.
            pub fn class(self) -> OpClass {
                match self {
                    $($(OpKind::$v => OpClass::$class,)*)*
                    OpKind::Float(_) => OpClass::Pointwise,
                }
            }

            /// The kernel op this kind's body is, when it is exactly one, and the rule its
            /// result's dtype follows: such a kind needs no inference or lowering code of its
            /// own (`infer/pointwise.rs` and `coil-lower`'s `lower_kernel_op` read these).
            pub fn kernel_op_rule(self) -> Option<(Op, DtypeRule)> {
                match self {
                    $($(OpKind::$v => op_kinds!(@op $($op $rule)?),)*)*
                    OpKind::Float(_) => None,
                }
            }

            /// The kernel op this kind's body is, when it is exactly one.
            pub fn kernel_op(self) -> Option<Op> {
                self.kernel_op_rule().map(|(op, _)| op)
            }
        }
    };
    (@op) => { None };
    (@op $op:ident $rule:ident) => { Some((Op::$op, DtypeRule::$rule)) };
}

op_kinds! {
    Pointwise {
        // Binary arithmetic.
        Add,
        Sub,
        Mul = Mul / Promote,
        Div,
        /// `copy.default`: `src` broadcast to `self`'s sizes and cast to its dtype (what
        /// functionalization makes of `x.copy_(src)`).
        CopyValues,
        Fmod,
        Remainder,
        Pow = Pow / Promote,
        Maximum = Maximum / Promote,
        Minimum = Minimum / Promote,
        // Comparisons and logic.
        Eq = Eq / Bool,
        Ne = Ne / Bool,
        Lt = Lt / Bool,
        Le = Le / Bool,
        Gt = Gt / Bool,
        Ge = Ge / Bool,
        LogicalAnd = LogicalAnd / Bool,
        LogicalOr = LogicalOr / Bool,
        LogicalNot = LogicalNot / Bool,
        BitwiseNot = BitwiseNot / NoFloat,
        BitwiseAnd,
        BitwiseOr,
        BitwiseXor,
        // Unary.
        Neg = Neg / NoBool,
        Abs = Abs / Same,
        /// `floor`, `ceil`, `round` (half to even) and `trunc`: integral values of a float,
        /// the identity on integers.
        Floor = Floor / NoBool,
        Ceil = Ceil / NoBool,
        Round = Round / NoBool,
        Trunc = Trunc / NoBool,
        Exp = Exp / ToFloat,
        Log = Log / ToFloat,
        Log1p = Log1p / ToFloat,
        Sqrt = Sqrt / ToFloat,
        Rsqrt = Rsqrt / ToFloat,
        Sin = Sin / ToFloat,
        Cos = Cos / ToFloat,
        Tanh = Tanh / ToFloat,
        Erf = Erf / ToFloat,
        Sigmoid = Sigmoid / ToFloat,
        Relu = Relu / NoBool,
        Reciprocal = Reciprocal / ToFloat,
        Gelu,
        Silu,
        Hardswish,
        Hardsigmoid,
        Hardtanh,
        Softplus,
        LeakyRelu,
        Elu,
        // Other.
        Where,
        Clamp,
        ToCopy,
        MaskedFill,
        Tril,
        Triu,
    }
    Reduction {
        Sum,
        Mean,
        Amax,
        Amin,
        Prod,
        Var,
        VarMean,
        Argmax,
        Argmin,
        Any,
        All,
    }
    Composite {
        // Composite ops the passes decompose.
        Softmax,
        LogSoftmax,
        NativeLayerNorm,
        BatchNormNoTraining,
        BatchNorm,
    }
    Scan {
        Cumsum,
        Cumprod,
    }
    Window {
        // Sliding windows over the trailing (spatial) dims.
        MaxPoolWithIndices,
        AvgPool,
        AdaptiveAvgPool,
    }
    Indexing {
        /// `sort` (values and int64 indices along a dim; NaN above every number; stable).
        Sort,
        /// `topk` (the k largest or smallest along a dim, values and int64 indices).
        Topk,
        // Reads at indices computed from another tensor's values.
        Embedding,
        EmbeddingBag,
        Index,
        IndexSelect,
        Gather,
        Scatter,
        ScatterAdd,
        IndexPut,
    }
    View {
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
        AsStrided,
    }
    Copy {
        Clone,
        Cat,
        Flip,
        Roll,
        ConstantPadNd,
        SliceScatter,
        /// `as_strided_scatter`: a copy of `self` with `src` written over the elements an
        /// `as_strided` of that copy's (contiguous) storage views.
        AsStridedScatter,
    }
    Factory {
        // The `_like` and `new_` forms read only their tensor's meta.
        Full,
        Arange,
        ScalarTensor,
        FullLike,
        NewFull,
    }
    Extern {
        // Matmul and convolution.
        Mm,
        Bmm,
        Addmm,
        Convolution,
    }
    Check {
        /// Checked when parsed, kept as no node.
        AssertTensorMetadata,
    }
}

/// The dtype of a one-kernel-op kind's result ([`OpKind::kernel_op_rule`]), from its operands'
/// promoted dtype (`result_type`, Python numbers included), with PyTorch's refusals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DtypeRule {
    /// The promoted dtype (`mul`, `maximum`, `pow`).
    Promote,
    /// Bool (comparisons, the logical ops).
    Bool,
    /// The operand's dtype (`abs`).
    Same,
    /// The operand's dtype; bool refused (`neg`, `relu`, `floor`).
    NoBool,
    /// The operand's dtype; floats refused (`bitwise_not`).
    NoFloat,
    /// A float: the operand's, or the default float for integers and bool (`exp`, `sqrt`).
    ToFloat,
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
    /// Runs in a library kernel (matmul, convolution).
    Extern,
    /// A scan along one dim (`cumsum`, `cumprod`).
    Scan,
    /// A sliding window over the spatial dims (pooling).
    Window,
    /// Reads (or writes) at positions given by an index tensor's values (`embedding`, `gather`,
    /// `index.Tensor`, `scatter`).
    Indexing,
    /// Returns nothing (`_assert_tensor_metadata`): the parser checks it and keeps no node.
    Check,
}
