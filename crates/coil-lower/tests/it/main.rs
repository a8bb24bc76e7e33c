//! coil-lower's integration tests, in one binary: the seed model's dump, the zoo's buffer
//! counts, the realize rules, the IR interpreter against PyTorch and coil-eager, and errors.

mod common;
mod epilogues;
mod errors;
mod ops;
mod random;
mod realize;
mod seed;
mod zoo;
