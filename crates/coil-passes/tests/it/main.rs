//! coil-passes integration tests: golden before/after text per rule family (including graphs
//! where a rule must not fire), the zoo evaluated before and after, and random graphs.

mod common;
mod families;
mod props;
mod zoo;
