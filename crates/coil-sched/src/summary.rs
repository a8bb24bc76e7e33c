//! An owned record of a schedule, for whoever keeps the schedule's result after the lowered
//! graph it borrows (the facade's compiled model, reports).

use coil_lower::BufferId;

use crate::kernel::{KernelInfo, LaunchKind};
use crate::schedule::Schedule;

/// What a schedule decided, without the borrow of the lowered graph: the strategy, the
/// top-level nodes' members in execution order, the kernels, the fusion log.
#[derive(Clone, Debug, PartialEq)]
pub struct ScheduleSummary {
    /// The strategy's name (`inductor`).
    pub strategy: &'static str,
    /// Scheduler nodes before fusion (live operations).
    pub nodes_before: usize,
    /// Each top-level node's member buffers, in execution order.
    pub nodes: Vec<Vec<BufferId>>,
    /// The kernels and extern calls in execution order.
    pub kernels: Vec<KernelInfo>,
    /// The fusion log, Inductor's words.
    pub fusion_log: Vec<String>,
}

impl ScheduleSummary {
    /// Generated kernels (extern calls not counted).
    pub fn num_kernels(&self) -> usize {
        self.kernels
            .iter()
            .filter(|k| k.kind != LaunchKind::Extern)
            .count()
    }

    /// Extern calls.
    pub fn num_extern_calls(&self) -> usize {
        self.kernels.len() - self.num_kernels()
    }

    /// Bytes all kernels and extern calls move (Inductor's `num_bytes_accessed`).
    pub fn bytes_accessed(&self) -> usize {
        self.kernels.iter().map(KernelInfo::bytes).sum()
    }
}

impl Schedule<'_> {
    /// An owned record of this schedule.
    pub fn summary(&self) -> ScheduleSummary {
        ScheduleSummary {
            strategy: self.strategy,
            nodes_before: self.graph.buffers().len() - self.removed.len(),
            nodes: self.nodes().map(|n| n.buffers().collect()).collect(),
            kernels: self.kernels.clone(),
            fusion_log: self.log.clone(),
        }
    }
}
