//! Meta inference (FakeTensor's job): the dtype, sizes and strides of every op's outputs, with
//! PyTorch's broadcasting, type promotion, dim wrapping and view rules. One file per op family (the
//! op's [`crate::OpClass`]): adding an op touches its family's file only.

mod factory;
mod indexing;
mod matmul;
mod pointwise;
mod reduce;
mod views;
mod window;

pub use factory::fill_value_of;
pub use indexing::{AdvancedIndex, advanced_index};
pub use views::padded_sizes;
pub use window::{ConvGeometry, Window, conv_geometry, pool_window, spatial_dims};

use crate::meta::checked_numel;
use crate::meta::{broadcast_shapes, contiguous_strides, normalize_dims};
use crate::schema::{Bound, ValueArg};
use crate::{Call, DType, Graph, GraphError, Operand, TensorMeta, result_type};

fn shape_err<T>(msg: impl Into<String>) -> Result<T, GraphError> {
    Err(GraphError::Shape(msg.into()))
}

fn dtype_err<T>(msg: impl Into<String>) -> Result<T, GraphError> {
    Err(GraphError::DType(msg.into()))
}

/// Infers the outputs of `call` from the metas of its inputs, which must already be in `graph`.
pub fn infer_call(graph: &Graph, call: &Call) -> Result<Vec<TensorMeta>, GraphError> {
    let schema = call.op.schema();
    let b = schema.bind(&call.args, &call.kwargs)?;
    let cx = Cx {
        graph,
        b: &b,
        schema,
    };
    let kind = call.op.kind();
    use crate::OpFamily as F;
    let outs = match kind.family() {
        F::KernelOp(_, rule) => pointwise::kernel_op(&cx, rule),
        F::Float(f) => pointwise::float(&cx, f),
        F::Pointwise(k) => pointwise::infer(&cx, k),
        F::Reduction(k) => reduce::infer(&cx, k),
        F::Composite(k) => reduce::infer_composite(&cx, k),
        F::View(k) => views::infer(&cx, k),
        F::Copy(k) => views::infer_copy(&cx, k),
        F::Factory(k) => factory::infer(&cx, k),
        F::Extern(k) => matmul::infer(&cx, k),
        F::Window(k) => window::infer(&cx, k),
        F::Scan(k) => indexing::infer_scan(&cx, k),
        F::Indexing(k) => indexing::infer(&cx, k),
        F::Check(crate::CheckKind::AssertTensorMetadata) => check(&cx),
    }?;
    // Inferred results obey the cap annotations do (an `mm` of 2^62 elements is an error, not
    // a meta whose printed text fails to parse).
    for m in &outs {
        checked_numel(&m.sizes)?;
    }
    Ok(outs)
}

/// `_assert_tensor_metadata`: the tensor must have the dtype, sizes and strides given (each
/// optional); it returns nothing.
fn check(cx: &Cx<'_>) -> Result<Vec<TensorMeta>, GraphError> {
    let m = cx.meta("a")?;
    if let Some(d) = cx.b.opt_dtype("dtype")
        && d != m.dtype
    {
        return dtype_err(format!(
            "Tensor dtype mismatch! Expected dtype {d}, but got dtype {}",
            m.dtype
        ));
    }
    if let Some(s) = cx.b.opt_int_list("size")
        && s.iter().map(|&v| v as usize).ne(m.sizes.iter().copied())
    {
        return shape_err(format!(
            "Tensor sizes mismatch! Expected {s:?}, but got {}",
            crate::Dims(&m.sizes)
        ));
    }
    Ok(vec![])
}

/// What every family's inference reads: the graph (for operand metas), the bound arguments
/// and the schema (for messages).
struct Cx<'a> {
    graph: &'a Graph,
    b: &'a Bound<'a>,
    schema: &'static crate::schema::Schema,
}

impl Cx<'_> {
    fn meta(&self, name: &str) -> Result<TensorMeta, GraphError> {
        Ok(self.graph.node(self.b.tensor(name)?).meta().clone())
    }

    /// Broadcast sizes and promoted dtype of the named operands.
    fn pointwise(&self, names: &[&str]) -> Result<(Vec<usize>, DType), GraphError> {
        let mut sizes: Vec<usize> = vec![];
        let mut operands = Vec::with_capacity(names.len());
        for name in names {
            match self.b.value(name)? {
                ValueArg::Tensor(n) => {
                    let m = self.graph.node(n).meta();
                    sizes = broadcast_shapes(&sizes, &m.sizes)?;
                    operands.push(Operand::Tensor {
                        dtype: m.dtype,
                        rank: m.rank(),
                    });
                }
                ValueArg::Scalar(s) => operands.push(Operand::Scalar(s.category())),
            }
        }
        Ok((sizes, result_type(&operands)))
    }
}

/// The reduced dims (sorted, wrapped) and `keepdim` of a reduction call; `None`, `[]` or an
/// absent `dim` mean every dim.
pub fn reduction_dims(b: &Bound<'_>, rank: usize) -> Result<(Vec<usize>, bool), GraphError> {
    let keepdim = if b.has("keepdim") {
        b.bool("keepdim")?
    } else {
        false
    };
    let mut dims = match (b.has("dim"), b.opt_int_list("dim")) {
        (true, Some(d)) => normalize_dims(&d, rank)?,
        _ => (0..rank).collect(),
    };
    dims.sort_unstable();
    Ok((dims, keepdim))
}

/// `any` / `all`'s reduced dims: as [`reduction_dims`], except that `any.dims(x, [])` reduces
/// nothing (PyTorch's rule for these two; `sum(x, [])` reduces everything).
pub fn any_all_dims(b: &Bound<'_>, rank: usize) -> Result<(Vec<usize>, bool), GraphError> {
    let (dims, keepdim) = reduction_dims(b, rank)?;
    if b.schema().overload == "dims" && b.opt_int_list("dim").is_some_and(|d| d.is_empty()) {
        return Ok((vec![], keepdim));
    }
    Ok((dims, keepdim))
}

fn reduced(m: &TensorMeta, dims: &[usize], keepdim: bool, dtype: DType) -> TensorMeta {
    let sizes = (0..m.rank())
        .filter_map(|i| match (dims.contains(&i), keepdim) {
            (true, true) => Some(1),
            (true, false) => None,
            (false, _) => Some(m.sizes[i]),
        })
        .collect::<Vec<_>>();
    let strides = contiguous_strides(&sizes);
    TensorMeta {
        dtype,
        sizes,
        strides,
    }
}

/// `slice.Tensor`'s effective (start, length, step) on a dim of `size`, PyTorch's clamping.
pub fn slice_range(b: &Bound<'_>, size: usize) -> Result<(usize, usize, usize), GraphError> {
    let step = b.int("step")?;
    if step <= 0 {
        return shape_err("slice step must be positive");
    }
    let size = size as i64;
    let clamp = |v: i64| {
        let v = if v < 0 { v + size } else { v };
        v.clamp(0, size)
    };
    let start = clamp(b.opt_int("start").unwrap_or(0));
    let end = clamp(b.opt_int("end").unwrap_or(size)).max(start);
    // Written so that a huge step cannot overflow.
    let len = if end == start {
        0
    } else {
        (end - start - 1) / step + 1
    };
    Ok((start as usize, len as usize, step as usize))
}

/// `arange`'s (start, end, step) as f64.
pub fn arange_params(b: &Bound<'_>) -> Result<(f64, f64, f64), GraphError> {
    let start = b.opt_scalar("start").map(|s| s.to_f64()).unwrap_or(0.0);
    let end = b.scalar("end")?.to_f64();
    let step = b.opt_scalar("step").map(|s| s.to_f64()).unwrap_or(1.0);
    Ok((start, end, step))
}

/// The number of elements `arange(start, end, step)` makes.
pub fn arange_len(start: f64, end: f64, step: f64) -> Result<usize, GraphError> {
    if step == 0.0 || !step.is_finite() || !start.is_finite() || !end.is_finite() {
        return shape_err("arange: step must be nonzero and bounds finite");
    }
    if (end - start) * step < 0.0 {
        return shape_err("arange: upper bound and larger bound inconsistent with step sign");
    }
    Ok(((end - start) / step).ceil() as usize)
}
