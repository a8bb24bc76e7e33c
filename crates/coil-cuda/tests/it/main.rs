//! coil-cuda's integration tests: one binary, one module per concern.

mod builder;
mod golden;
mod math_accuracy;
mod ptxas;
mod runtime;
