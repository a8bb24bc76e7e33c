//! Scheduler nodes: one realized buffer's operation (`SchedulerNode`, `ExternKernelSchedulerNode`,
//! `NopKernelSchedulerNode`) or several run as one kernel (`FusedSchedulerNode`, and the CPU's
//! `OuterLoopFusedSchedulerNode`), with their read/write sets, dependencies, ancestors, order
//! positions, loop sizes and group.

use hashbrown::HashSet;
use std::fmt;

use coil_lower::{BufRef, BufferId};

use crate::config::Device;
use crate::deps::DepId;
use crate::ids::{NodeId, OpId, OpSet};

/// What a scheduler node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// One computed buffer: a loop nest with a body (Inductor's `SchedulerNode`).
    Scheduler,
    /// One library call (Inductor's `ExternKernelSchedulerNode`): never fused.
    Extern,
    /// One buffer with nothing to compute (no elements; Inductor's `NopKernelSchedulerNode`).
    Nop,
    /// Several nodes run as one kernel (Inductor's `FusedSchedulerNode`; with an outer loop,
    /// the CPU's `OuterLoopFusedSchedulerNode`).
    Fused,
}

impl NodeKind {
    /// Inductor's class name.
    pub fn class_name(self) -> &'static str {
        match self {
            NodeKind::Scheduler => "SchedulerNode",
            NodeKind::Extern => "ExternKernelSchedulerNode",
            NodeKind::Nop => "NopKernelSchedulerNode",
            NodeKind::Fused => "FusedSchedulerNode",
        }
    }
}

/// A node's loops: the iteration loop sizes then the reduction loop sizes, after merging
/// adjacent loops that every index walks as one (Inductor's `simplify_and_reorder` without
/// the reordering). The CPU loop rules compare these; the SIMD rules their products.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct LoopSizes {
    /// Iteration loop sizes, outermost first (empty for a reduction to one element).
    pub vars: Vec<usize>,
    /// Reduction loop sizes (empty for pointwise nodes).
    pub reduce: Vec<usize>,
}

impl LoopSizes {
    /// Elements computed: the product of the iteration sizes.
    pub fn numel(&self) -> usize {
        self.vars.iter().product()
    }

    /// Elements reduced per output: the product of the reduction sizes (1 for pointwise).
    pub fn rnumel(&self) -> usize {
        self.reduce.iter().product()
    }
}

/// `((1024,), (1024,))`, as Inductor prints a CPU group.
impl fmt::Display for LoopSizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tuple = |v: &[usize]| match v {
            [one] => format!("({one},)"),
            v => format!(
                "({})",
                v.iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        write!(f, "({}, {})", tuple(&self.vars), tuple(&self.reduce))
    }
}

/// `(device, (numel, rnumel))`: nodes with the same group can share one loop nest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Group {
    /// Where it runs.
    pub device: Device,
    /// Iteration elements.
    pub numel: usize,
    /// Reduction elements per iteration element (1 for pointwise).
    pub rnumel: usize,
}

/// `(cpu, (1024, 1024))`.
impl fmt::Display for Group {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, ({}, {}))", self.device, self.numel, self.rnumel)
    }
}

/// Reads and writes as interned deps ([`crate::Schedule::dep`]), in first-use order without
/// repeats (Inductor's `ReadWrites`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadWrites {
    /// What is read.
    pub reads: Vec<DepId>,
    /// What is written.
    pub writes: Vec<DepId>,
}

impl ReadWrites {
    /// Inductor's `ReadWrites.merge_list`: the union of the writes, and the union of the reads
    /// minus the deps that equal a write (a value made and used inside).
    pub fn merge(parts: &[&ReadWrites]) -> ReadWrites {
        let mut seen: HashSet<DepId> = HashSet::new();
        let writes: Vec<DepId> = parts
            .iter()
            .flat_map(|p| &p.writes)
            .copied()
            .filter(|w| seen.insert(*w))
            .collect();
        let reads: Vec<DepId> = parts
            .iter()
            .flat_map(|p| &p.reads)
            .copied()
            .filter(|r| seen.insert(*r))
            .collect();
        ReadWrites { reads, writes }
    }
}

/// The CPU's outer-loop fusion: the parts share their first `depth` loops, each running its
/// own inner loops (Inductor's `OuterLoopFusedSchedulerNode`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OuterLoop {
    /// Shared outer loops.
    pub depth: usize,
    /// The nodes sharing them (plain or fused nodes), in order.
    pub parts: Vec<NodeId>,
}

/// A node of the schedule.
#[derive(Clone, Debug)]
pub struct SchedNode {
    pub(crate) id: NodeId,
    pub(crate) name: String,
    pub(crate) kind: NodeKind,
    pub(crate) ops: Vec<OpId>,
    pub(crate) op_set: OpSet,
    pub(crate) outer_loop: Option<OuterLoop>,
    pub(crate) sizes: LoopSizes,
    pub(crate) group: Group,
    pub(crate) is_reduction: bool,
    /// Its reductions (scans included): a fused kernel's reduction stages.
    pub(crate) reductions: usize,
    /// As the lowering wrote them (what the dumps print).
    pub(crate) read_writes: ReadWrites,
    /// The same, each `MemoryDep` normalized (what fusion compares).
    pub(crate) norm: ReadWrites,
    pub(crate) unmet: Vec<DepId>,
    pub(crate) norm_unmet: Vec<DepId>,
    /// `norm.reads ∪ norm.writes`, sorted, for `score_fusion_memory`.
    pub(crate) dep_ids: Vec<DepId>,
    /// (dtype, storage size) of the single-use buffers it reads, sorted without repeats, for
    /// the peak-memory brake.
    pub(crate) single_use_reads: Vec<(coil_graph::DType, usize)>,
    /// Buffers of `read_writes`, without repeats (Inductor's `used_buffer_names`).
    pub(crate) used_buffers: Vec<BufRef>,
    pub(crate) ancestors: OpSet,
    pub(crate) min_order: usize,
    pub(crate) max_order: usize,
}

impl SchedNode {
    /// Its arena id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// `op3`, or the member names joined for fused nodes (`op0_op1`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What it is.
    pub fn kind(&self) -> NodeKind {
        self.kind
    }

    /// Inductor's class name (`FusedSchedulerNode`, `OuterLoopFusedSchedulerNode`, ...).
    pub fn class_name(&self) -> &'static str {
        if self.outer_loop.is_some() {
            "OuterLoopFusedSchedulerNode"
        } else {
            self.kind.class_name()
        }
    }

    /// Its operations, in execution order (one for a base node).
    pub fn ops(&self) -> &[OpId] {
        &self.ops
    }

    /// Its operations as a set.
    pub fn op_set(&self) -> &OpSet {
        &self.op_set
    }

    /// The buffers it computes, in execution order.
    pub fn buffers(&self) -> impl Iterator<Item = BufferId> + '_ {
        self.ops.iter().map(|o| o.buffer())
    }

    /// True for nodes of several operations.
    pub fn is_fused(&self) -> bool {
        self.kind == NodeKind::Fused
    }

    /// True for extern and nop nodes (they never fuse).
    pub fn is_extern_or_nop(&self) -> bool {
        matches!(self.kind, NodeKind::Extern | NodeKind::Nop)
    }

    /// The CPU outer-loop fusion, when this node is one.
    pub fn outer_loop(&self) -> Option<&OuterLoop> {
        self.outer_loop.as_ref()
    }

    /// Its loop sizes (for a fused node, those of its first reduction, else of its first part).
    pub fn sizes(&self) -> &LoopSizes {
        &self.sizes
    }

    /// `(device, (numel, rnumel))`.
    pub fn group(&self) -> Group {
        self.group
    }

    /// Whether one of its operations computes `buf` (never a graph input).
    pub fn produces(&self, buf: BufRef) -> bool {
        match buf {
            BufRef::Buffer(x) => self.op_set.contains(OpId::of_buffer(x)),
            BufRef::Input(_) | BufRef::IndexChecks => false,
        }
    }

    /// True when it reduces (for a fused node: when any member does).
    pub fn is_reduction(&self) -> bool {
        self.is_reduction
    }

    /// Reads and writes, as the lowering wrote the deps.
    pub fn read_writes(&self) -> &ReadWrites {
        &self.read_writes
    }

    /// Reads and writes with every `MemoryDep` normalized (what fusion compares).
    pub fn normalized_read_writes(&self) -> &ReadWrites {
        &self.norm
    }

    /// Reads of buffers other nodes compute (Inductor's `unmet_dependencies`).
    pub fn unmet_dependencies(&self) -> &[DepId] {
        &self.unmet
    }

    /// Reads of graph inputs (Inductor's `met_dependencies`: reads minus unmet).
    pub fn met_dependencies(&self) -> Vec<DepId> {
        self.read_writes
            .reads
            .iter()
            .copied()
            .filter(|d| !self.unmet.contains(d))
            .collect()
    }

    /// Every operation it depends on, directly or not (for fused nodes, the union over the
    /// members, which may include members).
    pub fn ancestors(&self) -> &OpSet {
        &self.ancestors
    }

    /// Its first position in the original (topologically sorted) order.
    pub fn min_order(&self) -> usize {
        self.min_order
    }

    /// Its last position in the original order.
    pub fn max_order(&self) -> usize {
        self.max_order
    }

    /// Number of operations.
    pub fn num_ops(&self) -> usize {
        self.ops.len()
    }
}
