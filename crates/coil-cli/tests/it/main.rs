//! coil-cli's integration tests: `coil run-model` as a user runs it (policies, compile-only
//! reports, debug artifacts, option errors).

mod run_model;
