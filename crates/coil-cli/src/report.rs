//! The run-model report: output checking, the human table and the JSON object.

use coil_graph::{DType, Dims, Tensor};
use coil_models::Size;
use serde_json::{Value, json};

use crate::run_model::ScheduleSummary;

/// Outputs against reference outputs.
#[derive(Debug)]
pub(crate) struct Comparison {
    /// True when every element is within tolerance (or nothing was compared).
    pub(crate) ok: bool,
    /// Whether reference outputs existed.
    pub(crate) checked: bool,
    pub(crate) max_abs_err: f64,
    pub(crate) max_rel_err: f64,
    pub(crate) rtol: f64,
    /// The absolute tolerance (the largest, when each output has its own).
    pub(crate) atol: f64,
    pub(crate) atol_rule: AtolRule,
}

impl Comparison {
    pub(crate) fn none() -> Comparison {
        Comparison {
            ok: true,
            checked: false,
            max_abs_err: 0.0,
            max_rel_err: 0.0,
            rtol: 0.0,
            atol: 0.0,
            atol_rule: AtolRule::Fixed,
        }
    }
}

/// How a check chose its absolute tolerance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtolRule {
    /// One given value (the checks against saved outputs).
    Fixed,
    /// [`eager_check_atol`] of the model's longest reduction, for every output: the
    /// compiled-vs-eager check when no float64 reference could run.
    ReductionLength,
    /// Per output, `EXACT_ATOL` plus `EAGER_ERROR_MARGIN` (`coil_eager::oracle`) times eager float32's own largest
    /// error against the float64 reference ([`compare_to_exact`]).
    EagerError,
    /// 16-bit outputs beyond the fixed tolerance of PyTorch's outputs that are within the
    /// [`AtolRule::EagerError`] rule against float64 (eager's own roundings put PyTorch
    /// further from float64 than coil's single rounding per store).
    Float64Rule,
}

impl AtolRule {
    /// How the report words the rule.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            AtolRule::Fixed => "",
            AtolRule::ReductionLength => " scaled with the reduction length",
            AtolRule::EagerError => {
                " at most; against eager in float64, per output 1e-6 + 8 x eager float32's own error"
            }
            AtolRule::Float64Rule => {
                "; beyond it, within float64's rule (PyTorch's 16-bit eager rounds after every op, coil once per store)"
            }
        }
    }

    /// The rule's name in the JSON report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            AtolRule::Fixed => "fixed",
            AtolRule::ReductionLength => "reduction_length",
            AtolRule::EagerError => "eager_f32_error_vs_f64",
            AtolRule::Float64Rule => "dtype_tolerance_or_f64_rule",
        }
    }
}

// The float64 rule's constants are the oracle's (`coil_eager::oracle`), which every check of
// the workspace shares.
#[cfg(test)]
use coil_eager::oracle::FEW_ELEMENTS;

/// The relative tolerance of the compiled-vs-eager check (PyTorch's `allclose` scale).
pub(crate) const EAGER_RTOL: f64 = 1e-4;
/// The absolute tolerance of the compiled-vs-eager check for outputs that reduce nothing.
pub(crate) const EAGER_ATOL: f64 = 1e-5;
/// Margin of the length-scaled term over the typical summation-order error (see
/// [`eager_check_atol`]).
const SUM_ORDER_MARGIN: f64 = 8.0;

/// The absolute tolerance of the compiled-vs-eager check for a model whose longest reduction
/// adds `k` terms of magnitude at most `term`:
///
/// `atol = EAGER_ATOL + SUM_ORDER_MARGIN * u * term * sqrt(k * log2 k)`, with `u = 2^-24` (f32's
/// unit roundoff).
///
/// Why: eager sums pairwise and the compiled kernels in blocks (vector accumulators folded into
/// a second level), so the two round differently. In a pairwise (or blocked) sum of `k` terms
/// there are `log2 k` levels; level `l` performs `k / 2^l` additions whose partial sums have
/// size about `term * sqrt(2^l)` when the terms have mixed signs, and each rounds by up to `u`
/// times that. Independent rounding errors add like a random walk: `u * term * sqrt(k * log2
/// k)` overall. Two orders differ by about `sqrt(2)` of that, and the largest difference over
/// many thousands of outputs is some five or six of those; the margin of 8 covers it. A sum
/// that cancels (a row sum of values of both signs) has a small result next to this error, so a
/// fixed `atol + rtol * |y|` fails there while an error of one term (`term`) still stands far
/// above the bound (at `k = 8192`, `term = 1`: 1.6e-4).
///
/// `k = 1` (nothing reduced) gives `EAGER_ATOL`. Reductions of derived values (squares, `exp`)
/// in the zoo are normalised afterwards, where `EAGER_RTOL` covers their relative error.
pub(crate) fn eager_check_atol(k: usize, term: f64) -> f64 {
    let k = k.max(1) as f64;
    let unit_roundoff = f64::from(f32::EPSILON) / 2.0;
    let term = if term.is_finite() { term.abs() } else { 0.0 };
    EAGER_ATOL + SUM_ORDER_MARGIN * unit_roundoff * term * (k * k.log2()).sqrt()
}

/// Compares like `torch.allclose`: |a - b| <= atol + rtol * |b|, NaN equal to NaN, and shapes
/// and dtypes must match. The relative error reported is |a - b| / max(|b|, atol).
pub(crate) fn compare(
    actual: &[Tensor],
    expected: &[Tensor],
    rtol: f64,
    atol: f64,
) -> Result<Comparison, String> {
    same_count(actual, expected)?;
    let mut c = Comparison::start(rtol, atol, AtolRule::Fixed);
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        same_kind(i, a, e)?;
        c.add(&a.to_f64_vec(), &e.to_f64_vec(), atol);
    }
    Ok(c)
}

/// The model returned as many outputs as the reference has.
fn same_count(actual: &[Tensor], expected: &[Tensor]) -> Result<(), String> {
    if actual.len() != expected.len() {
        return Err(format!(
            "the model returned {} outputs, the reference has {}",
            actual.len(),
            expected.len()
        ));
    }
    Ok(())
}

/// Output `i` and its reference have the same shape and dtype.
fn same_kind(i: usize, a: &Tensor, e: &Tensor) -> Result<(), String> {
    if a.sizes() != e.sizes() || a.dtype() != e.dtype() {
        return Err(format!(
            "output {i}: got {}{}, the reference is {}{}",
            a.dtype(),
            Dims(a.sizes()),
            e.dtype(),
            Dims(e.sizes())
        ));
    }
    Ok(())
}

impl Comparison {
    /// A check about to compare, nothing seen yet.
    fn start(rtol: f64, atol: f64, atol_rule: AtolRule) -> Comparison {
        Comparison {
            ok: true,
            checked: true,
            max_abs_err: 0.0,
            max_rel_err: 0.0,
            rtol,
            atol,
            atol_rule,
        }
    }

    /// Compares one output's values `a` with the reference's `e` under `atol`.
    fn add(&mut self, a: &[f64], e: &[f64], atol: f64) {
        for (&x, &y) in a.iter().zip(e) {
            if x.is_nan() && y.is_nan() || x == y {
                continue;
            }
            // Unequal where either is inf or NaN: a mismatch (as `torch.isclose` has it), which
            // the bound below would miss when `y` is inf.
            if !x.is_finite() || !y.is_finite() {
                self.max_abs_err = f64::INFINITY;
                self.max_rel_err = f64::INFINITY;
                self.ok = false;
                continue;
            }
            let abs = (x - y).abs();
            self.max_abs_err = self.max_abs_err.max(abs);
            self.max_rel_err = self.max_rel_err.max(abs / y.abs().max(atol));
            if abs > atol + self.rtol * y.abs() {
                self.ok = false;
            }
        }
    }
}

/// Compares the compiled model's outputs with `exact`, eager's outputs computed in float64
/// ([`coil_graph::Graph::with_dtype_replaced`]), by the workspace's one oracle
/// ([`coil_eager::oracle::judge`]): each f32 output within `1e-6 + 8 e`, where `e` is the
/// largest distance of eager's own float32 output from `exact` (the compiled model has to be
/// about as accurate as eager, and a global mean's tiny error is held to its own scale instead
/// of that of a long sum); 16-bit outputs by the 16-bit rule (RMS error at most twice
/// eager's).
///
/// Where the float64 reference cannot judge, eager's float32 outputs do, as in [`compare`]:
/// - elements where eager's or the exact value is not finite (an overflow to inf, a NaN of f32
///   that f64 avoids) compare with eager's value (inf equal to inf, NaN to NaN);
/// - outputs that are not floats (bool, integer: an argmax's near-tie may go either way in
///   f64) compare with eager's under `length_atol` ([`eager_check_atol`]);
/// - outputs of fewer than `oracle::FEW_ELEMENTS` elements allow the larger of the two tolerances:
///   one sample of eager's error may happen to be tiny.
pub(crate) fn compare_to_exact(
    actual: &[Tensor],
    eager: &[Tensor],
    exact: &[Tensor],
    length_atol: f64,
) -> Result<Comparison, String> {
    same_count(actual, eager)?;
    if exact.len() != eager.len() {
        return Err(format!(
            "the float64 reference has {} outputs, eager {}",
            exact.len(),
            eager.len()
        ));
    }
    let mut c = Comparison::start(EAGER_RTOL, 0.0, AtolRule::EagerError);
    for (i, ((a, e), x)) in actual.iter().zip(eager).zip(exact).enumerate() {
        same_kind(i, a, e)?;
        if x.sizes() != e.sizes() {
            return Err(format!(
                "output {i}: the float64 reference has another shape"
            ));
        }
        // The oracle's rule: float64's for f32 and f64, the 16-bit rule for bf16 and f16,
        // eager's values within the length-scaled tolerance for integers and bools.
        let v = coil_eager::oracle::judge(
            &a.to_f64_vec(),
            &e.to_f64_vec(),
            &x.to_f64_vec(),
            e.dtype(),
            length_atol,
        );
        c.ok &= v.ok;
        c.atol = c.atol.max(v.atol);
        c.max_abs_err = c.max_abs_err.max(v.max_abs_err);
        c.max_rel_err = c.max_rel_err.max(v.max_rel_err);
    }
    Ok(c)
}

/// Everything run-model learned.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) model: String,
    pub(crate) backend: &'static str,
    pub(crate) size: Size,
    pub(crate) input_source: String,
    pub(crate) graph_nodes: usize,
    pub(crate) ok: bool,
    pub(crate) comparison: Comparison,
    /// Eager's counts (`None` with `--compile-only`, which runs nothing).
    pub(crate) num_ops: Option<usize>,
    pub(crate) num_kernels: Option<usize>,
    pub(crate) eager_bytes_read: Option<usize>,
    pub(crate) eager_bytes_written: Option<usize>,
    pub(crate) outputs: Vec<(Vec<usize>, DType)>,
    pub(crate) run_ms: f64,
    pub(crate) compile_only: bool,
    pub(crate) schedule: ScheduleSummary,
    pub(crate) passes: coil_passes::PassStats,
    pub(crate) lowered_buffers: usize,
    pub(crate) lowered_reductions: usize,
    pub(crate) lower_ms: f64,
    /// The transformed graph's outputs against the input graph's (eager both).
    pub(crate) passes_check: Comparison,
    /// The compiled model's outputs against eager's.
    pub(crate) compiled_check: Comparison,
    /// Parsing the model's text.
    pub(crate) parse_ms: f64,
    /// The compiled model's report (compiled backends only).
    pub(crate) compile: Option<coil::CompileReport>,
    /// Timings with `--bench`.
    pub(crate) bench: Option<crate::bench::Bench>,
    /// Each launch's device time in one run (device clocks only: CUDA events), in order.
    pub(crate) launch_times: Vec<(String, f64)>,
}

fn size_name(s: Size) -> &'static str {
    match s {
        Size::Article => "article",
        Size::Tiny => "tiny",
        Size::Large => "large",
    }
}

impl Report {
    pub(crate) fn to_json(&self) -> Value {
        let c = &self.comparison;
        let passes = json!({
            "nodes_before": self.passes.nodes_before,
            "nodes_after": self.passes.nodes_after,
            "rewrites": self.passes.rewrites,
            "per_pass": self.passes.per_pass.iter().map(|p| json!({ "name": p.name, "rewrites": p.rewrites })).collect::<Vec<_>>(),
            "stop_reason": self.passes.stop_reason,
            "iterations": self.passes.iterations,
            "egraph_nodes": self.passes.egraph_nodes,
            "cost_before": self.passes.cost_before,
            "cost_after": self.passes.cost_after,
            "ms": self.passes.ms,
            "ok": self.passes_check.ok,
            "max_abs_err": self.passes_check.max_abs_err,
            "max_rel_err": self.passes_check.max_rel_err,
            "atol": self.passes_check.atol,
            "atol_rule": self.passes_check.atol_rule.name(),
        });
        json!({
            "model": self.model,
            "backend": self.backend,
            "size": size_name(self.size),
            "inputs": self.input_source,
            "ok": self.ok,
            "checked": c.checked,
            "max_abs_err": c.max_abs_err,
            "max_rel_err": c.max_rel_err,
            "graph_nodes": self.graph_nodes,
            "compile_only": self.compile_only,
            "num_ops": self.num_ops,
            "eager_kernels": self.num_kernels,
            "eager_bytes": self.eager_bytes_read.zip(self.eager_bytes_written).map(|(r, w)| r + w),
            "eager_bytes_read": self.eager_bytes_read,
            "eager_bytes_written": self.eager_bytes_written,
            "num_kernels": self.schedule.num_kernels,
            "num_extern_calls": self.schedule.num_extern_calls,
            "fallback_ops": self.schedule.fallback_ops,
            "bytes_accessed": self.schedule.bytes_accessed,
            "kernels": self.schedule.kernels.iter().map(|k| json!({
                "name": k.name,
                "kind": k.kind.short_name(),
                "numel": k.numel,
                "rnumel": k.rnumel,
                "bytes": k.bytes(),
            })).collect::<Vec<_>>(),
            "schedule": {
                "policy": self.schedule.policy,
                "loops": self.schedule.loops,
                "nodes_before_fusion": self.schedule.nodes_before,
                "ms": self.schedule.ms,
            },
            "outputs": self.outputs.iter().map(|(s, d)| json!({ "shape": s, "dtype": d.short_name() })).collect::<Vec<_>>(),
            "run_ms": self.run_ms,
            "compiled_vs_eager": {
                "checked": self.compiled_check.checked,
                "ok": self.compiled_check.ok,
                "max_abs_err": self.compiled_check.max_abs_err,
                "max_rel_err": self.compiled_check.max_rel_err,
                "rtol": self.compiled_check.rtol,
                "atol": self.compiled_check.atol,
                "atol_rule": self.compiled_check.atol_rule.name(),
            },
            "compile": self.compile.as_ref().map(|c| json!({
                "parse_ms": self.parse_ms,
                "passes_ms": c.times.passes_ms,
                "lower_ms": c.times.lower_ms,
                "schedule_ms": c.times.schedule_ms,
                "codegen_ms": c.times.codegen_ms,
                "backend_ms": c.times.backend_ms,
                "cache_ms": c.times.cache_ms,
                "total_ms": c.times.total_ms(),
                "parse_to_runnable_ms": self.parse_ms + c.times.total_ms(),
                "planned_bytes": c.planned_bytes,
                "cache": cache_word(c),
                "program_cache": c.program_cache,
                "machine_code_cache": c.machine_code.cache,
                "jit_ms": c.machine_code.jit_ms(),
                "jit": jit_modules(&c.machine_code),
                "kernels_reused": c.machine_code.reused_kernels,
            })),
            "bench": self.bench.as_ref().map(|b| b.to_json()),
            "launch_times": self.launch_times.iter().map(|(name, ms)| json!({ "name": name, "ms": ms })).collect::<Vec<_>>(),
            "lowering": {
                "buffers": self.lowered_buffers,
                "reductions": self.lowered_reductions,
                "ms": self.lower_ms,
            },
            "passes": passes,
        })
    }

    pub(crate) fn to_table(&self) -> String {
        let c = &self.comparison;
        let mut rows: Vec<(String, String)> = vec![
            (
                "model".into(),
                format!("{} ({})", self.model, size_name(self.size)),
            ),
            ("backend".into(), self.backend.into()),
            ("inputs".into(), self.input_source.clone()),
        ];
        match (
            self.num_ops,
            self.num_kernels,
            self.eager_bytes_read,
            self.eager_bytes_written,
        ) {
            (Some(ops), Some(kernels), Some(read), Some(written)) => {
                rows.push((
                    "graph".into(),
                    format!(
                        "{} nodes, {ops} ops ran, {kernels} moved data",
                        self.graph_nodes
                    ),
                ));
                rows.push((
                    "eager bytes".into(),
                    format!(
                        "{} ({} read, {} written)",
                        human_bytes(read + written),
                        human_bytes(read),
                        human_bytes(written)
                    ),
                ));
            }
            _ => rows.push((
                "graph".into(),
                format!("{} nodes (compile only: nothing ran)", self.graph_nodes),
            )),
        }
        for (i, (s, d)) in self.outputs.iter().enumerate() {
            rows.push((format!("output {i}"), format!("{d}{}", Dims(s))));
        }
        let p = &self.passes;
        rows.push((
            "passes".into(),
            format!(
                "{} -> {} ops, {} rewrites ({}), {} in {:.2} ms; results {} (max abs err {:.1e} {})",
                p.nodes_before,
                p.nodes_after,
                p.rewrites,
                p.per_pass
                    .iter()
                    .filter(|s| s.rewrites > 0)
                    .map(|s| format!("{} {}", s.name, s.rewrites))
                    .collect::<Vec<_>>()
                    .join(", "),
                p.stop_reason,
                p.ms,
                if self.passes_check.ok {
                    "within rounding"
                } else {
                    "CHANGED"
                },
                self.passes_check.max_abs_err,
                match self.passes_check.atol_rule {
                    AtolRule::EagerError => "against float64, as for vs eager",
                    _ => "against eager, as for vs eager",
                }
            ),
        ));
        rows.push((
            "lowering".into(),
            format!(
                "{} buffers ({} reductions) in {:.2} ms",
                self.lowered_buffers, self.lowered_reductions, self.lower_ms
            ),
        ));
        let s = &self.schedule;
        rows.push((
            "schedule".into(),
            format!(
                "{} ({} loops): {} nodes -> {} kernels + {} extern calls, {} accessed, in {:.2} ms",
                s.policy,
                s.loops,
                s.nodes_before,
                s.num_kernels,
                s.num_extern_calls,
                human_bytes(s.bytes_accessed),
                s.ms
            ),
        ));
        if !s.fallback_ops.is_empty() {
            rows.push((
                "fallbacks".into(),
                format!(
                    "{} host fallback calls (no lowering yet): {}",
                    s.fallback_ops.len(),
                    fallback_summary(&s.fallback_ops)
                ),
            ));
        }
        for k in &s.kernels {
            rows.push((
                "  kernel".into(),
                format!(
                    "{} ({}, {} x {}, {})",
                    k.name,
                    k.kind,
                    k.numel,
                    k.rnumel,
                    human_bytes(k.bytes())
                ),
            ));
        }
        if let Some(c) = &self.compile {
            let t = &c.times;
            rows.push((
                "compile".into(),
                if c.program_cache == "hit" {
                    format!(
                        "{:.1} ms: parse {:.1}, program from the compile cache {:.1}, backend {:.1}{}",
                        self.parse_ms + t.total_ms(),
                        self.parse_ms,
                        t.cache_ms,
                        t.backend_ms,
                        machine_code_word(c.machine_code.cache),
                    )
                } else {
                    format!(
                        "{:.1} ms: parse {:.1}, passes {:.1}, lowering {:.1}, scheduling {:.1}, kernels {:.1}, backend {:.1}{}",
                        self.parse_ms + t.total_ms(),
                        self.parse_ms,
                        t.passes_ms,
                        t.lower_ms,
                        t.schedule_ms,
                        t.codegen_ms,
                        t.backend_ms,
                        machine_code_word(c.machine_code.cache),
                    )
                },
            ));
        }
        if !self.compile_only {
            rows.push((
                "time".into(),
                format!("{:.3} ms (first run, host copies included)", self.run_ms),
            ));
        }
        for (name, ms) in &self.launch_times {
            rows.push((
                "  launch".into(),
                format!("{:.1} us (CUDA events, one run)  {name}", ms * 1e3),
            ));
        }
        if self.compiled_check.checked {
            let cc = &self.compiled_check;
            rows.push((
                "vs eager".into(),
                format!(
                    "{} (max abs err {:.3e}, max rel err {:.3e}; rtol {:e}, atol {:.2e}{})",
                    if cc.ok { "ok" } else { "MISMATCH" },
                    cc.max_abs_err,
                    cc.max_rel_err,
                    cc.rtol,
                    cc.atol,
                    cc.atol_rule.describe()
                ),
            ));
        }
        if let Some(b) = &self.bench {
            rows.extend(b.rows());
        }
        rows.push((
            "check".into(),
            if c.checked {
                format!(
                    "{} (max abs err {:.3e}, max rel err {:.3e}; rtol {:e}, atol {:e})",
                    if c.ok { "ok" } else { "MISMATCH" },
                    c.max_abs_err,
                    c.max_rel_err,
                    c.rtol,
                    c.atol
                )
            } else {
                "no reference outputs (use --size tiny or --inputs with output.<i>)".into()
            },
        ));
        let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        rows.iter()
            .map(|(k, v)| format!("{k:<w$}  {v}\n"))
            .collect()
    }
}

/// `4.00 MiB`.
pub(crate) fn human_bytes(b: usize) -> String {
    let b = b as f64;
    if b >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB", b / (1024.0 * 1024.0 * 1024.0))
    } else if b >= 1024.0 * 1024.0 {
        format!("{:.2} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.2} KiB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// `aten.cumsum.default x2, aten.embedding.default` (each op once, with its count).
fn fallback_summary(ops: &[String]) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for op in ops {
        match counts.iter_mut().find(|(o, _)| *o == op) {
            Some((_, n)) => *n += 1,
            None => counts.push((op, 1)),
        }
    }
    counts
        .iter()
        .map(|(o, n)| {
            if *n > 1 {
                format!("{o} x{n}")
            } else {
                o.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each module's trip to machine code, as `compile.jit` gives it.
fn jit_modules(code: &coil::MachineCode) -> serde_json::Value {
    code.modules
        .iter()
        .map(|(kernel, ms, source)| json!({ "kernel": kernel, "ms": ms, "source": source }))
        .collect()
}

/// How the table names where the machine code came from.
fn machine_code_word(cache: &str) -> &'static str {
    match cache {
        "hit" => " (machine code from the compile cache)",
        "miss" => " (machine code generated, now cached)",
        _ => "",
    }
}

/// The compile cache's part in a compile: `"hit"` when the program and all its machine code
/// came from it, `"off"` when it was off, `"miss"` otherwise.
fn cache_word(c: &coil::CompileReport) -> &'static str {
    match (c.program_cache, c.machine_code.cache) {
        ("hit", "hit" | "") => "hit",
        ("off", "off" | "") => "off",
        _ => "miss",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coil_graph::Data;
    use rand::{Rng, SeedableRng};

    /// Pairwise f32 sum (coil-eager's and PyTorch's order).
    fn pairwise(x: &[f32]) -> f32 {
        if x.len() <= 8 {
            return x.iter().sum();
        }
        let (a, b) = x.split_at(x.len() / 2);
        pairwise(a) + pairwise(b)
    }

    /// The compiled CPU kernels' order: 32 lane accumulators (four vectors of eight), folded
    /// into a second level every 512 elements, then combined by a tree.
    fn blocked(x: &[f32]) -> f32 {
        let mut second = [0.0f32; 32];
        for block in x.chunks(512) {
            let mut first = [0.0f32; 32];
            for chunk in block.chunks(32) {
                for (a, v) in first.iter_mut().zip(chunk) {
                    *a += v;
                }
            }
            for (s, f) in second.iter_mut().zip(first) {
                *s += f;
            }
        }
        pairwise(&second)
    }

    /// `rows` rows of `k` values of both signs that cancel exactly: half uniform in [-1, 1),
    /// half their negations in another order. The exact row sums are 0.
    fn cancelling_rows(rows: usize, k: usize) -> Vec<Vec<f32>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(6);
        (0..rows)
            .map(|_| {
                let half: Vec<f32> = (0..k / 2).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
                let mut row = half.clone();
                row.extend(half.iter().rev().map(|v| -v));
                // Interleave the two halves so partial sums do not return to 0 midway.
                for i in (1..k).rev() {
                    row.swap(i, rng.gen_range(0..=i));
                }
                row
            })
            .collect()
    }

    fn sums(rows: &[Vec<f32>], f: fn(&[f32]) -> f32) -> Tensor {
        let s: Vec<f32> = rows.iter().map(|r| f(r)).collect();
        Tensor::from_f32(s.clone(), vec![s.len()]).unwrap()
    }

    #[test]
    fn long_cancelling_sums_pass_the_length_scaled_tolerance_only() {
        let k = 8192;
        let rows = cancelling_rows(256, k);
        let eager = sums(&rows, pairwise);
        let compiled = sums(&rows, blocked);
        let fixed = compare(
            std::slice::from_ref(&compiled),
            std::slice::from_ref(&eager),
            EAGER_RTOL,
            EAGER_ATOL,
        )
        .unwrap();
        assert!(!fixed.ok, "max abs err {:e}", fixed.max_abs_err);
        let scaled = compare(&[compiled], &[eager], EAGER_RTOL, eager_check_atol(k, 1.0)).unwrap();
        assert!(
            scaled.ok,
            "max abs err {:e} > atol {:e}",
            scaled.max_abs_err, scaled.atol
        );
        // The bound is not loose by orders of magnitude.
        assert!(scaled.max_abs_err * 20.0 > scaled.atol, "{scaled:?}");
    }

    #[test]
    fn a_wrong_element_is_still_caught() {
        let k = 8192;
        let rows = cancelling_rows(64, k);
        let eager = sums(&rows, pairwise);
        let atol = eager_check_atol(k, 1.0);
        // One row summed without its last term: off by one term's size.
        let mut wrong: Vec<f32> = rows.iter().map(|r| blocked(r)).collect();
        wrong[17] = blocked(&rows[17][..k - 1]);
        let c = compare(
            &[Tensor::from_f32(wrong, vec![64]).unwrap()],
            std::slice::from_ref(&eager),
            EAGER_RTOL,
            atol,
        );
        assert!(!c.unwrap().ok);
        // One element off by 1e-3.
        let mut off: Vec<f32> = rows.iter().map(|r| blocked(r)).collect();
        off[3] += 1e-3;
        let c = compare(
            &[Tensor::from_f32(off, vec![64]).unwrap()],
            &[eager],
            EAGER_RTOL,
            atol,
        );
        assert!(!c.unwrap().ok);
    }

    #[test]
    fn the_tolerance_is_the_base_without_reductions() {
        assert_eq!(eager_check_atol(1, 5.0), EAGER_ATOL);
        assert_eq!(eager_check_atol(0, 5.0), EAGER_ATOL);
        assert_eq!(eager_check_atol(8192, f64::NAN), EAGER_ATOL);
        let a = eager_check_atol(8192, 1.0);
        assert!((1.5e-4..1.7e-4).contains(&a), "{a}");
        assert!(eager_check_atol(8192, 2.0) > a && eager_check_atol(65536, 1.0) > a);
    }

    /// wall's shape: `x - mean(x)` over 2^16 values. Against the float64 reference, a blocked
    /// mean passes and an output off by 1e-4 fails; the length-scaled atol of the fallback
    /// (about 0.001 here) lets the 1e-4 through.
    #[test]
    fn a_global_mean_is_held_to_its_own_error_against_float64() {
        let k = 1 << 16;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let x: Vec<f32> = (0..k).map(|_| rng.gen_range(-1.0f32..1.0)).collect();
        let exact_mean = x.iter().map(|&v| v as f64).sum::<f64>() / k as f64;
        let out = |mean: f32| -> Vec<f32> { x.iter().map(|&v| v - mean).collect() };
        let f32_tensor = |v: Vec<f32>| Tensor::from_f32(v, vec![k]).unwrap();
        let eager = f32_tensor(out(pairwise(&x) / k as f32));
        let exact = Tensor::new(
            Data::from_f64(DType::F64, x.iter().map(|&v| v as f64 - exact_mean)),
            vec![k],
        )
        .unwrap();
        let against_exact = |compiled: &Tensor| {
            compare_to_exact(
                std::slice::from_ref(compiled),
                std::slice::from_ref(&eager),
                std::slice::from_ref(&exact),
                eager_check_atol(k, 1.0),
            )
            .unwrap()
        };
        let c = against_exact(&f32_tensor(out(blocked(&x) / k as f32)));
        assert!(c.ok && c.atol < 2e-6, "{c:?}");
        let mut off = out(blocked(&x) / k as f32);
        off[1234] += 1e-4;
        let off = f32_tensor(off);
        let c = against_exact(&off);
        assert!(!c.ok, "{c:?}");
        let fallback = compare(&[off], &[eager], EAGER_RTOL, eager_check_atol(k, 1.0)).unwrap();
        assert!(fallback.ok, "{fallback:?}");
    }

    /// Where f32 overflows (f64 does not) and where an output is not a float, the compiled
    /// model is compared with eager's float32 outputs.
    #[test]
    fn overflows_and_integer_outputs_compare_with_eager() {
        let f32s = |v: Vec<f32>| Tensor::from_f32(v.clone(), vec![v.len()]).unwrap();
        let f64s = |v: Vec<f64>| {
            Tensor::new(Data::from_f64(DType::F64, v.iter().copied()), vec![v.len()]).unwrap()
        };
        let i64s = |v: Vec<f64>| {
            Tensor::new(Data::from_f64(DType::I64, v.iter().copied()), vec![v.len()]).unwrap()
        };
        let eager = [
            f32s(vec![f32::INFINITY, f32::NAN, 1.0]),
            i64s(vec![3.0, 4.0]),
        ];
        // f64 neither overflows nor makes a NaN, and decides a near-tie of an argmax otherwise.
        let exact = [f64s(vec![1e39, 0.25, 1.0]), i64s(vec![3.0, 5.0])];
        let same = [
            f32s(vec![f32::INFINITY, f32::NAN, 1.0]),
            i64s(vec![3.0, 4.0]),
        ];
        let c = compare_to_exact(&same, &eager, &exact, 1e-5).unwrap();
        assert!(c.ok, "{c:?}");
        let finite = [f32s(vec![3e38, f32::NAN, 1.0]), i64s(vec![3.0, 4.0])];
        assert!(!compare_to_exact(&finite, &eager, &exact, 1e-5).unwrap().ok);
        let index = [
            f32s(vec![f32::INFINITY, f32::NAN, 1.0]),
            i64s(vec![3.0, 5.0]),
        ];
        assert!(!compare_to_exact(&index, &eager, &exact, 1e-5).unwrap().ok);
    }

    /// One sample of eager's error says little: an output of a few elements may use the
    /// length-scaled tolerance, a large one may not.
    #[test]
    fn small_outputs_may_use_the_length_scaled_tolerance() {
        let check = |n: usize| {
            let eager = Tensor::from_f32(vec![0.5; n], vec![n]).unwrap();
            let exact = Tensor::new(
                Data::from_f64(DType::F64, std::iter::repeat_n(0.5, n)),
                vec![n],
            )
            .unwrap();
            let compiled = Tensor::from_f32(vec![0.5 + 1e-4; n], vec![n]).unwrap();
            compare_to_exact(&[compiled], &[eager], &[exact], 1e-3)
                .unwrap()
                .ok
        };
        assert!(check(1));
        assert!(check(FEW_ELEMENTS - 1));
        assert!(!check(FEW_ELEMENTS));
    }
}
