//! coil-sched's integration tests, in one binary: DESIGN 4.3's table, the golden dumps and
//! logs, every refusal reason, scoring, bytes, and random graphs through every strategy.

mod common;
mod explore;
mod golden;
mod refusals;
mod table;
