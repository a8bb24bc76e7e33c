//! coil-python: the native half of the `coil` Python package (PyO3, abi3).
//!
//! **Takes**: an ATen graph as readable-FX text (what `GraphModule.print_readable` prints and
//! coil-graph parses), the device to compile for (`cpu`, or `cuda` on a GPU), options
//! (`strategy`, `debug_dir`); at run time, the inputs as raw host pointers with dtypes and
//! sizes (contiguous), and the outputs' pointers (memory the caller allocated through torch).
//! **Gives**: `compile(text, device, options) -> Model`; `Model.output_specs()`,
//! `Model.run(inputs, outputs)`, `Model.report()` (kernels, extern calls, host fallbacks,
//! compile seconds).
//! **Must not know about**: torch (the Python side converts and allocates), Dynamo, autograd.

use std::sync::Arc;

use coil::{CompiledModel, Options};
use coil_graph::DType;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A compiled graph.
#[pyclass(frozen)]
struct Model {
    inner: CompiledModel,
    device: String,
}

fn dtype(name: &str) -> PyResult<DType> {
    DType::from_short_name(name)
        .or_else(|| DType::from_torch_name(name))
        .ok_or_else(|| PyValueError::new_err(format!("coil does not take dtype {name}")))
}

fn err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// Compiles `text` (readable-FX ATen) for `device` (`cpu` or `cuda`).
#[pyfunction]
#[pyo3(signature = (text, device, options=None))]
fn compile(text: &str, device: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<Model> {
    let graph = coil_graph::parse(text).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut opts = Options::default();
    if let Some(o) = options {
        if let Some(s) = o.get_item("strategy")? {
            let name: String = s.extract()?;
            opts = Options {
                debug_dir: opts.debug_dir,
                ..Options::with_strategy(&name).map_err(err)?
            };
        }
        if let Some(d) = o.get_item("debug_dir")? {
            let dir: String = d.extract()?;
            opts.debug_dir = Some(dir.into());
        }
    }
    let backend: Arc<dyn coil_codegen::Backend> = match device {
        "cpu" => Arc::new(coil_cpu::CpuBackend::new().map_err(err)?),
        "cuda" => Arc::new(coil_cuda::CudaBackend::new().map_err(err)?),
        other => {
            return Err(PyValueError::new_err(format!(
                "coil compiles for cpu or cuda, not {other}"
            )));
        }
    };
    let inner = coil::compile(&graph, backend, &opts).map_err(err)?;
    Ok(Model {
        inner,
        device: device.to_string(),
    })
}

#[pymethods]
impl Model {
    /// `(dtype, sizes)` of each output, in order (contiguous).
    fn output_specs(&self) -> Vec<(String, Vec<usize>)> {
        self.inner
            .outputs()
            .into_iter()
            .map(|(d, sizes)| (d.short_name().to_string(), sizes))
            .collect()
    }

    /// Runs on host memory: `inputs` as `(pointer, dtype, sizes)` of contiguous tensors,
    /// `outputs` as pointers to contiguous memory of the output specs. The backend reads and
    /// writes them in place where it can (coil-cpu: 64-byte aligned memory), else copies.
    /// Returns how many inputs and outputs were used in place.
    fn run(
        &self,
        inputs: Vec<(usize, String, Vec<usize>)>,
        outputs: Vec<usize>,
    ) -> PyResult<(usize, usize)> {
        let mut slices: Vec<&[u8]> = Vec::with_capacity(inputs.len());
        for (ptr, dt, sizes) in &inputs {
            let bytes = sizes.iter().product::<usize>() * dtype(dt)?.itemsize();
            // SAFETY: the caller passes the data pointer of a live contiguous tensor of these
            // sizes and dtype (coil.backend does, from torch), alive for the call.
            slices.push(unsafe { std::slice::from_raw_parts(*ptr as *const u8, bytes) });
        }
        let specs = self.inner.outputs();
        if specs.len() != outputs.len() {
            return Err(PyValueError::new_err(format!(
                "the graph has {} outputs, {} pointers given",
                specs.len(),
                outputs.len()
            )));
        }
        let mut outs: Vec<&mut [u8]> = Vec::with_capacity(outputs.len());
        for ((d, sizes), ptr) in specs.iter().zip(outputs) {
            let bytes = sizes.iter().product::<usize>() * d.itemsize();
            // SAFETY: the caller allocated each output with its spec's sizes and dtype, alive
            // and not otherwise accessed for the call.
            outs.push(unsafe { std::slice::from_raw_parts_mut(ptr as *mut u8, bytes) });
        }
        self.inner.run_host(&slices, &mut outs).map_err(err)
    }

    /// Runs on CUDA memory in place: `inputs` and `outputs` as `(device address, bytes)` of
    /// contiguous tensors, ready on the device. `False` (nothing run) when the model cannot use
    /// them in place (an output that is a view of another buffer): copy through `run` then.
    fn run_device(&self, inputs: Vec<(u64, usize)>, outputs: Vec<(u64, usize)>) -> PyResult<bool> {
        if self.device != "cuda" {
            return Ok(false);
        }
        // SAFETY: coil.backend passes the data pointers and sizes of live contiguous CUDA
        // tensors, synchronized with the current stream, alive for the call.
        unsafe { self.inner.run_device(&inputs, &outputs) }.map_err(err)
    }

    /// What compiling did: `{"kernels", "extern_calls", "fallback_ops", "compile_s", "device"}`.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.inner.report;
        let d = PyDict::new(py);
        d.set_item("kernels", r.num_kernels)?;
        d.set_item("extern_calls", r.num_extern_calls)?;
        d.set_item("fallback_ops", r.fallback_ops.clone())?;
        d.set_item("compile_s", r.times.total_ms() / 1000.0)?;
        d.set_item("device", self.device.clone())?;
        Ok(d)
    }
}

/// The native module, `coil._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_class::<Model>()?;
    Ok(())
}
