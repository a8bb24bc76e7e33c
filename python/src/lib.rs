//! coil-python: the native half of the `coil` Python package (PyO3, abi3).
//!
//! **Takes**: an ATen graph, described as plain Python data by `coil._fx` (converted by [`fx`]
//! straight into a coil graph) or as readable-FX text (what `GraphModule.print_readable` prints
//! and coil-graph parses; both give the same graph); the device to compile for (`cpu`, or
//! `cuda` on a GPU); options (`strategy`, `debug_dir`) and the stages to log (`set_logs`); at
//! run time, the inputs' and outputs' raw pointers (host or CUDA memory the caller allocated
//! through torch, contiguous, of the model's specs) and torch's current stream.
//! **Gives**: `compile(graph, device, options) -> Model`; `print_graph(graph)` (coil's readable
//! text of either form); `Model.output_specs()`, `Model.run(inputs, outputs)` (host memory),
//! `Model.run_device(inputs, outputs, stream, defer_checks)` (CUDA memory),
//! `Model.check_deferred(stream)`, `Model.report()` (kernels, extern
//! calls, host fallbacks, compile seconds).
//! **Must not know about**: torch (the Python side converts and allocates), Dynamo, autograd.

mod fx;
mod logs;

use std::sync::Arc;

use coil::{CompiledModel, Options};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A compiled graph.
#[pyclass(frozen)]
struct Model {
    inner: CompiledModel,
    device: String,
    /// Each input's and output's bytes (contiguous), for the pointer-only calls.
    input_bytes: Vec<usize>,
    output_bytes: Vec<usize>,
}

fn err(e: impl std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// The graph `source` gives: readable-FX text, or the description `coil._fx` builds.
fn graph_of(source: &Bound<'_, PyAny>) -> PyResult<coil_graph::Graph> {
    match source.extract::<String>() {
        Ok(text) => coil_graph::parse(&text).map_err(|e| PyValueError::new_err(e.to_string())),
        Err(_) => fx::build(source),
    }
}

/// coil's readable text of the graph `source` gives (to compare the two ways in).
#[pyfunction]
fn print_graph(source: &Bound<'_, PyAny>) -> PyResult<String> {
    Ok(coil_graph::print_graph(&graph_of(source)?))
}

/// Whether the CPU backend's f32 matmuls take the BLAS of the PyTorch loaded in this process
/// (`libtorch_cpu.so`'s `sgemm_`), as eager's do.
/// The workspace's one oracle (`coil_eager::oracle::judge`) on flat values: whether `got` is
/// as accurate as `eager` against the float64 result `exact`, for outputs of `dtype` (coil's
/// short name: `f32`, `bf16`, ...). Returns `(ok, rule, detail)`.
#[pyfunction]
#[pyo3(signature = (got, eager, exact, dtype, floor=0.0))]
fn judge(
    got: Vec<f64>,
    eager: Vec<f64>,
    exact: Vec<f64>,
    dtype: &str,
    floor: f64,
) -> PyResult<(bool, String, String)> {
    let d = coil_graph::DType::from_short_name(dtype)
        .ok_or_else(|| PyValueError::new_err(format!("unknown dtype '{dtype}'")))?;
    let v = coil_eager::oracle::judge(&got, &eager, &exact, d, floor);
    Ok((v.ok, format!("{:?}", v.rule), v.detail))
}

#[pyfunction]
fn eager_blas_loaded() -> bool {
    coil_cpu::eager_blas_loaded()
}

/// The dtypes (`torch.float32`, `torch.bfloat16`) whose `convolution_backward` the CPU
/// backend computes in its convolution library (oneDNN's gradient primitives): the front end
/// keeps the op whole for them.
#[pyfunction]
fn cpu_conv_backward_dtypes() -> Vec<&'static str> {
    coil_cpu::conv_backward_dtypes()
        .into_iter()
        .map(|d| d.torch_name())
        .collect()
}

/// Every ATen overload coil compiles, as PyTorch names them (`aten.add.Tensor`): the front end
/// decomposes the others where PyTorch has a decomposition for them.
#[pyfunction]
fn op_names() -> Vec<String> {
    coil_graph::OpRef::all().map(|o| o.to_string()).collect()
}

/// Compiles `source` (an ATen graph: `coil._fx`'s description, or readable-FX text) for
/// `device` (`cpu` or `cuda`).
#[pyfunction]
#[pyo3(signature = (source, device, options=None))]
fn compile(
    source: &Bound<'_, PyAny>,
    device: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Model> {
    let graph = graph_of(source)?;
    let gemm = match options.map(|o| o.get_item("gemm")).transpose()?.flatten() {
        Some(g) => Some(g.extract::<String>()?),
        None => None,
    };
    // `share_code="False"`: every compile makes all of its machine code, even for kernels an
    // earlier compile of the graph at another size made (for measuring what sharing saves).
    let share_code = match options
        .map(|o| o.get_item("share_code"))
        .transpose()?
        .flatten()
    {
        Some(s) => !matches!(s.extract::<String>()?.as_str(), "False" | "false" | "0"),
        None => true,
    };
    // `cpu_threads="own"`: kernels launch on coil's own pool rather than on PyTorch's OpenMP
    // threads (`coil_cpu::openmp`, the default).
    let own_threads = match options
        .map(|o| o.get_item("cpu_threads"))
        .transpose()?
        .flatten()
    {
        Some(s) => match s.extract::<String>()?.as_str() {
            "own" => true,
            "openmp" => false,
            other => {
                return Err(PyValueError::new_err(format!(
                    "cpu_threads is openmp (PyTorch's OpenMP threads, the default) or own \
                     (coil's pool), not {other}"
                )));
            }
        },
        None => false,
    };
    let backend: Arc<dyn coil_codegen::Backend> = match device {
        "cpu" => {
            let gemm = gemm.unwrap_or_else(|| "eager".into());
            if !["eager", "onednn", "openblas", "gemm"].contains(&gemm.as_str()) {
                return Err(PyValueError::new_err(format!(
                    "on the CPU the gemm option is eager (PyTorch's BLAS as eager calls it, the \
                     default), onednn, openblas or gemm (coil's own libraries), not {gemm}"
                )));
            }
            let cpu = coil_cpu::CpuOptions {
                compile_cache: Some(compile_cache()),
                code_pool: Some(code_pool()),
                compile_every_size: !share_code,
                own_f32_matmul_under_torch: gemm != "eager",
                openblas_f32_matmul: gemm == "openblas",
                gemm_f32_matmul: gemm == "gemm",
                openmp_launches: !own_threads,
                ..coil_cpu::CpuOptions::default()
            };
            Arc::new(coil_cpu::CpuBackend::with_options(cpu).map_err(err)?)
        }
        "cuda" => {
            let gemm = gemm.unwrap_or_else(|| "lt".into());
            if gemm != "lt" && gemm != "classic" {
                return Err(PyValueError::new_err(format!(
                    "the gemm option is lt (cuBLASLt, the default) or classic (cuBLAS), not {gemm}"
                )));
            }
            Arc::new(
                coil_cuda::CudaBackend::new()
                    .map_err(err)?
                    .with_cublaslt(gemm == "lt")
                    .with_compile_cache(compile_cache())
                    .with_size_families(share_code.then(size_families)),
            )
        }
        other => {
            return Err(PyValueError::new_err(format!(
                "coil compiles for cpu or cuda, not {other}"
            )));
        }
    };
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
        if let Some(d) = o.get_item("deterministic")? {
            let on: String = d.extract()?;
            opts.deterministic = on == "True" || on == "true" || on == "1";
        }
        if let Some(a) = o.get_item("aggressive_fusion")? {
            // Inductor's `aggressive_fusion`, with no `score_fusion_memory_threshold`:
            // pointwise nodes of one iteration space fuse with no shared data (the front end
            // asks it for optimizer steps, whose per-parameter updates would otherwise be a
            // kernel each).
            let on: String = a.extract()?;
            let base = coil_sched::SchedConfig::for_target(&backend.target());
            if on == "True" || on == "true" || on == "1" {
                opts.sched = Some(coil_sched::SchedConfig {
                    aggressive_fusion: true,
                    score_fusion_memory_threshold: 0,
                    ..base
                });
            }
        }
        if let Some(e) = o.get_item("emulate_precision_casts")? {
            let on: String = e.extract()?;
            opts.lower = Some(coil_lower::LowerConfig {
                emulate_precision_casts: on == "True" || on == "true" || on == "1",
                ..coil_lower::LowerConfig::for_target(&backend.target())
            });
        }
    }
    opts.cache = Some(compile_cache());
    let inner = coil::compile(&graph, backend, &opts).map_err(err)?;
    let input_bytes = inner.inputs().iter().map(|(_, m)| m.nbytes()).collect();
    let output_bytes = inner
        .outputs()
        .iter()
        .map(|(d, sizes)| sizes.iter().product::<usize>() * d.itemsize())
        .collect();
    Ok(Model {
        inner,
        device: device.to_string(),
        input_bytes,
        output_bytes,
    })
}

impl Model {
    fn check_counts(&self, inputs: usize, outputs: usize) -> PyResult<()> {
        if inputs != self.input_bytes.len() || outputs != self.output_bytes.len() {
            return Err(PyValueError::new_err(format!(
                "the graph takes {} inputs and gives {} outputs; {inputs} and {outputs} \
                 pointers given",
                self.input_bytes.len(),
                self.output_bytes.len(),
            )));
        }
        Ok(())
    }
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

    /// Runs on host memory: `inputs` and `outputs` as pointers to contiguous memory of the
    /// model's input and output specs, in order. The backend reads and writes them in place
    /// where it can (coil-cpu: 64-byte aligned memory), else copies. Returns how many inputs
    /// and outputs were used in place.
    fn run(&self, inputs: Vec<usize>, outputs: Vec<usize>) -> PyResult<(usize, usize)> {
        self.check_counts(inputs.len(), outputs.len())?;
        let ins: Vec<(*const u8, usize)> = inputs
            .iter()
            .zip(&self.input_bytes)
            .map(|(&p, &n)| (p as *const u8, n))
            .collect();
        let outs: Vec<(*mut u8, usize)> = outputs
            .iter()
            .zip(&self.output_bytes)
            .map(|(&p, &n)| (p as *mut u8, n))
            .collect();
        // SAFETY: the caller passes the data pointers of live contiguous tensors of each
        // input's and output's spec (coil.backend checks shapes and dtypes), alive for the
        // call; an output shares an input's memory only where `output_may_alias_input` said
        // so.
        unsafe { self.inner.run_host_raw(&ins, &outs) }.map_err(err)
    }

    /// The input that output `output` is, whole (a graph returning an input), or `None`:
    /// pass that input's pointer as the output's and the run copies nothing for it.
    fn output_input(&self, output: usize) -> Option<usize> {
        self.inner.output_input(output)
    }

    /// Whether output `output` may be written straight into input `input`'s memory (an input
    /// the graph mutates): pass the input's pointer as that output's in `run` or `run_device`.
    fn output_may_alias_input(&self, output: usize, input: usize) -> bool {
        self.inner.output_may_alias_input(output, input)
    }

    /// `output_may_alias_input` for `run_device` on a GPU (whose kernels read inputs through
    /// the non-coherent cache: no kernel may both read the input and write its memory).
    fn output_may_alias_input_on_device(&self, output: usize, input: usize) -> bool {
        self.inner.output_may_alias_input_on_device(output, input)
    }

    /// Whether a run with output `output` in input `input`'s memory leaves out the plain copy
    /// of the input that would start it (a KV cache's `index_put`): the update costs the
    /// elements it writes.
    fn skips_copy_into(&self, output: usize, input: usize) -> bool {
        self.inner.skips_copy_into(output, input)
    }

    /// Runs on CUDA memory in place: `inputs` and `outputs` as device addresses of contiguous
    /// tensors of the model's input and output specs, in order. With `stream` (torch's current
    /// stream) the work is queued there, after torch's earlier work on it, and the call returns
    /// without waiting (unless the model must read the device back); without it, the inputs
    /// must be ready and the call waits. `defer_checks`: index checks left for
    /// `check_deferred` instead of read now. `False` (nothing run) when the model cannot use
    /// them in place: copy through `run` then.
    #[pyo3(signature = (inputs, outputs, stream=None, defer_checks=false))]
    fn run_device(
        &self,
        inputs: Vec<u64>,
        outputs: Vec<u64>,
        stream: Option<u64>,
        defer_checks: bool,
    ) -> PyResult<bool> {
        if self.device != "cuda" {
            return Ok(false);
        }
        self.check_counts(inputs.len(), outputs.len())?;
        let pair = |(p, b): (u64, &usize)| (p, *b);
        let inputs: Vec<(u64, usize)> = inputs
            .into_iter()
            .zip(&self.input_bytes)
            .map(pair)
            .collect();
        let outputs: Vec<(u64, usize)> = outputs
            .into_iter()
            .zip(&self.output_bytes)
            .map(pair)
            .collect();
        // SAFETY: coil.backend passes the data pointers of live contiguous CUDA tensors of the
        // model's specs (Dynamo's guards and the wrapper's checks hold the shapes), kept alive
        // by torch's caching allocator until the stream's work is done, and torch's current
        // stream.
        unsafe {
            self.inner
                .run_device(&inputs, &outputs, stream, defer_checks)
        }
        .map_err(err)
    }

    /// Reads the index checks that calls with `defer_checks` (or replays of a CUDA graph that
    /// captured one) left, once the work on `stream` is done: an index out of range is a
    /// `RuntimeError` naming the op. No wait for a model without index checks.
    fn check_deferred(&self, stream: u64) -> PyResult<()> {
        if self.device != "cuda" {
            return Ok(());
        }
        // SAFETY: coil.backend passes torch's capture stream, live for the process.
        unsafe { self.inner.check_deferred(stream) }.map_err(err)
    }

    /// What compiling did: `{"kernels", "extern_calls", "extern_names", "fallback_ops",
    /// "compile_s", "device", "cache", "program_cache", "jit_ms"}` (`extern_names`: each
    /// extern call's name, as `extern_kernels.mm`, in launch order; `cache`: the machine
    /// code's `"hit"`, `"miss"`, `"off"`, or empty where the backend has no compile cache;
    /// `program_cache`: the whole program's entry, `"hit"`, `"miss"` or `"off"`).
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.inner.report;
        let d = PyDict::new(py);
        d.set_item("kernels", r.num_kernels)?;
        d.set_item("extern_calls", r.num_extern_calls)?;
        let externs: Vec<&str> = r
            .kernels
            .iter()
            .filter(|k| k.kind.short_name() == "extern")
            .map(|k| k.name.as_str())
            .collect();
        d.set_item("extern_names", externs)?;
        d.set_item("fallback_ops", r.fallback_ops.clone())?;
        d.set_item("compile_s", r.times.total_ms() / 1000.0)?;
        d.set_item("device", self.device.clone())?;
        d.set_item("cache", r.machine_code.cache)?;
        d.set_item("program_cache", r.program_cache)?;
        d.set_item("jit_ms", r.machine_code.jit_ms())?;
        d.set_item("kernels_reused", r.machine_code.reused_kernels)?;
        Ok(d)
    }
}

/// The process's pool of compiled CPU kernels: every compile's backend shares it, so the same
/// graph at a new size (a new batch, a new sequence length) compiles only the kernels whose code
/// changes ([`coil_cpu::pool`]).
/// The process's general GPU kernels, shared by every compile (issue "Dynamic shapes").
fn size_families() -> Arc<coil_cuda::SizeFamilies> {
    static FAMILIES: std::sync::OnceLock<Arc<coil_cuda::SizeFamilies>> = std::sync::OnceLock::new();
    Arc::clone(FAMILIES.get_or_init(|| Arc::new(coil_cuda::SizeFamilies::new())))
}

fn code_pool() -> Arc<coil_cpu::pool::CodePool> {
    static POOL: std::sync::OnceLock<Arc<coil_cpu::pool::CodePool>> = std::sync::OnceLock::new();
    Arc::clone(POOL.get_or_init(|| Arc::new(coil_cpu::pool::CodePool::new())))
}

/// The process's compile cache, as the environment describes it when first asked
/// (`COIL_CACHE_DIR`, `COIL_CACHE=0`, `COIL_CACHE_MAX_MB`).
fn compile_cache() -> Arc<coil_cache::Cache> {
    static CACHE: std::sync::OnceLock<Arc<coil_cache::Cache>> = std::sync::OnceLock::new();
    CACHE
        .get_or_init(|| Arc::new(coil_cache::Cache::from_env()))
        .clone()
}

/// The native module, `coil._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // LLVM's own options for the CPU backend, `COIL_LLVM_ARGS` (space-separated; for
    // measuring), before any compile.
    if let Ok(text) = std::env::var("COIL_LLVM_ARGS") {
        coil_cpu::set_llvm_args(text.split_whitespace().map(str::to_string).collect());
    }
    m.add_function(wrap_pyfunction!(compile, m)?)?;
    m.add_function(wrap_pyfunction!(print_graph, m)?)?;
    m.add_function(wrap_pyfunction!(op_names, m)?)?;
    m.add_function(wrap_pyfunction!(eager_blas_loaded, m)?)?;
    m.add_function(wrap_pyfunction!(cpu_conv_backward_dtypes, m)?)?;
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(logs::set_logs, m)?)?;
    m.add_class::<Model>()?;
    Ok(())
}
