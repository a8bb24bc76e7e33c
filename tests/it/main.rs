//! Workspace-level tests.

mod tidy;
