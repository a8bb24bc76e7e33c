//! The backend conformance suite (feature `zoo`): every tiny zoo model, under every fusion
//! strategy, compiled with a given backend through `coil::compile`, run twice on the same
//! memory, and compared with PyTorch's saved outputs and with a float64 reference (coil-eager
//! on the graph with f32 replaced by f64). A backend written outside this repository runs it
//! from its own tests (`docs/codegen.md`, "Conformance"):
//!
//! ```no_run
//! # use std::sync::Arc;
//! # fn my_backend() -> Arc<dyn coil_codegen::Backend> { Arc::new(coil_codegen::InterpBackend::new()) }
//! let failures = coil_testkit::conformance(&my_backend(), &coil::builtin_strategies());
//! assert!(failures.is_empty(), "{}", failures.join("\n"));
//! ```

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_graph::{Graph, Tensor};
use coil_sched::SharedStrategy;

use crate::check_outputs;

/// The articles' models with their kernel and extern-call counts under the default options
/// (the same on the CPU and the GPU).
pub const ARTICLE_KERNEL_COUNTS: &[(&str, usize, usize)] = &[
    ("seed_model", 1, 0),
    ("chain", 1, 0),
    ("rowsum", 1, 0),
    ("siblings", 1, 0),
    ("wall", 2, 0),
    ("softmax", 1, 0),
    ("layernorm", 1, 0),
    ("rmsnorm", 1, 0),
    ("mm_epilogue", 2, 1),
];

/// Tolerance against PyTorch's saved float32 outputs.
const TORCH_ATOL: f64 = 1e-5;
const TORCH_RTOL: f64 = 1e-4;

/// Compiles every tiny zoo model under each of `strategies` with `backend`, runs it on
/// PyTorch's inputs and compares the outputs with PyTorch's ([`check_outputs`], atol 1e-5,
/// rtol 1e-4) and with the float64 reference (within 1e-6 plus 8 times coil-eager's own
/// float32 error, rtol 1e-4: what float32 rounding explains). The model runs twice; the second
/// run must repeat the first bit for bit (memory is allocated once and reused). Returns one
/// line per failure (`model strategy: what`), empty when everything conforms.
pub fn conformance(backend: &Arc<dyn Backend>, strategies: &[SharedStrategy]) -> Vec<String> {
    let mut failures = Vec::new();
    for m in coil_models::MODELS {
        let case = match m.tiny_case() {
            Ok(case) => case,
            Err(e) => {
                failures.push(format!("{}: {e}", m.name));
                continue;
            }
        };
        let exact = float64_reference(&case.graph, &case.inputs);
        for strategy in strategies {
            let options = Options {
                strategy: strategy.clone(),
                verify: true,
                ..Options::default()
            };
            let outcome = coil::compile(&case.graph, backend.clone(), &options)
                .map_err(|e| format!("compile: {e}"))
                .and_then(|model| {
                    let first = model.run(&case.inputs).map_err(|e| format!("run: {e}"))?;
                    let second = model
                        .run(&case.inputs)
                        .map_err(|e| format!("second run: {e}"))?;
                    check_outputs(&second, &first, 0.0, 0.0)
                        .map_err(|e| format!("the second run differs from the first: {e}"))?;
                    Ok(first)
                })
                .and_then(|out| {
                    check_outputs(&out, &case.outputs, TORCH_ATOL, TORCH_RTOL)
                        .map_err(|e| format!("against PyTorch: {e}"))?;
                    match &exact {
                        Some((reference, eager)) => within_rounding(&out, reference, eager)
                            .map_err(|e| format!("against float64: {e}")),
                        None => Ok(()),
                    }
                });
            if let Err(e) = outcome {
                failures.push(format!("{} {}: {e}", m.name, strategy.name()));
            }
        }
    }
    failures
}

/// PyTorch's own tolerances for 16-bit floats (`torch.testing.assert_close`'s defaults).
fn torch_tolerance(dtype: coil_graph::DType) -> (f64, f64) {
    match dtype {
        coil_graph::DType::BF16 => (1e-5, 1.6e-2),
        _ => (1e-5, 1e-3),
    }
}

/// The 16-bit conformance suite: every zoo function in bf16 and f16
/// ([`coil_models::TINY_16`]) under each of `strategies`, run twice (bit for bit the same),
/// each float output within the float64 rule (1e-6 plus 8 times coil-eager's own error against
/// float64, whose roundings after every op are PyTorch eager's, plus 1e-4 relative). PyTorch's
/// saved outputs are checked with PyTorch's tolerance for the dtype; an output further than
/// that from PyTorch still passes when it is within the float64 rule (coil rounds once per
/// store, as Inductor does, so where eager's intermediate roundings cancel, coil is the closer
/// one). Returns one line per failure.
pub fn conformance_16(backend: &Arc<dyn Backend>, strategies: &[SharedStrategy]) -> Vec<String> {
    let mut failures = Vec::new();
    for m in coil_models::TINY_16 {
        let label = format!("{} {}", m.name, m.dtype);
        match m.tiny.case(m.name) {
            Ok(case) => failures.extend(
                check_16(&case, m.dtype, backend, strategies)
                    .into_iter()
                    .map(|e| format!("{label} {e}")),
            ),
            Err(e) => failures.push(format!("{label}: {e}")),
        }
    }
    failures
}

/// The real models in bf16 ([`coil_models::REAL_16`]: graphs cast, PyTorch's bf16 outputs;
/// those named in `only`, or all when it is empty) under each of `strategies`, checked as
/// [`conformance_16`] checks the zoo.
pub fn conformance_real_16(
    backend: &Arc<dyn Backend>,
    strategies: &[SharedStrategy],
    only: &[&str],
) -> Vec<String> {
    let mut failures = Vec::new();
    for m in coil_models::REAL_16
        .iter()
        .filter(|m| only.is_empty() || only.contains(&m.name))
    {
        match m.case() {
            Ok(case) => failures.extend(
                check_16(&case, coil_graph::DType::BF16, backend, strategies)
                    .into_iter()
                    .map(|e| format!("{} bf16 {e}", m.name)),
            ),
            Err(e) => failures.push(format!("{} bf16: {e}", m.name)),
        }
    }
    failures
}

/// One 16-bit case under each strategy: `strategy: what` per failure.
fn check_16(
    case: &coil_models::TinyCase,
    dtype: coil_graph::DType,
    backend: &Arc<dyn Backend>,
    strategies: &[SharedStrategy],
) -> Vec<String> {
    let Some((reference, eager)) = float64_reference(&case.graph, &case.inputs) else {
        return vec!["no float64 reference".into()];
    };
    let (atol, rtol) = torch_tolerance(dtype);
    let mut failures = Vec::new();
    for strategy in strategies {
        let options = Options {
            strategy: strategy.clone(),
            verify: true,
            ..Options::default()
        };
        let outcome = coil::compile(&case.graph, backend.clone(), &options)
            .map_err(|e| format!("compile: {e}"))
            .and_then(|model| {
                let first = model.run(&case.inputs).map_err(|e| format!("run: {e}"))?;
                let second = model
                    .run(&case.inputs)
                    .map_err(|e| format!("second run: {e}"))?;
                check_outputs(&second, &first, 0.0, 0.0)
                    .map_err(|e| format!("the second run differs from the first: {e}"))?;
                Ok(first)
            })
            .and_then(|out| {
                for (i, o) in out.iter().enumerate() {
                    if o.dtype() != case.outputs[i].dtype() {
                        return Err(format!(
                            "output {i} is {}, PyTorch's is {}",
                            o.dtype(),
                            case.outputs[i].dtype()
                        ));
                    }
                }
                let exact = within_rounding(&out, &reference, &eager)
                    .map_err(|e| format!("against float64: {e}"));
                match check_outputs(&out, &case.outputs, atol, rtol) {
                    Ok(()) => exact,
                    Err(e) => exact.map_err(|f| format!("against PyTorch: {e}; {f}")),
                }
            });
        if let Err(e) = outcome {
            failures.push(format!("{}: {e}", strategy.name()));
        }
    }
    failures
}

/// The zoo's memory-bound functions (no matmul, whose summation order is the library's).
pub const MEMORY_BOUND: &[&str] = &[
    "seed_model",
    "chain",
    "rowsum",
    "siblings",
    "wall",
    "softmax",
    "layernorm",
    "rmsnorm",
];

/// With `emulate_precision_casts` (16-bit results rounded wherever eager rounds them), every
/// memory-bound zoo function in bf16 and f16 gives PyTorch's outputs bit for bit on
/// `backend`. Returns one line per failure.
pub fn emulated_casts_match_pytorch(backend: &Arc<dyn Backend>) -> Vec<String> {
    let options = emulating_casts(backend);
    let mut failures = Vec::new();
    for m in coil_models::TINY_16
        .iter()
        .filter(|m| MEMORY_BOUND.contains(&m.name))
    {
        let outcome = m
            .tiny
            .case(m.name)
            .map_err(|e| e.to_string())
            .and_then(|case| {
                let model = coil::compile(&case.graph, backend.clone(), &options)
                    .map_err(|e| format!("compile: {e}"))?;
                let out = model.run(&case.inputs).map_err(|e| format!("run: {e}"))?;
                check_outputs(&out, &case.outputs, 0.0, 0.0)
            });
        if let Err(e) = outcome {
            failures.push(format!("{} {}: {e}", m.name, m.dtype));
        }
    }
    failures
}

/// The default options with `emulate_precision_casts` on `backend`'s lowering rules.
fn emulating_casts(backend: &Arc<dyn Backend>) -> Options {
    let mut lower = coil_codegen::LowerConfig::for_target(&backend.target());
    lower.emulate_precision_casts = true;
    Options {
        lower: Some(lower),
        verify: true,
        ..Options::default()
    }
}

/// `(x + 0.001) - x` (times 1000) in bf16 at x = 1 on `backend`: eager gives 0 (1.001 rounds to
/// 1); by default a fused kernel keeps the 0.001 in f32 (Inductor's semantics) and gives about
/// 1; with `emulate_precision_casts` every op's result is rounded as eager rounds it, and the
/// result is eager's bit for bit. `Err` says which of the three failed.
pub fn emulated_casts_round_where_eager_rounds(backend: &Arc<dyn Backend>) -> Result<(), String> {
    use coil_graph::{DType, Data};
    let text = "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"bf16[64]\"):\n        \
                add: \"bf16[64]\" = torch.ops.aten.add.Tensor(x, 0.001)\n        \
                sub: \"bf16[64]\" = torch.ops.aten.sub.Tensor(add, x)\n        \
                mul: \"bf16[64]\" = torch.ops.aten.mul.Tensor(sub, 1000)\n        \
                return (mul,)\n";
    let g = coil_graph::parse(text).map_err(|e| e.to_string())?;
    let x = Tensor::new(
        Data::from_f64(DType::BF16, std::iter::repeat_n(1.0, 64)),
        vec![64],
    )
    .map_err(|e| e.to_string())?;
    let eager = coil_eager::run(&g, std::slice::from_ref(&x))
        .map_err(|e| e.to_string())?
        .outputs[0]
        .to_f64_vec();
    if eager != vec![0.0; 64] {
        return Err(format!("eager gives {eager:?}, not 0"));
    }
    let run = |o: &Options| -> Result<Vec<f64>, String> {
        let model = coil::compile(&g, backend.clone(), o).map_err(|e| e.to_string())?;
        let out = model
            .run(std::slice::from_ref(&x))
            .map_err(|e| e.to_string())?;
        Ok(out[0].to_f64_vec())
    };
    let fused = run(&Options::default())?[0];
    if (fused - 1.0).abs() >= 0.01 {
        return Err(format!("Inductor's semantics keep the 0.001: got {fused}"));
    }
    let exact = run(&emulating_casts(backend))?;
    if exact != eager {
        return Err(format!(
            "with emulate_precision_casts: {exact:?}, eager {eager:?}"
        ));
    }
    Ok(())
}

/// The float64 reference of the graph's outputs and eager's own float32 outputs; `None` when
/// the graph has no f32 or eager cannot run it.
fn float64_reference(graph: &Graph, inputs: &[Tensor]) -> Option<(Vec<Tensor>, Vec<Tensor>)> {
    let reference = coil_eager::run_float64(graph, inputs, usize::MAX)?;
    let eager = coil_eager::run(graph, inputs).ok()?.outputs;
    Some((reference, eager))
}

/// `got` is as accurate as eager against the float64 `reference`, by the workspace's one
/// oracle ([`coil_eager::oracle::judge`]: per f32 output within 1e-6 plus 8 times eager's
/// largest error on it, plus 1e-4 relative; the 16-bit rule for bf16 and f16). Integer and
/// bool outputs are checked against PyTorch's saved outputs elsewhere.
fn within_rounding(got: &[Tensor], reference: &[Tensor], eager: &[Tensor]) -> Result<(), String> {
    if got.len() != reference.len() || eager.len() != reference.len() {
        return Err(format!("{} outputs vs {}", got.len(), reference.len()));
    }
    for (i, ((g, r), e)) in got.iter().zip(reference).zip(eager).enumerate() {
        if !g.dtype().is_float() {
            continue;
        }
        let v = coil_eager::oracle::judge(
            &g.to_f64_vec(),
            &e.to_f64_vec(),
            &r.to_f64_vec(),
            g.dtype(),
            0.0,
        );
        if !v.ok {
            return Err(format!("output {i}: {} (the float64 rule)", v.detail));
        }
    }
    Ok(())
}

/// `fmod` of f32 and f64 through `backend`, bit for bit against Rust's `%` (C's `fmod`), on
/// 4099 random bit patterns each (every exponent, subnormals, infinities, NaN; a tail past
/// any vector width): in blocks of 64, divisors near the dividend's scale (small quotients)
/// alternate with divisors of any scale. Returns one line per wrong element.
pub fn fmod_is_exact_on_random_bits(backend: &Arc<dyn Backend>) -> Vec<String> {
    use coil_graph::Data;
    let n = 4099;
    let text = format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[{n}]", b: "f32[{n}]", c: "f64[{n}]", d: "f64[{n}]"):
        f: "f32[{n}]" = torch.ops.aten.fmod.Tensor(a, b)
        g: "f64[{n}]" = torch.ops.aten.fmod.Tensor(c, d)
        return (f, g)
"#
    );
    let g = match coil_graph::parse(&text) {
        Ok(g) => g,
        Err(e) => return vec![e.to_string()],
    };
    let mut rng = crate::Rng::new(31);
    let (mut a, mut b, mut c, mut d) = (vec![], vec![], vec![], vec![]);
    for i in 0..n {
        a.push(f32::from_bits(rng.next_u64() as u32));
        c.push(f64::from_bits(rng.next_u64()));
        if (i / 64) % 2 == 0 {
            let m = rng.next_u64();
            b.push(f32::from_bits(
                (a[i].to_bits() & 0xff80_0000) ^ (m as u32 & 0x807f_ffff),
            ));
            d.push(f64::from_bits(
                (c[i].to_bits() & 0xfff0_0000_0000_0000) ^ (m & 0x800f_ffff_ffff_ffff),
            ));
        } else {
            b.push(f32::from_bits(rng.next_u64() as u32));
            d.push(f64::from_bits(rng.next_u64()));
        }
    }
    let tensor = |data: Data| Tensor::new(data, vec![n]).expect("n values");
    let inputs = vec![
        tensor(Data::F32(a.clone())),
        tensor(Data::F32(b.clone())),
        tensor(Data::F64(c.clone())),
        tensor(Data::F64(d.clone())),
    ];
    let got = match coil::compile(&g, backend.clone(), &Options::default())
        .and_then(|m| m.run(&inputs))
    {
        Ok(got) => got,
        Err(e) => return vec![e.to_string()],
    };
    let (Data::F32(f), Data::F64(h)) = (&**got[0].storage(), &**got[1].storage()) else {
        return vec!["fmod returned other dtypes".into()];
    };
    let mut failures = Vec::new();
    for i in 0..n {
        let (w32, w64) = (a[i] % b[i], c[i] % d[i]);
        if !(w32.to_bits() == f[i].to_bits() || w32.is_nan() && f[i].is_nan()) {
            failures.push(format!(
                "{i}: fmod({:e}, {:e}) = {w32:e}, got {:e}",
                a[i], b[i], f[i]
            ));
        }
        if !(w64.to_bits() == h[i].to_bits() || w64.is_nan() && h[i].is_nan()) {
            failures.push(format!(
                "{i}: fmod({:e}, {:e}) = {w64:e}, got {:e}",
                c[i], d[i], h[i]
            ));
        }
    }
    failures
}
