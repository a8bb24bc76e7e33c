//! coil-graph's integration tests, in one binary (one link step): parsing, printing,
//! round trips over the model zoo and built graphs, error reporting, and fuzzing.

mod errors;
mod fuzz;
mod parse;
mod print;
mod roundtrip;
mod symbolic;
mod zoo;
