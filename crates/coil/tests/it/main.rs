//! coil facade tests: the whole pipeline through a backend that interprets the kernel IR,
//! written here only against the public `Backend` trait (so a backend needs no other crate
//! touched), checked against PyTorch's outputs and coil-eager.

mod cpu;
mod interp_backend;
mod zoo;
