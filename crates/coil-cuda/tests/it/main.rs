//! coil-cuda's integration tests: one binary, one module per concern.

mod math_accuracy;
