//! The op registry: every supported ATen overload with its schema (PyTorch's own syntax) and
//! the op kind it is (the kinds' table is `kinds.rs`).

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

use crate::kinds::OpKind;
use crate::schema::Schema;

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
            CopyValues,
            "copy.default(Tensor self, Tensor src, bool non_blocking=False) -> Tensor",
        ),
        (Fmod, "fmod.Tensor(Tensor self, Tensor other) -> Tensor"),
        (Fmod, "fmod.Scalar(Tensor self, Scalar other) -> Tensor"),
        (
            Remainder,
            "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Remainder,
            "remainder.Scalar(Tensor self, Scalar other) -> Tensor",
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
        (
            RoundDecimals,
            "round.decimals(Tensor self, *, int decimals) -> Tensor",
        ),
        (Neg, "neg.default(Tensor self) -> Tensor"),
        (Abs, "abs.default(Tensor self) -> Tensor"),
        (Floor, "floor.default(Tensor self) -> Tensor"),
        (Ceil, "ceil.default(Tensor self) -> Tensor"),
        (Round, "round.default(Tensor self) -> Tensor"),
        (Trunc, "trunc.default(Tensor self) -> Tensor"),
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
        (Amax, "max.default(Tensor self) -> Tensor"),
        (
            ViewDtype,
            "view.dtype(Tensor self, ScalarType dtype) -> Tensor",
        ),
        (Amin, "min.default(Tensor self) -> Tensor"),
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
        (
            BitwiseAnd,
            "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseAnd,
            "bitwise_and.Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseOr,
            "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseOr,
            "bitwise_or.Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseXor,
            "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseXor,
            "bitwise_xor.Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseLeftShift,
            "__lshift__.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseLeftShift,
            "__lshift__.Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseLeftShift,
            "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseLeftShift,
            "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseRightShift,
            "__rshift__.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseRightShift,
            "__rshift__.Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            BitwiseRightShift,
            "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
        ),
        (
            BitwiseRightShift,
            "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (Hardswish, "hardswish.default(Tensor self) -> Tensor"),
        (Hardsigmoid, "hardsigmoid.default(Tensor self) -> Tensor"),
        (
            Hardtanh,
            "hardtanh.default(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
        ),
        (
            Softplus,
            "softplus.default(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
        ),
        (
            LeakyRelu,
            "leaky_relu.default(Tensor self, Scalar negative_slope=0.01) -> Tensor",
        ),
        (
            Elu,
            "elu.default(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
        ),
        (
            MaskedFill,
            "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
        ),
        (
            MaskedFill,
            "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
        ),
        (Tril, "tril.default(Tensor self, int diagonal=0) -> Tensor"),
        (Triu, "triu.default(Tensor self, int diagonal=0) -> Tensor"),
        (Any, "any.default(Tensor self) -> Tensor"),
        (
            Any,
            "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
        ),
        (
            Any,
            "any.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
        ),
        (All, "all.default(Tensor self) -> Tensor"),
        (
            All,
            "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
        ),
        (
            All,
            "all.dims(Tensor self, int[]? dim=None, bool keepdim=False) -> Tensor",
        ),
        (
            BatchNormNoTraining,
            "_native_batch_norm_legit_no_training.default(Tensor input, Tensor? weight, Tensor? bias, \
             Tensor running_mean, Tensor running_var, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        ),
        (
            BatchNorm,
            "_native_batch_norm_legit.default(Tensor input, Tensor? weight, Tensor? bias, Tensor running_mean, \
             Tensor running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        ),
        (
            BatchNorm,
            "_native_batch_norm_legit.no_stats(Tensor input, Tensor? weight, Tensor? bias, bool training, \
             float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        ),
        (
            BatchNorm,
            "native_batch_norm.default(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, \
             Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
        ),
        (
            Sort,
            "sort.default(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        ),
        (
            Sort,
            "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
        ),
        (
            Topk,
            "topk.default(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
        ),
        (
            Cumsum,
            "cumsum.default(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Cumprod,
            "cumprod.default(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
        ),
        (
            Logcumsumexp,
            "logcumsumexp.default(Tensor self, int dim) -> Tensor",
        ),
        (
            MaxPoolWithIndices,
            "max_pool2d_with_indices.default(Tensor self, int[2] kernel_size, int[2] stride=[], \
             int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        ),
        (
            MaxPoolWithIndices,
            "max_pool1d_with_indices.default(Tensor self, int[1] kernel_size, int[1] stride=[], \
             int[1] padding=0, int[1] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
        ),
        (
            AvgPool,
            "avg_pool2d.default(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, \
             bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor",
        ),
        (
            AvgPool,
            "avg_pool1d.default(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, \
             bool ceil_mode=False, bool count_include_pad=True) -> Tensor",
        ),
        (
            AdaptiveAvgPool,
            "_adaptive_avg_pool2d.default(Tensor self, SymInt[2] output_size) -> Tensor",
        ),
        (
            AdaptiveAvgPool,
            "adaptive_avg_pool2d.default(Tensor self, SymInt[2] output_size) -> Tensor",
        ),
        (
            AdaptiveAvgPool,
            "adaptive_avg_pool1d.default(Tensor self, int[1] output_size) -> Tensor",
        ),
        (
            Embedding,
            "embedding.default(Tensor weight, Tensor indices, SymInt padding_idx=-1, \
             bool scale_grad_by_freq=False, bool sparse=False) -> Tensor",
        ),
        (
            EmbeddingBag,
            "_embedding_bag.default(Tensor weight, Tensor indices, Tensor offsets, \
             bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, \
             bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)",
        ),
        (
            Index,
            "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
        ),
        (
            IndexSelect,
            "index_select.default(Tensor self, int dim, Tensor index) -> Tensor",
        ),
        (
            Gather,
            "gather.default(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
        ),
        (
            Scatter,
            "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        ),
        (
            Scatter,
            "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
        ),
        (
            ScatterAdd,
            "scatter_add.default(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
        ),
        (
            ScatterReduce,
            "scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor",
        ),
        (
            ScatterReduce,
            "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor",
        ),
        (
            ScatterReduce,
            "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, \
             bool include_self=True) -> Tensor",
        ),
        (
            IndexPut,
            "index_put.default(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor",
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
            AsStrided,
            "as_strided.default(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor",
        ),
        (Flip, "flip.default(Tensor self, int[] dims) -> Tensor"),
        (
            Roll,
            "roll.default(Tensor self, SymInt[1] shifts, int[1] dims=[]) -> Tensor",
        ),
        (
            ConstantPadNd,
            "constant_pad_nd.default(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor",
        ),
        (
            AsStridedScatter,
            "as_strided_scatter.default(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor",
        ),
        (
            SliceScatter,
            "slice_scatter.default(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor",
        ),
        (
            Clone,
            "clone.default(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor",
        ),
        // What AOTAutograd makes of a tensor constant: a copy of it.
        (Clone, "lift_fresh_copy.default(Tensor self) -> Tensor"),
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
        (
            FullLike,
            "full_like.default(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (
            FullLike,
            "zeros_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (
            FullLike,
            "ones_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (
            FullLike,
            "empty_like.default(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (
            NewFull,
            "new_full.default(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            NewFull,
            "new_zeros.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            NewFull,
            "new_ones.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            NewFull,
            "new_empty.default(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            Full,
            "zeros.default(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            Full,
            "ones.default(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
        ),
        (
            Full,
            "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
        ),
        (Mm, "mm.default(Tensor self, Tensor mat2) -> Tensor"),
        (Bmm, "bmm.default(Tensor self, Tensor mat2) -> Tensor"),
        (
            Addmm,
            "addmm.default(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor",
        ),
        (
            Convolution,
            "convolution.default(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, \
             SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor",
        ),
        (
            ConvolutionBackward,
            "convolution_backward.default(Tensor grad_output, Tensor input, Tensor weight, \
             SymInt[]? bias_sizes, SymInt[] stride, SymInt[] padding, SymInt[] dilation, \
             bool transposed, SymInt[] output_padding, SymInt groups, bool[3] output_mask) \
             -> (Tensor, Tensor, Tensor)",
        ),
        (
            AssertTensorMetadata,
            "_assert_tensor_metadata.default(Tensor a, SymInt[]? size=None, SymInt[]? stride=None, \
             ScalarType? dtype=None, *, Device? device=None, Layout? layout=None) -> ()",
        ),
    ]
};

/// Every schema: ATen's above, the float functions', and coil's own ops.
fn all_schemas() -> impl Iterator<Item = &'static (OpKind, &'static str)> {
    SCHEMAS
        .iter()
        .chain(crate::ops_float::FLOAT_SCHEMAS)
        .chain(crate::ops_float::COIL_SCHEMAS)
}

/// One registered overload.
#[derive(Debug)]
pub struct OpDef {
    /// What the op does.
    pub kind: OpKind,
    /// Its signature.
    pub schema: Schema,
    /// Its operator namespace: `aten`, or `coil` for coil's own (the random ops, whose
    /// schema text starts `coil::`).
    pub namespace: &'static str,
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
        let defs: Vec<OpDef> = all_schemas()
            .map(|&(kind, text)| {
                let (namespace, text) = text.split_once("::").unwrap_or(("aten", text));
                OpDef {
                    kind,
                    // The table is ours and checked by a test; a bad entry is a bug, not user
                    // input.
                    schema: Schema::parse(text)
                        .unwrap_or_else(|e| panic!("bad schema {text:?}: {e}")),
                    namespace,
                }
            })
            .collect();
        let by_name = defs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.key(), OpRef(i as u16)))
            .collect();
        Registry { defs, by_name }
    })
}

impl OpDef {
    /// The registry's key: `add.Tensor` for ATen's, `coil.philox_rand.default` for others.
    fn key(&self) -> String {
        if self.namespace == "aten" {
            self.schema.qualified_name()
        } else {
            format!("{}.{}", self.namespace, self.schema.qualified_name())
        }
    }
}

impl OpRef {
    /// Looks up `add.Tensor` (with or without the `aten.` / `torch.ops.aten.` prefix), or
    /// another namespace's op by its full name (`coil.philox_rand.default`).
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
        let d = self.def();
        if d.namespace == "aten" {
            write!(f, "aten.{}", d.schema.qualified_name())
        } else {
            f.write_str(&d.key())
        }
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
    use crate::OpClass;

    #[test]
    fn every_schema_parses_and_names_are_unique() {
        assert_eq!(OpRef::all().count(), all_schemas().count());
        assert_eq!(registry().by_name.len(), all_schemas().count());
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

    #[test]
    fn every_kind_has_an_overload_and_kernel_op_kinds_fit_their_op() {
        for &kind in OpKind::PLAIN {
            let overloads: Vec<OpRef> = OpRef::all().filter(|o| o.kind() == kind).collect();
            assert!(!overloads.is_empty(), "{kind:?} has no overload");
            let Some(op) = kind.kernel_op() else {
                continue;
            };
            assert_eq!(kind.class(), OpClass::Pointwise, "{kind:?}");
            for o in overloads {
                assert_eq!(
                    o.schema().value_operands().len(),
                    op.arity(),
                    "{o} for {op}"
                );
            }
        }
        for f in crate::FloatFn::ALL {
            assert!(OpRef::all().any(|o| o.kind() == OpKind::Float(f)), "{f:?}");
        }
    }
}
