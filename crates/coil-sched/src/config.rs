//! The scheduler's knobs: Inductor's fusion brakes (`max_fusion_size`,
//! `score_fusion_memory_threshold`, the pairing window, proximity, peak memory), the device,
//! and the kernel-naming settings.

pub use coil_kernel::Device;

/// Everything the scheduler's fusion decisions depend on besides the graph, the loop rules
/// ([`crate::LoopCompat`]) and the scorer ([`crate::FusionScorer`]). Defaults are Inductor's.
#[derive(Clone, Debug, PartialEq)]
pub struct SchedConfig {
    /// The device every node runs on.
    pub device: Device,
    /// The backend's name, the first word of kernel names (`cpu`, `cuda`).
    pub backend_name: String,
    /// At most this many nodes in one fused node (Inductor's `max_fusion_size`, 64).
    pub max_fusion_size: usize,
    /// At most this many reductions in one fused node (`None`: no limit, as Inductor). coil's
    /// own brake, 8 by default: each reduction stage of a kernel recomputes the values before
    /// it (the kernel IR's stages are loops of their own over the row), so a kernel's code
    /// grows with the square of its stages; a chain of 500 softmaxes fused 18 to a kernel
    /// (36 stages) took the CPU backend 17 s to compile (docs/perf.md).
    pub max_reduction_stages: Option<usize>,
    /// Horizontal fusion needs at least this many shared bytes
    /// (`score_fusion_memory_threshold`, 10).
    pub score_fusion_memory_threshold: usize,
    /// Within a buffer group, each node is paired with at most this many following nodes
    /// (`max_fusion_buffer_group_pairwise_attempts`, 64).
    pub max_fusion_buffer_group_pairwise_attempts: usize,
    /// Also pair nodes with the same group, and let pointwise nodes with no shared data fuse
    /// (`aggressive_fusion`, false).
    pub aggressive_fusion: bool,
    /// Rounds of `fuse_nodes_once` (10).
    pub max_fusion_rounds: usize,
    /// Horizontal fusion refuses nodes further apart than this in the original order (the 64
    /// hard-coded in Inductor's `are_long_distant_nodes`).
    pub max_fusion_distance: usize,
    /// A fusion is refused when the single-use buffers both nodes read, by storage size,
    /// exceed this many times the shared bytes (the 32 in `can_fusion_increase_peak_memory`).
    pub peak_memory_factor: usize,
    /// Refuse fusions whose result reads and writes more distinct buffers than this
    /// (`max_fusion_unique_io_buffers`; `None`, off, as in Inductor).
    pub max_fusion_unique_io_buffers: Option<usize>,
    /// The CPU loop rules refuse horizontal fusions of more nodes than this
    /// (`cpp.max_horizontal_fusion_size`, 16).
    pub cpp_max_horizontal_fusion_size: usize,
    /// `buffer_overlap_score` counts only when the shared read bytes are at least this fraction
    /// of the larger node's reads.
    pub min_overlap_ratio: f64,
    /// A reduction whose rows have at most this many elements is persistent (`per`: the whole
    /// row at once), otherwise looped (`red`). Inductor's GPU limit is 1024.
    pub persistent_reduction_max_rnumel: usize,
    /// Library calls that take pointwise epilogues, and which ([`Template`]): Inductor's
    /// template nodes. Empty: every extern node is a plain `ExternKernelSchedulerNode`.
    pub templates: Vec<Template>,
    /// Fuse templates with their epilogues at all (Inductor's `epilogue_fusion`, true).
    pub epilogue_fusion: bool,
    /// Score template epilogues above other fusions (Inductor's `epilogue_fusion_first`,
    /// false: ordinary fusions with shared data go first, the template pairs after).
    pub epilogue_fusion_first: bool,
}

/// A library call that applies pointwise epilogues to its output while it is in cache (a
/// matmul or convolution with post-ops): Inductor's template node. The backend's lowering
/// names the buffers it could take; the scheduler decides which do join (`can_fuse` and the
/// fusion scores treat the pair as Inductor treats a template and its epilogue).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    /// The library call's buffer.
    pub node: coil_lower::BufferId,
    /// The pointwise buffers it can apply, in the order it would.
    pub epilogue: Vec<coil_lower::BufferId>,
}

/// The default of [`SchedConfig::max_reduction_stages`].
pub(crate) const MAX_REDUCTION_STAGES: usize = 8;

impl SchedConfig {
    /// Inductor's defaults for the CPU backend (kernels named `cpu_...`).
    pub fn cpu() -> SchedConfig {
        SchedConfig {
            device: Device::Cpu,
            backend_name: "cpu".into(),
            max_fusion_size: 64,
            max_reduction_stages: Some(MAX_REDUCTION_STAGES),
            score_fusion_memory_threshold: 10,
            max_fusion_buffer_group_pairwise_attempts: 64,
            aggressive_fusion: false,
            max_fusion_rounds: 10,
            max_fusion_distance: 64,
            peak_memory_factor: 32,
            max_fusion_unique_io_buffers: None,
            cpp_max_horizontal_fusion_size: 16,
            min_overlap_ratio: 0.5,
            persistent_reduction_max_rnumel: 1024,
            templates: Vec::new(),
            epilogue_fusion: true,
            epilogue_fusion_first: false,
        }
    }

    /// Inductor's defaults for a CUDA device (kernels named `cuda_...`).
    pub fn gpu() -> SchedConfig {
        SchedConfig {
            device: Device::Cuda(0),
            backend_name: "cuda".into(),
            ..SchedConfig::cpu()
        }
    }
}

impl SchedConfig {
    /// The knobs for a backend's target: the device's defaults, its name as the kernel prefix,
    /// its choice of `epilogue_fusion_first`.
    pub fn for_target(target: &coil_kernel::Target) -> SchedConfig {
        let base = match target.device {
            Device::Cpu => SchedConfig::cpu(),
            Device::Cuda(_) => SchedConfig::gpu(),
        };
        SchedConfig {
            device: target.device,
            backend_name: target.name.to_string(),
            epilogue_fusion_first: target.epilogue_fusion_first,
            ..base
        }
    }
}

impl Default for SchedConfig {
    fn default() -> SchedConfig {
        SchedConfig::cpu()
    }
}
