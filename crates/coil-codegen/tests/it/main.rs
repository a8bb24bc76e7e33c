//! coil-codegen integration tests: kernel IR golden text, plans, and a test backend written
//! only against the public `Backend` trait.

mod kernels;
