//! coil-kernel's integration tests: one binary.

mod reader;
