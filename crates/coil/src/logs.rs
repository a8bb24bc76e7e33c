//! The `COIL_LOGS` spelling (like `TORCH_LOGS`): `passes,fusion` logs those tracing targets at
//! debug level, `+passes` at trace level. Front ends (the CLI, the Python package) turn it into
//! a tracing filter; the facade itself installs no subscriber.

/// The tracing filter directives (`passes=debug,fusion=trace`) for a `COIL_LOGS` spec.
pub fn log_directives(spec: &str) -> String {
    spec.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| match s.strip_prefix('+') {
            Some(t) => format!("{t}=trace"),
            None => format!("{s}=debug"),
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::log_directives;

    #[test]
    fn targets_get_debug_and_plus_gets_trace() {
        assert_eq!(
            log_directives("passes, +fusion,,"),
            "passes=debug,fusion=trace"
        );
        assert_eq!(log_directives(""), "");
    }
}
