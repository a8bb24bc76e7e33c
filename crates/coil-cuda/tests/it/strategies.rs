//! Every rendering strategy and dtype path on the PTX emulator against coil-eager: looped
//! reductions (rows too long to hold), split reductions (too few rows: sum, mean, argmax with
//! ties and NaN), persistent rows with a ragged end (1000 and 999 elements), warp-per-row
//! rows, f16/bf16/int/bool loads, stores and casts, masked loads (`cat`), integer floor
//! division and gather-like (permuted) accesses.

use coil_codegen::Backend;
use coil_cuda::render::{Strategy, plan_kernel};
use coil_cuda::{CudaBackend, GpuCaps};
use coil_graph::{DType, Data, Tensor};
use coil_lower::LowerConfig;

use crate::driver::{compare, program, run};

const LONG_ROWS_ARE_LOOPED: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 40000]"):
        _softmax: "f32[3, 40000]" = torch.ops.aten._softmax.default(x, -1, False)
        return (_softmax,)
"#;

const FEW_ROWS_ARE_SPLIT_FOR_SUM_MEAN_AND_ARGMAX: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2, 50000]"):
        sum_1: "f32[2]" = torch.ops.aten.sum.dim_IntList(x, [1])
        mean: "f32[]" = torch.ops.aten.mean.default(x)
        argmax: "i64[2]" = torch.ops.aten.argmax.default(x, 1)
        amin: "f32[2]" = torch.ops.aten.amin.default(x, [1])
        return (sum_1, mean, argmax, amin)
"#;

const NAN_PROPAGATES_THROUGH_MAX_AND_RELU: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 64]", y: "f32[16, 64]"):
        amax: "f32[16]" = torch.ops.aten.amax.default(x, [1])
        maximum: "f32[16, 64]" = torch.ops.aten.maximum.default(x, y)
        relu: "f32[16, 64]" = torch.ops.aten.relu.default(maximum)
        argmax: "i64[16]" = torch.ops.aten.argmax.default(x, 1)
        return (amax, relu, argmax)
"#;

const HALF_PRECISION_AND_INTEGER_PATHS: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, h: "f16[8, 128]", bh: "bf16[8, 128]", i: "i32[8, 128]", l: "i64[8, 128]", m: "b8[8, 128]"):
        exp: "f16[8, 128]" = torch.ops.aten.exp.default(h)
        add: "bf16[8, 128]" = torch.ops.aten.add.Tensor(bh, 1.5)
        sum_1: "f16[8]" = torch.ops.aten.sum.dim_IntList(h, [1])
        mul: "i32[8, 128]" = torch.ops.aten.mul.Tensor(i, 3)
        div: "i64[8, 128]" = torch.ops.aten.div.Tensor_mode(l, 7, rounding_mode = 'floor')
        sum_2: "i64[8]" = torch.ops.aten.sum.dim_IntList(i, [1])
        where: "f32[8, 128]" = torch.ops.aten.where.ScalarOther(m, 2.0, -1.0)
        logical_not: "b8[8, 128]" = torch.ops.aten.logical_not.default(m)
        _to_copy: "f32[8, 128]" = torch.ops.aten._to_copy.default(l, dtype = torch.float32)
        _to_copy_1: "i32[8, 128]" = torch.ops.aten._to_copy.default(h, dtype = torch.int32)
        amax: "i64[8]" = torch.ops.aten.amax.default(l, [1])
        return (exp, add, sum_1, mul, div, sum_2, where, logical_not, _to_copy, _to_copy_1, amax)
"#;

const MASKED_LOADS_AND_PERMUTED_ACCESSES: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[6, 10]", y: "f32[6, 6]", z: "f32[4, 6, 8]"):
        cat: "f32[6, 16]" = torch.ops.aten.cat.default([x, y], 1)
        exp: "f32[6, 16]" = torch.ops.aten.exp.default(cat)
        permute: "f32[8, 4, 6]" = torch.ops.aten.permute.default(z, [2, 0, 1])
        clone: "f32[8, 4, 6]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)
        sum_1: "f32[4, 8]" = torch.ops.aten.sum.dim_IntList(z, [1])
        return (exp, clone, sum_1)
"#;

const TRANSCENDENTAL_FUNCTIONS_MATCH_EAGER: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[33, 7]"):
        sin: "f32[33, 7]" = torch.ops.aten.sin.default(x)
        cos: "f32[33, 7]" = torch.ops.aten.cos.default(x)
        tanh: "f32[33, 7]" = torch.ops.aten.tanh.default(x)
        erf: "f32[33, 7]" = torch.ops.aten.erf.default(x)
        sigmoid: "f32[33, 7]" = torch.ops.aten.sigmoid.default(x)
        abs_1: "f32[33, 7]" = torch.ops.aten.abs.default(x)
        log: "f32[33, 7]" = torch.ops.aten.log.default(abs_1)
        log1p: "f32[33, 7]" = torch.ops.aten.log1p.default(abs_1)
        rsqrt: "f32[33, 7]" = torch.ops.aten.rsqrt.default(abs_1)
        pow_1: "f32[33, 7]" = torch.ops.aten.pow.Tensor_Scalar(abs_1, 2.5)
        return (sin, cos, tanh, erf, sigmoid, log, log1p, rsqrt, pow_1)
"#;

/// The ragged-row graph for `cols` columns.
pub(crate) fn ragged_graph(cols: usize) -> String {
    format!(
        r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[5, {cols}]", w: "f32[{cols}]", b: "f32[{cols}]"):
        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [{cols}], w, b, 1e-05)
        getitem: "f32[5, {cols}]" = native_layer_norm[0]
        argmin: "i64[5]" = torch.ops.aten.argmin.default(x, 1)
        return (getitem, argmin)
"#
    )
}

/// Every graph of these tests (for the ptxas test).
pub(crate) fn graphs() -> Vec<String> {
    let mut all: Vec<String> = [
        LONG_ROWS_ARE_LOOPED,
        FEW_ROWS_ARE_SPLIT_FOR_SUM_MEAN_AND_ARGMAX,
        NAN_PROPAGATES_THROUGH_MAX_AND_RELU,
        HALF_PRECISION_AND_INTEGER_PATHS,
        MASKED_LOADS_AND_PERMUTED_ACCESSES,
        TRANSCENDENTAL_FUNCTIONS_MATCH_EAGER,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend([1000, 999, 300, 33].map(ragged_graph));
    all
}

/// Deterministic values in [-2, 2) ([`coil_testkit::Rng`]), with every `nan_every`-th a NaN.
fn values(n: usize, seed: u64, nan_every: usize) -> Vec<f64> {
    let mut rng = coil_testkit::Rng::new(seed);
    (0..n)
        .map(|i| {
            let v = rng.uniform(-2.0, 2.0);
            if nan_every > 0 && i % nan_every == nan_every - 1 {
                f64::NAN
            } else {
                v
            }
        })
        .collect()
}

/// A deterministic input of `dtype` and `sizes` (values in [-2, 2)).
pub(crate) fn random_input(dtype: DType, sizes: &[usize], seed: u64) -> Tensor {
    input(dtype, sizes, seed, 0)
}

fn input(dtype: DType, sizes: &[usize], seed: u64, nan_every: usize) -> Tensor {
    let n: usize = sizes.iter().product();
    let v = values(n, seed, nan_every);
    let data = match dtype {
        DType::Bool => Data::Bool(v.iter().map(|x| *x > 0.0).collect()),
        DType::I32 => Data::I32(v.iter().map(|x| (x * 50.0) as i32).collect()),
        DType::I64 => Data::I64(v.iter().map(|x| (x * 50.0) as i64).collect()),
        d => Data::from_f64(d, v.into_iter()),
    };
    Tensor::new(data, sizes.to_vec()).expect("sizes match")
}

/// Runs `text` on the emulator (fused and per buffer) and checks it against coil-eager;
/// returns the strategies of the kernels (fused run).
/// Every output in `got` within `tol` of `want` (absolute or relative); `what` names the run in
/// failures.
fn assert_outputs_close(got: &[Tensor], want: &[Tensor], tol: f64, what: &str) {
    for (o, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g.dtype(), w.dtype(), "{what}, output {o}");
        let (abs, rel) = compare(g, w).unwrap_or_else(|e| panic!("{what}, output {o}: {e}"));
        assert!(
            abs <= tol || rel <= tol,
            "{what}, output {o}: abs {abs} rel {rel}"
        );
    }
}

fn check(text: &str, inputs: &[Tensor], tol: f64) -> Vec<Strategy> {
    let g = coil_graph::parse(text).expect("parses");
    let want = coil_eager::run(&g, inputs).expect("eager runs").outputs;
    let (g2, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
    let l = coil_lower::lower(&g2, &LowerConfig::gpu()).expect("lowers");
    let backend = CudaBackend::emulated();
    let mut strategies = Vec::new();
    for fuse in [true, false] {
        let got = run(&backend, &g, inputs, fuse).unwrap_or_else(|e| panic!("fuse {fuse}: {e}"));
        assert_outputs_close(&got, &want, tol, &format!("fuse {fuse}\n{text}\n"));
        if fuse {
            strategies = program(&l, true, 132)
                .kernels
                .iter()
                .map(|k| plan_kernel(k, &GpuCaps::h200()).strategy)
                .collect();
        }
    }
    strategies
}

#[test]
fn long_rows_are_looped() {
    let text = LONG_ROWS_ARE_LOOPED;
    let s = check(text, &[input(DType::F32, &[3, 40000], 1, 0)], 1e-5);
    assert!(matches!(s[..], [Strategy::Looped { .. }]), "{s:?}");
}

#[test]
fn few_rows_are_split_for_sum_mean_and_argmax() {
    let text = FEW_ROWS_ARE_SPLIT_FOR_SUM_MEAN_AND_ARGMAX;
    let mut v: Vec<f32> = values(100_000, 2, 0)
        .into_iter()
        .map(|x| x as f32)
        .collect();
    // Ties: the maximum appears twice in row 0 (the first wins); row 1 has a NaN late.
    v[30000] = 7.0;
    v[40000] = 7.0;
    v[50000 + 45000] = f32::NAN;
    v[50000 + 100] = 9.0;
    let x = Tensor::from_f32(v, vec![2, 50000]).expect("sizes match");
    let s = check(text, &[x], 1e-4);
    assert!(
        s.iter().any(|s| matches!(s, Strategy::Split { .. })),
        "{s:?}"
    );
}

#[test]
fn ragged_persistent_rows() {
    for cols in [1000usize, 999, 300, 33] {
        let text = ragged_graph(cols);
        let inputs = [
            input(DType::F32, &[5, cols], 3, 0),
            input(DType::F32, &[cols], 4, 0),
            input(DType::F32, &[cols], 5, 0),
        ];
        let s = check(&text, &inputs, 1e-4);
        assert!(
            s.iter()
                .all(|s| matches!(s, Strategy::Persistent { .. } | Strategy::Pointwise { .. })),
            "{cols}: {s:?}"
        );
    }
}

const BF16_WINDOW_MEAN_THEN_LAYER_NORM: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[3, 128, 4]", w: "bf16[128]", b: "bf16[128]"):
        mean: "bf16[3, 128]" = torch.ops.aten.mean.dim(x, [-1])
        native_layer_norm = torch.ops.aten.native_layer_norm.default(mean, [128], w, b, 1e-06)
        getitem: "bf16[3, 128]" = native_layer_norm[0]
        return (getitem,)
"#;

const BF16_LAYER_NORM: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[3, 128]", w: "bf16[128]", b: "bf16[128]"):
        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [128], w, b, 1e-06)
        getitem: "bf16[3, 128]" = native_layer_norm[0]
        return (getitem,)
"#;

#[test]
fn bf16_rows_no_load_reads_contiguously_take_four_lanes() {
    // A layer norm over the means of 4-element windows (timm_convnext_atto's head) reads its
    // row with a stride of 4: four lanes a chunk, as for f32, not eight scalar loads each
    // (which doubled the code and made ptxas hold nothing across the stages).
    let w = [
        input(DType::BF16, &[128], 22, 0),
        input(DType::BF16, &[128], 23, 0),
    ];
    let strided = [
        input(DType::BF16, &[3, 128, 4], 21, 0),
        w[0].clone(),
        w[1].clone(),
    ];
    let s = check(BF16_WINDOW_MEAN_THEN_LAYER_NORM, &strided, 3e-2);
    assert!(
        s.iter()
            .any(|s| matches!(s, Strategy::Persistent { lanes: 4, .. })),
        "{s:?}"
    );
    // A row read contiguously keeps eight lanes: one 128-bit load a chunk.
    let rows = [
        input(DType::BF16, &[3, 128], 24, 0),
        w[0].clone(),
        w[1].clone(),
    ];
    let s = check(BF16_LAYER_NORM, &rows, 3e-2);
    assert!(
        s.iter()
            .any(|s| matches!(s, Strategy::Persistent { lanes: 8, .. })),
        "{s:?}"
    );
}

const BF16_STRIDED_READ: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[8, 128]"):
        slice_1: "bf16[8, 64]" = torch.ops.aten.slice.Tensor(x, 1, 0, 9223372036854775807, 2)
        mul: "bf16[8, 64]" = torch.ops.aten.mul.Tensor(slice_1, 2)
        return (mul,)
"#;

const BF16_CONTIGUOUS_READ: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "bf16[8, 128]"):
        add: "bf16[8, 128]" = torch.ops.aten.add.Tensor(x, 1)
        return (add,)
"#;

#[test]
fn bf16_pointwise_kernels_with_no_vector_load_take_four_lanes() {
    // Every other element (a strided slice, as pooling windows and im2col gathers read): no
    // 128-bit load to gain from eight lanes, so four; a contiguous read keeps eight.
    let x = input(DType::BF16, &[8, 128], 25, 0);
    for (text, want) in [(BF16_STRIDED_READ, 4), (BF16_CONTIGUOUS_READ, 8)] {
        let s = check(text, std::slice::from_ref(&x), 1e-2);
        assert!(
            matches!(s[..], [Strategy::Pointwise { lanes, .. }] if lanes == want),
            "{s:?}"
        );
    }
}

#[test]
fn nan_propagates_through_max_and_relu() {
    let text = NAN_PROPAGATES_THROUGH_MAX_AND_RELU;
    check(
        text,
        &[
            input(DType::F32, &[16, 64], 6, 37),
            input(DType::F32, &[16, 64], 7, 11),
        ],
        1e-6,
    );
}

#[test]
fn half_precision_and_integer_paths() {
    let text = HALF_PRECISION_AND_INTEGER_PATHS;
    check(
        text,
        &[
            input(DType::F16, &[8, 128], 8, 0),
            input(DType::BF16, &[8, 128], 9, 0),
            input(DType::I32, &[8, 128], 10, 0),
            input(DType::I64, &[8, 128], 11, 0),
            input(DType::Bool, &[8, 128], 12, 0),
        ],
        2e-3,
    );
}

#[test]
fn masked_loads_and_permuted_accesses() {
    let text = MASKED_LOADS_AND_PERMUTED_ACCESSES;
    check(
        text,
        &[
            input(DType::F32, &[6, 10], 13, 0),
            input(DType::F32, &[6, 6], 14, 0),
            input(DType::F32, &[4, 6, 8], 15, 0),
        ],
        1e-6,
    );
}

#[test]
fn transcendental_functions_match_eager() {
    let text = TRANSCENDENTAL_FUNCTIONS_MATCH_EAGER;
    check(text, &[input(DType::F32, &[33, 7], 16, 0)], 1e-5);
}

const AUTOTUNE_CANDIDATES: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[6, 2048]", w: "f32[2048]", y: "f32[2, 40000]"):
        _softmax: "f32[6, 2048]" = torch.ops.aten._softmax.default(x, -1, False)
        mean: "f32[6, 1]" = torch.ops.aten.mean.dim(x, [1], True)
        sub: "f32[6, 2048]" = torch.ops.aten.sub.Tensor(x, mean)
        mul: "f32[6, 2048]" = torch.ops.aten.mul.Tensor(sub, w)
        mean_1: "f32[]" = torch.ops.aten.mean.default(y)
        return (_softmax, mul, mean_1)
"#;

/// Every plan autotuning may pick ([`candidate_plans`]) computes what eager does: the model
/// runs once per candidate index, each kernel under its candidate of that index.
#[test]
fn every_autotuning_candidate_matches_eager() {
    candidates_match_eager(DType::F32, 1e-5);
}

/// The same in bf16: eight lanes a 128-bit access, rows held as packed words and unpacked
/// again by later stages, the next row prefetched, softmax's division by the row's sum as a
/// multiplication by its reciprocal (the relaxed math of 16-bit results); within bf16's
/// resolution of eager, which rounds between ops.
#[test]
fn every_autotuning_candidate_matches_eager_in_bf16() {
    candidates_match_eager(DType::BF16, 1e-2);
}

fn candidates_match_eager(dtype: DType, tol: f64) {
    use coil_cuda::render::candidate_plans;
    let text = AUTOTUNE_CANDIDATES.replace("f32[", &format!("{}[", dtype.short_name()));
    let g = coil_graph::parse(&text).expect("parses");
    let inputs = [
        input(dtype, &[6, 2048], 11, 0),
        input(dtype, &[2048], 12, 0),
        input(dtype, &[2, 40000], 13, 0),
    ];
    let want = coil_eager::run(&g, &inputs).expect("eager runs").outputs;
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
    let l = coil_lower::lower(&g, &LowerConfig::gpu()).expect("lowers");
    let caps = GpuCaps::h200();
    let kernels = program(&l, true, caps.sm_count).kernels;
    let candidates: Vec<Vec<coil_cuda::render::KernelPlan>> =
        kernels.iter().map(|k| candidate_plans(k, &caps)).collect();
    let seen: Vec<Strategy> = candidates.iter().flatten().map(|p| p.strategy).collect();
    assert!(
        seen.iter()
            .any(|s| matches!(s, Strategy::Looped { unroll: 4, .. }))
            && seen.iter().any(|s| matches!(
                s,
                Strategy::Persistent {
                    row_threads: 256,
                    ..
                }
            ))
            && seen
                .iter()
                .any(|s| matches!(s, Strategy::Split { unroll: 4, .. }))
            && seen
                .iter()
                .any(|s| matches!(s, Strategy::Split { fused: true, .. }))
            && seen
                .iter()
                .any(|s| matches!(s, Strategy::Persistent { prefetch: true, .. })),
        "{seen:?}"
    );
    let most = candidates.iter().map(Vec::len).max().unwrap_or(1);
    for i in 0..most {
        let planner: coil_cuda::Planner = std::sync::Arc::new(move |k, caps| {
            let c = candidate_plans(k, caps);
            c.get(i).copied().unwrap_or(c[0])
        });
        let backend = CudaBackend::emulated().with_planner(planner);
        let got = run(&backend, &g, &inputs, true).unwrap_or_else(|e| panic!("candidate {i}: {e}"));
        assert_outputs_close(&got, &want, tol, &format!("{dtype} candidate {i}"));
    }
}

/// A fused split reduction (the last block to finish combines the partials) gives the same
/// result on every run: its per-row counters are back at zero after each launch.
#[test]
fn fused_split_reductions_reset_their_counters() {
    let text = FEW_ROWS_ARE_SPLIT_FOR_SUM_MEAN_AND_ARGMAX;
    let g = coil_graph::parse(text).expect("parses");
    let inputs = [input(DType::F32, &[2, 50000], 21, 0)];
    let want = coil_eager::run(&g, &inputs).expect("eager runs").outputs;
    let planner: coil_cuda::Planner = std::sync::Arc::new(|k, caps| {
        let mut plan = plan_kernel(k, caps);
        if let Strategy::Split { fused, .. } = &mut plan.strategy {
            *fused = true;
        }
        plan
    });
    let backend: std::sync::Arc<dyn Backend> =
        std::sync::Arc::new(CudaBackend::emulated().with_planner(planner));
    let model = coil::compile(&g, backend, &coil::Options::default()).expect("compiles");
    assert!(
        model.source().contains("atom.global.add.u32"),
        "no fused split in:\n{}",
        model.source()
    );
    if let Some(ptxas) = crate::ptxas::find_ptxas() {
        crate::ptxas::assemble(&ptxas, "fused_split", &model.source(), "sm_90")
            .unwrap_or_else(|e| panic!("ptxas: {e}"));
    }
    for run_no in 0..3 {
        let got = model.run(&inputs).expect("runs");
        assert_outputs_close(&got, &want, 1e-5, &format!("run {run_no}"));
    }
}

const REVERSED_POINTWISE: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 1001]", y: "f32[1001]", z: "f32[4, 2048]"):
        mul: "f32[3, 1001]" = torch.ops.aten.mul.Tensor(x, y)
        add: "f32[3, 1001]" = torch.ops.aten.add.Tensor(mul, 1.0)
        relu: "f32[3, 1001]" = torch.ops.aten.relu.default(add)
        sin: "f32[4, 2048]" = torch.ops.aten.sin.default(z)
        mean: "f32[]" = torch.ops.aten.mean.default(z)
        sub: "f32[4, 2048]" = torch.ops.aten.sub.Tensor(z, mean)
        return (relu, sin, sub)
"#;

/// Pointwise kernels walked backwards (as `walk_backwards` picks for a kernel rereading what
/// the one before it read), and with a grid covering every element (`one_pass`), compute what
/// eager does: odd sizes (one lane), a size of a multiple of four (four lanes), with one and
/// two chunks per iteration.
#[test]
fn reversed_and_one_pass_pointwise_kernels_match_eager() {
    let g = coil_graph::parse(REVERSED_POINTWISE).expect("parses");
    let inputs = [
        input(DType::F32, &[3, 1001], 31, 0),
        input(DType::F32, &[1001], 32, 0),
        input(DType::F32, &[4, 2048], 33, 0),
    ];
    let want = coil_eager::run(&g, &inputs).expect("eager runs").outputs;
    let l = coil_lower::lower(&g, &LowerConfig::gpu()).expect("lowers");
    for (unroll, reversed, full_grid) in [
        (1, true, false),
        (2, true, false),
        (2, false, true),
        (1, true, true),
    ] {
        let planner: coil_cuda::Planner = std::sync::Arc::new(move |k, caps| {
            let mut plan = plan_kernel(k, caps);
            if let Strategy::Pointwise {
                reverse,
                unroll: u,
                one_pass,
                ..
            } = &mut plan.strategy
            {
                *reverse = reversed;
                *u = unroll;
                *one_pass = full_grid;
            }
            plan
        });
        let backend = CudaBackend::emulated().with_planner(planner);
        let source = backend
            .render(&program(&l, true, 132).kernels)
            .expect("renders")
            .1;
        assert!(
            source.iter().any(|r| matches!(
                r.plan.strategy,
                Strategy::Pointwise { reverse, one_pass, .. }
                    if reverse == reversed && one_pass == full_grid
            )),
            "no pointwise kernel with reverse {reversed} and one_pass {full_grid}"
        );
        let got = run(&backend, &g, &inputs, true).unwrap_or_else(|e| {
            panic!("unroll {unroll}, reverse {reversed}, one pass {full_grid}: {e}")
        });
        assert_outputs_close(
            &got,
            &want,
            1e-6,
            &format!("unroll {unroll}, reverse {reversed}, one pass {full_grid}"),
        );
    }
}

/// The large `wall` runs its second kernel backwards: it rereads x (256 MiB, past the 50 MiB
/// L2) right after the global mean read it front to back. At the article size x fits in L2,
/// and a single kernel has nothing before it.
#[test]
fn a_kernel_rereading_a_big_input_walks_backwards() {
    use coil_cuda::render::walk_backwards;
    let caps = GpuCaps::h200();
    let kernels = |size| {
        let g = coil_models::find("wall").unwrap().graph(size).unwrap();
        let l = coil_lower::lower(&g, &LowerConfig::gpu()).expect("lowers");
        program(&l, true, caps.sm_count).kernels
    };
    let large = kernels(coil_models::Size::Large);
    assert_eq!(large.len(), 2);
    assert_eq!(walk_backwards(&large, &caps), [false, true]);
    let backend = CudaBackend::offline();
    let (_, rendered) = backend.render(&large).expect("renders");
    assert!(matches!(
        rendered[1].plan.strategy,
        Strategy::Pointwise { reverse: true, .. }
    ));
    let article = kernels(coil_models::Size::Article);
    assert!(!walk_backwards(&article, &caps).contains(&true));
    let chain = {
        let g = coil_models::find("chain")
            .unwrap()
            .graph(coil_models::Size::Large)
            .unwrap();
        let l = coil_lower::lower(&g, &LowerConfig::gpu()).expect("lowers");
        program(&l, true, caps.sm_count).kernels
    };
    assert!(!walk_backwards(&chain, &caps).contains(&true));
}

/// `sin` and `cos` of a thread's vector lanes (one comparison for the slow path; infinities
/// through Payne-Hanek to NaN): every lane equals the math library's scalar routine bit for
/// bit, whatever mix of small, huge, infinite and NaN values a vector holds.
#[test]
fn sin_and_cos_of_lanes_match_the_scalar_routine_bit_for_bit() {
    use coil_cuda::math::{Host, cos, sin};
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4096]"):
        sin: "f32[4096]" = torch.ops.aten.sin.default(x)
        cos: "f32[4096]" = torch.ops.aten.cos.default(x)
        return (sin, cos)
"#;
    let g = coil_graph::parse(text).expect("parses");
    let xs: Vec<f32> = (0..4096u32)
        .map(|i| match i % 23 {
            3 => 105_615.0 + i as f32 * 7.5,
            7 => f32::INFINITY,
            11 => f32::NEG_INFINITY,
            13 => f32::NAN,
            17 => -3.0e38 / (1 + i) as f32,
            19 => 1.0e-30,
            _ => (i as f32 * 0.377).sin() * 300.0,
        })
        .collect();
    let x = Tensor::new(Data::F32(xs.clone()), vec![4096]).expect("sizes match");
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
    let got = run(&CudaBackend::emulated(), &g, &[x], true).expect("runs");
    for (o, f) in [(0, sin as fn(&mut Host, f32) -> f32), (1, cos)] {
        let ys: Vec<f32> = got[o].to_f64_vec().into_iter().map(|v| v as f32).collect();
        for (i, (&x, &y)) in xs.iter().zip(&ys).enumerate() {
            let want = f(&mut Host, x);
            assert!(
                y.to_bits() == want.to_bits() || (y.is_nan() && want.is_nan()),
                "output {o}, element {i}: f({x:e}) = {y:e}, the scalar routine gives {want:e}"
            );
        }
    }
}

/// `floor`, `ceil`, `round` (ties to even) and `trunc` as `cvt.rmi/rpi/rni/rzi` on the
/// emulator: halves, signed zeros, NaN, the infinities, in f32 and through bf16 loads and
/// stores, equal to Rust's own roundings bit for bit; on integers the identity.
#[test]
fn rounding_ops_match_rusts_roundings_bit_for_bit() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64]", h: "bf16[64]", i: "i64[64]"):
        floor: "f32[64]" = torch.ops.aten.floor.default(x)
        ceil: "f32[64]" = torch.ops.aten.ceil.default(x)
        round_1: "f32[64]" = torch.ops.aten.round.default(x)
        trunc: "f32[64]" = torch.ops.aten.trunc.default(x)
        round_2: "bf16[64]" = torch.ops.aten.round.default(h)
        floor_1: "i64[64]" = torch.ops.aten.floor.default(i)
        return (floor, ceil, round_1, trunc, round_2, floor_1)
"#;
    let g = coil_graph::parse(text).expect("parses");
    let special = [
        2.5f32,
        -2.5,
        0.5,
        -0.5,
        1.5,
        -0.0,
        0.0,
        f32::NAN,
        f32::INFINITY,
        -1e30,
    ];
    let xs: Vec<f32> = (0..64)
        .map(|i| {
            special
                .get(i)
                .copied()
                .unwrap_or((i as f32 * 0.77).sin() * 9.0)
        })
        .collect();
    let hs: Vec<half::bf16> = xs.iter().map(|&v| half::bf16::from_f32(v * 3.0)).collect();
    let is: Vec<i64> = (0..64).map(|i| i * 7 - 200).collect();
    let inputs = [
        Tensor::new(Data::F32(xs.clone()), vec![64]).expect("sizes"),
        Tensor::new(Data::BF16(hs.clone()), vec![64]).expect("sizes"),
        Tensor::new(Data::I64(is.clone()), vec![64]).expect("sizes"),
    ];
    let got = run(&CudaBackend::emulated(), &g, &inputs, true).expect("runs");
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    let wants: [fn(f32) -> f32; 4] = [f32::floor, f32::ceil, f32::round_ties_even, f32::trunc];
    for (o, f) in wants.into_iter().enumerate() {
        let ys: Vec<f32> = got[o].to_f64_vec().into_iter().map(|v| v as f32).collect();
        for (&x, &y) in xs.iter().zip(&ys) {
            assert!(
                same(y, f(x)),
                "output {o}: f({x:e}) = {y:e}, want {:e}",
                f(x)
            );
        }
    }
    let rounded: Vec<f32> = got[4].to_f64_vec().into_iter().map(|v| v as f32).collect();
    for (&h, &y) in hs.iter().zip(&rounded) {
        let want = h.to_f32().round_ties_even();
        assert!(same(y, want), "round(bf16 {h}) = {y:e}, want {want:e}");
    }
    assert_eq!(
        got[5].to_f64_vec(),
        is.iter().map(|&v| v as f64).collect::<Vec<_>>()
    );
}
