//! coil-sched's integration tests, in one binary.

mod common;
mod explore;
