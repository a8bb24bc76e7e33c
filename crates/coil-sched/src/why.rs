//! Why two nodes do not fuse: one value per refusal, printing Inductor's reason string (the
//! text after `cannot fuse op1 with op3: ` in the fusion log).

use std::fmt;

/// A refusal of `can_fuse(node1, node2)`. `Display` is Inductor's reason string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WhyNoFuse {
    /// Both are the same node (silent in Inductor's log).
    SameNode,
    /// `node1 is extern or nop`.
    Node1ExternOrNop,
    /// `node2 is extern or nop`.
    Node2ExternOrNop,
    /// One of them writes a buffer it does not produce (a scatter).
    Mutation,
    /// `node1 must go before node2`: node1 depends on node2.
    MustGoBefore,
    /// `device mismatch (cpu vs cuda:0)`.
    DeviceMismatch(String, String),
    /// `no shared data`.
    NoSharedData,
    /// `exceeds max fusion`: more than `max_fusion_size` nodes.
    ExceedsMaxFusion,
    /// More reductions than `max_reduction_stages` in one kernel (coil's own brake).
    TooManyReductions(usize),
    /// `Fusion will increase peak memory`.
    PeakMemory,
    /// `fusion_prevent_too_many_reads_and_writes`.
    TooManyReadsAndWrites,
    /// `score_fusion_memory_threshold`: a horizontal fusion saving fewer bytes than the
    /// threshold.
    ScoreThreshold,
    /// `Nodes are too far away. Fusing them may increase peak memory.`
    TooFarApart,
    /// `memory deps did not match`: node2 reads node1's output other than as node1 writes it.
    MemoryDepsDidNotMatch,
    /// `intermediate nodes between node1 & node2`.
    IntermediateNodes,
    /// `will create cycle`.
    WillCreateCycle,
    /// A loop-compatibility refusal from the backend's rules (SIMD's `numel/rnumel mismatch
    /// ...`, or coil's words where Inductor's CPU rules refuse silently). `swapped` when the
    /// rule looked at the pair the other way round, as Inductor's SIMD rules do for reduction
    /// then pointwise: the log then names the nodes in that order.
    Backend {
        /// The reason.
        reason: String,
        /// The log names node2 first.
        swapped: bool,
    },
    /// A scorer's own refusal (e.g. register pressure).
    Scorer(String),
    /// A template with a node that is not one of the epilogues its library applies.
    NotAnEpilogue,
    /// A template with an epilogue while `epilogue_fusion` is off.
    EpilogueFusionOff,
    /// A template as the second node (a prologue: coil's libraries take none).
    TemplatePrologue,
}

impl WhyNoFuse {
    /// A backend refusal, naming the nodes in the order asked.
    pub fn backend(reason: impl Into<String>) -> WhyNoFuse {
        WhyNoFuse::Backend {
            reason: reason.into(),
            swapped: false,
        }
    }

    /// True for refusals Inductor does not log.
    pub fn is_silent(&self) -> bool {
        matches!(self, WhyNoFuse::SameNode)
    }

    /// True when the log line names node2 first.
    pub fn is_swapped(&self) -> bool {
        matches!(self, WhyNoFuse::Backend { swapped: true, .. })
    }

    /// The same refusal, naming the nodes the other way round.
    pub fn swap(self) -> WhyNoFuse {
        match self {
            WhyNoFuse::Backend { reason, swapped } => WhyNoFuse::Backend {
                reason,
                swapped: !swapped,
            },
            other => other,
        }
    }
}

impl fmt::Display for WhyNoFuse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhyNoFuse::SameNode => f.write_str("same node"),
            WhyNoFuse::Node1ExternOrNop => f.write_str("node1 is extern or nop"),
            WhyNoFuse::Mutation => f.write_str("one of them mutates a buffer (a scatter)"),
            WhyNoFuse::Node2ExternOrNop => f.write_str("node2 is extern or nop"),
            WhyNoFuse::MustGoBefore => f.write_str("node1 must go before node2"),
            WhyNoFuse::DeviceMismatch(a, b) => write!(f, "device mismatch ({a} vs {b})"),
            WhyNoFuse::NoSharedData => f.write_str("no shared data"),
            WhyNoFuse::ExceedsMaxFusion => f.write_str("exceeds max fusion"),
            WhyNoFuse::TooManyReductions(n) => {
                write!(f, "more than {n} reductions in one kernel")
            }
            WhyNoFuse::PeakMemory => f.write_str("Fusion will increase peak memory"),
            WhyNoFuse::TooManyReadsAndWrites => {
                f.write_str("fusion_prevent_too_many_reads_and_writes")
            }
            WhyNoFuse::ScoreThreshold => f.write_str("score_fusion_memory_threshold"),
            WhyNoFuse::TooFarApart => {
                f.write_str("Nodes are too far away. Fusing them may increase peak memory.")
            }
            WhyNoFuse::MemoryDepsDidNotMatch => f.write_str("memory deps did not match"),
            WhyNoFuse::IntermediateNodes => f.write_str("intermediate nodes between node1 & node2"),
            WhyNoFuse::WillCreateCycle => f.write_str("will create cycle"),
            WhyNoFuse::Backend { reason, .. } => f.write_str(reason),
            WhyNoFuse::Scorer(reason) => f.write_str(reason),
            WhyNoFuse::NotAnEpilogue => f.write_str(
                "template epilogue: node2 is not a pointwise op the template's library applies",
            ),
            WhyNoFuse::EpilogueFusionOff => {
                f.write_str("template epilogue: epilogue_fusion is off")
            }
            WhyNoFuse::TemplatePrologue => f.write_str("template prologue: node2 is a template"),
        }
    }
}
