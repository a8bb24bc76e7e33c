//! coil-cuda's integration tests: one binary, one module per concern.

mod builder;
mod driver;
mod emulate;
mod facade;
mod golden;
mod math_accuracy;
mod ptxas;
mod render;
mod runtime;
mod strategies;
mod zoo;
