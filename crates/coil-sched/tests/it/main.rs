//! coil-sched's integration tests, in one binary: DESIGN 4.3's table, the golden dumps and
//! logs, every refusal reason, scoring, bytes, and random graphs through every strategy.

mod bytes;
mod common;
mod dumps;
mod golden;
mod props;
mod refusals;
mod scoring;
mod table;
