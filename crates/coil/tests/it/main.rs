//! coil facade tests: the whole pipeline through the reference evaluator's backend and the
//! CPU's (the conformance suite), strategies defined outside coil-sched, the stage verifiers.

mod cpu;
mod deep;
mod edge_shapes;
mod embedding_bag;
mod gpu_sizes;
mod in_place;
mod program_cache;
mod real_ops;
mod scatter;
mod sizes;
mod strategy;
mod zero_size;
mod zoo;
