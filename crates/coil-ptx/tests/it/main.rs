//! coil-ptx's integration tests: the PTX builder's output and errors, and the math routines'
//! accuracy measured on the host model.

mod builder;
mod math_accuracy;
