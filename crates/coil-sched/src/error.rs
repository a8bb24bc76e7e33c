//! The scheduler's errors: a lowering it cannot schedule, or a fusion request that breaks the
//! schedule's rules.

use thiserror::Error;

/// What can go wrong while scheduling.
#[derive(Debug, Error)]
pub enum SchedError {
    /// A body reads a buffer that no earlier operation computes.
    #[error("{op} reads {buffer}, which no operation computes before it")]
    UndefinedRead {
        /// The reading operation (`op3`).
        op: String,
        /// The buffer (`buf7`).
        buffer: String,
    },
    /// The dependencies form a cycle (the lowering never makes one).
    #[error("the dependencies form a cycle through {0}")]
    Cycle(String),
    /// A strategy asked for a fusion the schedule cannot make.
    #[error("cannot fuse {nodes}: {reason}")]
    BadFusion {
        /// The nodes named.
        nodes: String,
        /// Why not.
        reason: String,
    },
    /// The schedule breaks one of its invariants ([`crate::Schedule::verify`]): a strategy
    /// or scheduler bug.
    #[error("invalid schedule: {0}")]
    Invalid(String),
    /// No built-in strategy has this name.
    #[error("unknown fusion strategy '{name}' ({known})")]
    UnknownStrategy {
        /// The name asked for.
        name: String,
        /// The names known, comma-separated.
        known: String,
    },
}
