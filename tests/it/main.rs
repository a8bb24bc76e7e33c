//! Workspace-level tests.

mod invariants;
mod tidy;
