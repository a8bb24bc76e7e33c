//! What the schedule means for codegen and reports: one kernel (or extern call) per top-level
//! node, named as DESIGN 4.4 says (`<backend>_<poi|red|per>_fused_<sorted origin ops>_<n>`),
//! with the bytes it moves (Inductor's `num_bytes_accessed`: each distinct buffer read or
//! written once, kernel-local buffers excluded).

use std::collections::BTreeSet;
use std::fmt;

use coil_lower::{BufRef, BufferKind};

use crate::ids::NodeId;
use crate::node::NodeKind;
use crate::schedule::Schedule;

/// What a kernel is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LaunchKind {
    /// Elementwise (`poi`).
    Pointwise,
    /// A reduction looping over its rows (`red`).
    Reduction,
    /// A reduction holding each whole row at once (`per`).
    PersistentReduction,
    /// A library call (`extern_kernels.mm`).
    Extern,
}

impl LaunchKind {
    /// `poi`, `red`, `per`, `extern`.
    pub fn short_name(self) -> &'static str {
        match self {
            LaunchKind::Pointwise => "poi",
            LaunchKind::Reduction => "red",
            LaunchKind::PersistentReduction => "per",
            LaunchKind::Extern => "extern",
        }
    }
}

impl fmt::Display for LaunchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

/// One kernel or extern call of the schedule.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KernelInfo {
    /// The top-level node it runs.
    pub node: NodeId,
    /// `cpu_per_fused_add_mean_mul_relu_sub_0`, or `extern_kernels.mm`.
    pub name: String,
    /// What it is.
    pub kind: LaunchKind,
    /// Iteration elements.
    pub numel: usize,
    /// Reduction elements per iteration element.
    pub rnumel: usize,
    /// Buffers it reads from memory, in first-read order (its own outputs excluded).
    pub reads: Vec<BufRef>,
    /// Buffers it writes to memory (kernel-local ones excluded).
    pub writes: Vec<BufRef>,
    /// Buffers made and last used inside it, never written to memory.
    pub local: Vec<BufRef>,
    /// Bytes of `reads` (whole buffers).
    pub bytes_read: usize,
    /// Bytes of `writes`.
    pub bytes_written: usize,
}

impl KernelInfo {
    /// `bytes_read + bytes_written`.
    pub fn bytes(&self) -> usize {
        self.bytes_read + self.bytes_written
    }
}

impl Schedule<'_> {
    /// The kernels and extern calls in execution order (nop nodes have none).
    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// Generated kernels (extern calls not counted).
    pub fn num_kernels(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| k.kind != LaunchKind::Extern)
            .count()
    }

    /// Extern calls.
    pub fn num_extern_calls(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| k.kind == LaunchKind::Extern)
            .count()
    }

    /// Bytes all kernels and extern calls move (Inductor's `num_bytes_accessed`).
    pub fn bytes_accessed(&self) -> usize {
        self.kernels.iter().map(KernelInfo::bytes).sum()
    }

    /// The kernel running a top-level node.
    pub fn kernel_of(&self, node: NodeId) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.node == node)
    }

    /// The op names a node's kernel is named after: the op every origin of every member
    /// buffer stood for before the passes (Inductor's `original_aten`), sorted, without
    /// repeats (`add`, `mean`, `mul`, `relu`, `sub`).
    pub fn origin_op_names(&self, node: NodeId) -> Vec<&'static str> {
        let mut names: BTreeSet<&'static str> = BTreeSet::new();
        for b in self.nodes[node].buffers() {
            for o in &self.graph.buffer(b).origins {
                names.insert(
                    coil_graph::OpRef::of_kind(o.original_op)
                        .schema()
                        .name
                        .as_str(),
                );
            }
        }
        names.into_iter().collect()
    }

    /// Computes [`Schedule::kernels`] for the current order.
    pub(crate) fn finish(&mut self) {
        let mut kernels = Vec::new();
        let mut counter = 0usize;
        for &id in &self.order {
            let node = &self.nodes[id];
            if node.kind == NodeKind::Nop {
                continue;
            }
            let bytes_of = |b: BufRef| {
                let l = self.graph.layout(b);
                l.numel() * l.dtype.itemsize()
            };
            let written: Vec<BufRef> = node.buffers().map(BufRef::Buffer).collect();
            let (local, writes): (Vec<BufRef>, Vec<BufRef>) =
                written.iter().copied().partition(|&w| match w {
                    BufRef::Buffer(b) => {
                        !self.is_output(b)
                            && !self.readers(b).is_empty()
                            && self.readers(b).iter().all(|r| node.op_set.contains(*r))
                    }
                    BufRef::Input(_) | BufRef::IndexChecks => false,
                });
            let mut reads: Vec<BufRef> = Vec::new();
            for m in node.buffers() {
                for d in &self.graph.buffer(m).reads {
                    let b = d.buffer();
                    if !written.contains(&b) && !reads.contains(&b) {
                        reads.push(b);
                    }
                }
            }
            let (kind, name) = if node.kind == NodeKind::Extern {
                let op = match &self.graph.buffer(node.ops[0].buffer()).kind {
                    BufferKind::Extern(e) => e.kind.kernel_name().to_string(),
                    BufferKind::Computed(_) => "extern".to_string(),
                };
                (LaunchKind::Extern, op)
            } else {
                let kind = if !node.is_reduction {
                    LaunchKind::Pointwise
                } else if node.group.rnumel <= self.config.persistent_reduction_max_rnumel {
                    LaunchKind::PersistentReduction
                } else {
                    LaunchKind::Reduction
                };
                let ops = self.origin_op_names(id);
                let fused = if ops.is_empty() {
                    "fused".to_string()
                } else {
                    format!("fused_{}", ops.join("_"))
                };
                let name = format!(
                    "{}_{}_{fused}_{counter}",
                    self.config.backend_name,
                    kind.short_name()
                );
                counter += 1;
                (kind, name)
            };
            let bytes_read = reads.iter().map(|&b| bytes_of(b)).sum();
            let bytes_written = writes.iter().map(|&b| bytes_of(b)).sum();
            kernels.push(KernelInfo {
                node: id,
                name,
                kind,
                numel: node.group.numel,
                rnumel: node.group.rnumel,
                reads,
                writes,
                local,
                bytes_read,
                bytes_written,
            });
        }
        self.kernels = kernels;
    }
}
