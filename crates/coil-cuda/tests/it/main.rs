//! coil-cuda's integration tests: one binary, one module per concern.

mod driver;
mod emulate;
mod facade;
mod golden;
mod ptxas;
mod render;
mod runtime;
mod strategies;
mod zoo;
