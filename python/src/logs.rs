//! coil's tracing logs from inside Python: `COIL_LOGS` when the package loads, and the backend's
//! `logs` option (`passes,fusion`, `+sched` for trace level), to stderr.

use std::sync::OnceLock;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Registry, reload};

static FILTER: OnceLock<reload::Handle<EnvFilter, Registry>> = OnceLock::new();

fn filter(spec: &str) -> PyResult<EnvFilter> {
    let directives = coil::log_directives(spec);
    let directives = if directives.is_empty() {
        "off".to_string()
    } else {
        directives
    };
    EnvFilter::try_new(&directives)
        .map_err(|e| PyValueError::new_err(format!("coil: logs={spec:?} is not a log spec: {e}")))
}

/// Logs the stages `spec` names (`COIL_LOGS`'s spelling) to stderr from now on; an empty spec
/// logs nothing.
#[pyfunction]
pub(crate) fn set_logs(spec: &str) -> PyResult<()> {
    let new = filter(spec)?;
    if let Some(handle) = FILTER.get() {
        return handle
            .reload(new)
            .map_err(|e| PyValueError::new_err(format!("coil: cannot change the logs: {e}")));
    }
    let (layer, handle) = reload::Layer::new(new);
    let installed = tracing_subscriber::registry()
        .with(layer)
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_target(true),
        )
        .try_init();
    match installed {
        Ok(()) => {
            let _ = FILTER.set(handle);
            Ok(())
        }
        // Another library in the process installed its own subscriber first.
        Err(e) => Err(PyValueError::new_err(format!(
            "coil: cannot install its log subscriber: {e}"
        ))),
    }
}
