//! coil-kernel's integration tests: one binary.

mod copy_buffer;
mod reader;
