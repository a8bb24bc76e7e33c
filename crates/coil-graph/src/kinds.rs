//! The op-kind table: the closed set of op kinds the rest of coil dispatches on, each declared
//! once under its class, with the kernel op and dtype rule of the kinds whose body is one
//! kernel op.

use crate::FloatFn;
use coil_kernel::Op;

/// The op-kind table: each kind declared once, under its class. The kinds whose body is one
/// kernel op come first, each with that op and its result's dtype rule (`Mul = Mul / Promote`:
/// that op over the kind's tensor and number operands in schema order,
/// [`crate::Schema::value_operands`]); such a kind needs no inference, lowering or eager code
/// (coil-eager computes each kernel op): a new one is a line here and its schema in `ops.rs`.
/// Every other class gets an enum of its own kinds ([`ReductionKind`], ...), and
/// [`OpKind::family`] splits a kind into them, so a stage's code for a class matches that
/// class's enum exhaustively: a kind added to the table is a compile error wherever its class
/// is handled and it is not.
macro_rules! op_kinds {
    (
        kernel_ops { $($(#[$kdoc:meta])* $k:ident = $op:ident / $rule:ident,)* }
        $($class:ident($sub:ident) { $($(#[$doc:meta])* $v:ident,)* })*
    ) => {
        /// What an op does, independent of its overload. Closed: adding an op means adding a
        /// variant to the table, and the compiler then names every place that must handle it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum OpKind {
            $($(#[$kdoc])* $k,)*
            $($($(#[$doc])* $v,)*)*
            /// A float function of the table ([`FloatFn`]: `atan`, `asinh`, `erfc`,
            /// `logaddexp`, ...), lowered from the pointwise ops every backend has.
            Float(FloatFn),
        }

        $(
            #[doc = concat!("The kinds of class [`OpClass::", stringify!($class),
                "`] (the one-kernel-op kinds aside), from the op-kind table.")]
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[allow(missing_docs)]
            pub enum $sub {
                $($(#[$doc])* $v,)*
            }

            impl From<$sub> for OpKind {
                fn from(k: $sub) -> OpKind {
                    match k {
                        $($sub::$v => OpKind::$v,)*
                    }
                }
            }

            impl PartialEq<OpKind> for $sub {
                fn eq(&self, other: &OpKind) -> bool {
                    OpKind::from(*self) == *other
                }
            }
        )*

        /// A kind split by class ([`OpKind::family`]): what a stage matches on to hand each
        /// class's kinds to that class's code, every kind named.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum OpFamily {
            /// A pointwise kind whose body is one kernel op, with its dtype rule.
            KernelOp(Op, DtypeRule),
            /// A float function, pointwise.
            Float(FloatFn),
            $(
                #[doc = concat!("A kind of class [`OpClass::", stringify!($class), "`].")]
                $class($sub),
            )*
        }

        impl OpKind {
            /// Every kind but the float functions' ([`FloatFn::ALL`] lists those).
            pub const PLAIN: &'static [OpKind] = &[$(OpKind::$k,)* $($(OpKind::$v,)*)*];

            /// The kind split by class.
            pub fn family(self) -> OpFamily {
                match self {
                    $(OpKind::$k => OpFamily::KernelOp(Op::$op, DtypeRule::$rule),)*
                    $($(OpKind::$v => OpFamily::$class($sub::$v),)*)*
                    OpKind::Float(f) => OpFamily::Float(f),
                }
            }

            /// The op's class.
            pub fn class(self) -> OpClass {
                match self.family() {
                    OpFamily::KernelOp(..) | OpFamily::Float(_) => OpClass::Pointwise,
                    $(OpFamily::$class(_) => OpClass::$class,)*
                }
            }

            /// The kernel op this kind's body is, when it is exactly one, and the rule its
            /// result's dtype follows: such a kind needs no inference or lowering code of its
            /// own (`infer/pointwise.rs` and `coil-lower`'s `lower_kernel_op` read these).
            pub fn kernel_op_rule(self) -> Option<(Op, DtypeRule)> {
                match self.family() {
                    OpFamily::KernelOp(op, rule) => Some((op, rule)),
                    _ => None,
                }
            }

            /// The kernel op this kind's body is, when it is exactly one.
            pub fn kernel_op(self) -> Option<Op> {
                self.kernel_op_rule().map(|(op, _)| op)
            }
        }
    };
}

op_kinds! {
    kernel_ops {
        Mul = Mul / Promote,
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
        /// On bools the logical ops; on integers the bit ops.
        BitwiseAnd = BitAnd / NoFloat,
        BitwiseOr = BitOr / NoFloat,
        BitwiseXor = BitXor / NoFloat,
        /// `<<` and `>>` with PyTorch's rule for amounts outside the dtype's width.
        BitwiseLeftShift = Shl / NoFloat,
        BitwiseRightShift = Shr / NoFloat,
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
    }
    Pointwise(PointwiseKind) {
        // Binary arithmetic.
        Add,
        Sub,
        Div,
        /// `copy.default`: `src` broadcast to `self`'s sizes and cast to its dtype (what
        /// functionalization makes of `x.copy_(src)`).
        CopyValues,
        Fmod,
        Remainder,
        Gelu,
        Silu,
        Hardswish,
        Hardsigmoid,
        Hardtanh,
        Softplus,
        LeakyRelu,
        Elu,
        /// `round(x, decimals=d)`: PyTorch's `nearbyint(x * 10^d) / 10^d` (for negative `d`,
        /// `nearbyint(x / 10^-d) * 10^-d`) in the opmath type.
        RoundDecimals,
        // Other.
        Where,
        Clamp,
        ToCopy,
        MaskedFill,
        Tril,
        Triu,
    }
    Reduction(ReductionKind) {
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
    Composite(CompositeKind) {
        // Composite ops the passes decompose.
        Softmax,
        LogSoftmax,
        NativeLayerNorm,
        BatchNormNoTraining,
        BatchNorm,
    }
    Scan(ScanKind) {
        Cumsum,
        Cumprod,
        Logcumsumexp,
    }
    Window(WindowKind) {
        // Sliding windows over the trailing (spatial) dims.
        MaxPoolWithIndices,
        AvgPool,
        AdaptiveAvgPool,
    }
    Indexing(IndexingKind) {
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
        /// `scatter(reduce=add|multiply)` and `scatter_reduce` (sum, prod, mean, amax, amin,
        /// with or without `self`'s values).
        ScatterReduce,
        IndexPut,
    }
    View(ViewKind) {
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
        /// `view.dtype`: the same bytes read as another dtype (a bitcast when the sizes
        /// match; otherwise the last dim scales by the size ratio).
        ViewDtype,
    }
    Copy(CopyKind) {
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
    Factory(FactoryKind) {
        // The `_like` and `new_` forms read only their tensor's meta.
        Full,
        Arange,
        ScalarTensor,
        FullLike,
        NewFull,
        /// Uniform in [0, 1), Philox-4x32-10 of (seed, offset, element): `coil.philox_rand`.
        PhiloxRand,
        /// Standard normal (Box-Muller of two uniforms): `coil.philox_randn`.
        PhiloxRandn,
        /// Integers in [low, high): `coil.philox_randint`.
        PhiloxRandint,
    }
    Extern(LibraryKind) {
        // Matmul and convolution.
        Mm,
        Bmm,
        Addmm,
        Convolution,
        /// `convolution_backward`: the input, weight and bias gradients `output_mask` asks
        /// for (a masked-off one is zeros, never read).
        ConvolutionBackward,
    }
    Check(CheckKind) {
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
