//! Inductor's IR in Rust terms: every graph value is a [`TensorBox`] over a [`StorageBox`]
//! (possibly through a [`View`]); a storage holds an input, a lazy [`Pointwise`] or
//! [`Reduction`], or a realized buffer. Realized buffers ([`Buffer`]: computed or extern) are
//! what later stages schedule.

use std::fmt;

use coil_graph::{DType, OpKind, contiguous_strides};

use crate::body::{ExprGraph, ExprId, LoopBody, ReductionType};
use crate::deps::Dep;
use crate::index::IndexExpr;
use crate::typed_id;
pub(crate) use coil_kernel::{ConvGrad, ConvOp, ExternKind, HostOp, MatmulOp, PostOp};

typed_id!(
    /// A realized buffer (`buf3`), numbered in creation order.
    BufferId,
    "buf"
);
typed_id!(
    /// A graph input, in signature order. Its name is the input's graph name.
    InputId,
    "input"
);
typed_id!(
    /// A storage (Inductor's `StorageBox`).
    StorageId,
    "storage"
);
typed_id!(
    /// A tensor value (Inductor's `TensorBox`).
    TensorId,
    "tensor"
);

/// Anything a body can load from: a graph input or a realized buffer.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum BufRef {
    /// A graph input (named as in the graph: `x`).
    Input(InputId),
    /// A realized buffer (`buf0`).
    Buffer(BufferId),
    /// The index-check flags (`index_checks`, `i64[2 * checks]`): where kernels with indirect
    /// loads record an index out of range (see [`IndexCheck`]).
    IndexChecks,
}

/// What an indirect index is checked for (one [`crate::Expr::IndirectIndex`] check): the
/// node and op whose index it is and the size of the dim it indexes. Slot `2 * check` of
/// [`BufRef::IndexChecks`] becomes nonzero when a value was out of range, and slot
/// `2 * check + 1` holds such a value (the one of whichever element wrote last).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct IndexCheck {
    /// The graph node (`embedding`).
    pub node: String,
    /// Its op (`aten.embedding.default`).
    pub op: String,
    /// The dim indexed, of the tensor indexed.
    pub dim: usize,
    /// Its size.
    pub size: usize,
}

impl IndexCheck {
    /// The error for a bad `value`: `index 7 is out of bounds for dimension 0 with size 5 in
    /// node 'embedding' (aten.embedding.default)`.
    pub fn message(&self, value: i64) -> String {
        format!(
            "index {value} is out of bounds for dimension {} with size {} in node '{}' ({})",
            self.dim, self.size, self.node, self.op
        )
    }
}

/// Where and how a buffer's elements lie: dtype, sizes, strides and offset, in elements.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FixedLayout {
    /// Element type.
    pub dtype: DType,
    /// Size of each dim.
    pub sizes: Vec<usize>,
    /// Stride of each dim, in elements.
    pub strides: Vec<usize>,
    /// Offset of element 0, in elements.
    pub offset: usize,
}

/// An empty `i64` layout (what a graph without index checks has for them).
impl Default for FixedLayout {
    fn default() -> FixedLayout {
        FixedLayout::contiguous(DType::I64, vec![0])
    }
}

impl FixedLayout {
    /// The row-major layout of `sizes`.
    pub fn contiguous(dtype: DType, sizes: Vec<usize>) -> FixedLayout {
        let strides = contiguous_strides(&sizes);
        FixedLayout {
            dtype,
            sizes,
            strides,
            offset: 0,
        }
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.sizes.iter().product()
    }

    /// The flat offset of the element at `index` (one expression per dim).
    pub fn flat_index(&self, index: &[IndexExpr]) -> IndexExpr {
        index
            .iter()
            .zip(&self.strides)
            .fold(IndexExpr::constant(self.offset as i64), |acc, (e, &s)| {
                acc.add(&e.scale(s as i64))
            })
    }

    /// Elements the storage must hold for this layout to be in bounds.
    pub fn storage_len(&self) -> usize {
        if self.numel() == 0 {
            return 0;
        }
        self.offset
            + self
                .sizes
                .iter()
                .zip(&self.strides)
                .map(|(s, st)| (s - 1) * st)
                .sum::<usize>()
            + 1
    }
}

/// `FixedLayout(torch.float32, size=[1024, 1], stride=[1, 1])` (`, offset=N` when nonzero).
impl fmt::Display for FixedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FixedLayout({}, size={:?}, stride={:?}",
            self.dtype.torch_name(),
            self.sizes,
            self.strides
        )?;
        if self.offset != 0 {
            write!(f, ", offset={}", self.offset)?;
        }
        f.write_str(")")
    }
}

/// A graph node a buffer computes (inlined nodes included); later stages name kernels after
/// these.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The node's name in the graph (`mul_1`).
    pub node: String,
    /// What the node does.
    pub op: OpKind,
    /// The op the node stands for in the graph before the passes (Inductor's
    /// `original_aten`; [`coil_graph::Graph::original_op`]): `mean` for the `sum` and the
    /// scaling `mul` a decomposed `mean` became. Equal to `op` for nodes no pass rewrote.
    /// Kernel names are made of these.
    pub original_op: OpKind,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.node)
    }
}

/// A graph input: named as in the graph, contiguous.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputBuffer {
    /// The input's graph name (`x`).
    pub name: String,
    /// Its layout (contiguous).
    pub layout: FixedLayout,
}

/// A realized buffer: a name, a layout, what it computes and what it reads and writes.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Its id (`buf3`).
    pub id: BufferId,
    /// Its layout (contiguous).
    pub layout: FixedLayout,
    /// The graph nodes it computes, its own first, then the ones it inlined.
    pub origins: Vec<Origin>,
    /// How it is computed.
    pub kind: BufferKind,
    /// What it reads: `MemoryDep`s for loads, `StarDep`s for extern inputs.
    pub reads: Vec<Dep>,
    /// What it writes (itself).
    pub writes: Vec<Dep>,
}

impl Buffer {
    /// `buf3`.
    pub fn name(&self) -> String {
        self.id.to_string()
    }

    /// `(numel, rnumel)`: the iteration and reduction sizes of its loop nest (`rnumel = 1` for
    /// pointwise and extern buffers).
    pub fn group(&self) -> (usize, usize) {
        match &self.kind {
            BufferKind::Computed(c) => (
                c.ranges.iter().product(),
                c.reduction_ranges.iter().product(),
            ),
            BufferKind::Extern(_) => (self.layout.numel(), 1),
        }
    }

    /// True when its loop nest has reduction ranges: a reduction, or a scan (which the
    /// scheduler groups as Inductor does, `(numel, rnumel)` with the scanned length as
    /// `rnumel`).
    pub fn is_reduction(&self) -> bool {
        matches!(&self.kind, BufferKind::Computed(c) if c.has_reduction_loop())
    }

    /// The computed buffer, unless this is an extern kernel's output.
    pub fn computed(&self) -> Option<&ComputedBuffer> {
        match &self.kind {
            BufferKind::Computed(c) => Some(c),
            BufferKind::Extern(_) => None,
        }
    }
}

/// How a buffer is computed.
#[derive(Clone, Debug)]
pub enum BufferKind {
    /// A loop nest with a body (Inductor's `ComputedBuffer`).
    Computed(ComputedBuffer),
    /// A library call (Inductor's `ExternKernelOut`).
    Extern(ExternKernel),
}

/// A realized Pointwise, Reduction or Scan.
#[derive(Clone, Debug)]
pub struct ComputedBuffer {
    /// The iteration ranges (the buffer's sizes; for a scan, its sizes without the scanned
    /// dim).
    pub ranges: Vec<usize>,
    /// The reduced sizes (empty for pointwise; the scanned length for a scan).
    pub reduction_ranges: Vec<usize>,
    /// How values combine, for reductions (`None` for pointwise buffers and scans).
    pub reduction_type: Option<ReductionType>,
    /// The loop body.
    pub body: LoopBody,
    /// For a scatter: where its body's values go instead of into the buffer itself.
    pub scatter: Option<Scatter>,
}

/// A scatter (Inductor's `ir.Scatter`): a pointwise loop nest over the source's points that
/// writes each value into an earlier buffer, `target`, at the body's store index, which uses
/// indirect indices (`self[index[i][j]][j] = src[i][j]`). It mutates `target` (its deps write
/// it, so readers of `target` that come later follow it); its own buffer holds nothing. The
/// scheduler never fuses it: every element of `target` must be written before it runs, and it
/// may write any element before a reader runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scatter {
    /// The buffer written.
    pub target: BufferId,
    /// Set (`scatter`, `index_put`) or add (`scatter_add`, `index_put(accumulate=True)`).
    pub mode: coil_kernel::StoreMode,
}

impl ComputedBuffer {
    /// True for a scan (its body's value is an [`crate::Expr::Scan`], stored at every point
    /// of the iteration and reduction ranges).
    pub fn is_scan(&self) -> bool {
        self.body.scan().is_some()
    }

    /// True for reductions and scans: the loop nest loops over `reduction_ranges`.
    pub fn has_reduction_loop(&self) -> bool {
        self.reduction_type.is_some() || self.is_scan()
    }
}

/// An extern kernel: its inputs are realized (strided views of buffers), its output is the
/// buffer itself.
#[derive(Clone, Debug)]
pub struct ExternKernel {
    /// Which kernel.
    pub kind: ExternKind,
    /// Its operands.
    pub inputs: Vec<ExternInput>,
}

/// One extern operand: a buffer seen through a strided layout (Inductor's `ReinterpretView`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExternInput {
    /// The buffer read.
    pub buffer: BufRef,
    /// How it is read.
    pub layout: FixedLayout,
}

/// A pointwise buffer that could instead run inside a matmul's library call as post-ops (a
/// template epilogue): what the lowering found, for the scheduler to decide
/// ([`crate::LoweredGraph::epilogues`], [`crate::LoweredGraph::fold_epilogues`]). The buffer
/// computes a chain of post-ops of the matmul's result (each one a pointwise op applied to the
/// result alone: relu, gelu, a scale, a bias or residual add), every op before it in the chain
/// included; folded, the call computes it and the buffer is gone.
#[derive(Clone, Debug)]
pub struct Epilogue {
    /// The computed buffer.
    pub buffer: BufferId,
    /// The matmul's extern buffer (the template).
    pub template: BufferId,
    /// The call the matmul becomes with the chain inside it.
    pub kind: ExternKind,
    /// The call's operands then (a bias or residual added).
    pub inputs: Vec<ExternInput>,
    /// What the call reads then.
    pub reads: Vec<Dep>,
}

/// A graph output: a buffer (or input) and the strided view of it the graph returns.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OutputRef {
    /// Where the data lives.
    pub buffer: BufRef,
    /// How the output reads it.
    pub layout: FixedLayout,
}

/// A lazy elementwise value: `body` computes the element at the positional variables
/// `p0..p<rank>` (size-1 dims are the constant 0).
#[derive(Clone, Debug)]
pub struct Pointwise {
    /// The sizes.
    pub ranges: Vec<usize>,
    /// The expression DAG.
    pub body: ExprGraph,
    /// The value.
    pub root: ExprId,
}

/// A lazy reduction (always realized as soon as it is made): `body`'s root is an
/// [`crate::Expr::Reduction`] over `p0..p<k>` (the output dims) and `p<k>..` (the reduced dims).
/// For a scan (`scan_dim` set), the root is an [`crate::Expr::Scan`], `p<k>` the scanned dim,
/// and the storage holds every point: the output dims with the scanned one at `scan_dim`.
#[derive(Clone, Debug)]
pub struct Reduction {
    /// For a scan: where the scanned dim sits in the stored tensor.
    pub scan_dim: Option<usize>,
    /// The output sizes (keepdim's 1s included).
    pub ranges: Vec<usize>,
    /// The reduced sizes.
    pub reduction_ranges: Vec<usize>,
    /// How values combine.
    pub reduction_type: ReductionType,
    /// The expression DAG.
    pub body: ExprGraph,
    /// The reduction node.
    pub root: ExprId,
}

/// What a storage holds.
#[derive(Clone, Debug)]
pub enum StorageData {
    /// A graph input.
    Input(InputId),
    /// A lazy elementwise value, inlined into its readers until realized.
    Pointwise(Pointwise),
    /// A lazy reduction.
    Reduction(Reduction),
    /// A realized Pointwise or Reduction (a [`ComputedBuffer`]).
    Computed(BufferId),
    /// An extern kernel's output.
    Extern(BufferId),
}

/// A storage (Inductor's `StorageBox`): realizing it replaces a lazy value by a buffer, for
/// every tensor that views it.
#[derive(Clone, Debug)]
pub struct StorageBox {
    /// The sizes.
    pub sizes: Vec<usize>,
    /// The dtype.
    pub dtype: DType,
    /// What it holds.
    pub data: StorageData,
    /// The graph nodes it computes (for lazy values, the ones inlined so far).
    pub origins: Vec<Origin>,
}

impl StorageBox {
    /// The buffer (or input) holding the data, once realized.
    pub fn buffer(&self) -> Option<BufRef> {
        match self.data {
            StorageData::Input(i) => Some(BufRef::Input(i)),
            StorageData::Computed(b) | StorageData::Extern(b) => Some(BufRef::Buffer(b)),
            StorageData::Pointwise(_) | StorageData::Reduction(_) => None,
        }
    }

    /// True while the value is lazy.
    pub fn is_lazy(&self) -> bool {
        self.buffer().is_none()
    }
}

/// A view (Inductor's `View`/`ExpandView`/`PermuteView`/...): indices of the viewed storage as
/// expressions over the view's positional variables `p0..p<rank>`. Views of views compose.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// One index expression per storage dim.
    pub reindex: Vec<IndexExpr>,
}

/// A graph value (Inductor's `TensorBox`): a storage, seen directly or through a view.
#[derive(Clone, Debug)]
pub struct TensorBox {
    /// The storage.
    pub storage: StorageId,
    /// The view, when this value is not the storage itself.
    pub view: Option<View>,
    /// The value's sizes.
    pub sizes: Vec<usize>,
    /// The value's dtype.
    pub dtype: DType,
    /// Graph view nodes between the value and its storage.
    pub view_origins: Vec<Origin>,
}
