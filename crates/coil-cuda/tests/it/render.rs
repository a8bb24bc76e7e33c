//! The kernel-IR-to-PTX translator on the zoo: every model's kernels (tiny, article and large
//! sizes; per buffer and fused) render, and assemble with NVIDIA's `ptxas -arch=sm_90` where
//! it is installed.

use coil_cuda::ptx::PtxModule;
use coil_cuda::render::{KernelPlan, Strategy, plan_kernel, render_planned};
use coil_cuda::{GpuCaps, PtxTarget};
use coil_models::Size;

use crate::ptxas::{assemble, find_ptxas};
use crate::zoo::zoo_kernels;

fn module_of(kernels: &[coil_codegen::Kernel]) -> Result<PtxModule, String> {
    module_planned(kernels, |k| plan_kernel(k, &GpuCaps::h200()))
}

fn module_planned(
    kernels: &[coil_codegen::Kernel],
    plan: impl Fn(&coil_codegen::Kernel) -> KernelPlan,
) -> Result<PtxModule, String> {
    let mut module = PtxModule::new(PtxTarget::SM90);
    for k in kernels {
        let r = render_planned(k, &GpuCaps::h200(), PtxTarget::SM90, plan(k))
            .map_err(|e| format!("{}: {e}", k.name))?;
        for l in r.launches {
            module.push(l.kernel).map_err(|e| e.to_string())?;
        }
    }
    Ok(module)
}

/// The zoo's kernels with 64-bit indices and reductions looped: paths the default plans of
/// the zoo's sizes do not take.
fn other_plan(k: &coil_codegen::Kernel) -> KernelPlan {
    let p = plan_kernel(k, &GpuCaps::h200());
    let strategy = if k.reduction_ranges.is_empty() {
        p.strategy
    } else {
        Strategy::Looped {
            lanes: if k.rnumel().is_multiple_of(4) { 4 } else { 1 },
            unroll: 2,
        }
    };
    KernelPlan {
        strategy,
        block: if k.reduction_ranges.is_empty() {
            p.block
        } else {
            512
        },
        wide_indices: true,
        min_blocks_per_sm: 0,
        fast_math: p.fast_math,
    }
}

#[test]
fn every_zoo_kernel_renders() {
    for size in [Size::Tiny, Size::Article, Size::Large] {
        for (label, ks) in zoo_kernels(size) {
            if let Err(e) = module_of(&ks) {
                panic!("{label}: {e}");
            }
        }
    }
}

#[test]
fn every_zoo_kernel_assembles_for_sm90() {
    let Some(ptxas) = find_ptxas() else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipping: no ptxas (set COIL_PTXAS, or run `cargo xtask test`, which installs nvidia-cuda-nvcc into .venv)"
            );
        }
        return;
    };
    let mut failures = Vec::new();
    let mut spills = Vec::new();
    for size in [Size::Tiny, Size::Article, Size::Large] {
        for (label, ks) in zoo_kernels(size) {
            let module = match module_of(&ks) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            match module_planned(&ks, other_plan)
                .and_then(|m| assemble(&ptxas, &format!("{label}_other"), &m.to_string(), "sm_90"))
            {
                Ok(_) => {}
                Err(log) => failures.push(format!(
                    "{label} (64-bit, looped) does not assemble:\n{log}"
                )),
            }
            match assemble(&ptxas, &label, &module.to_string(), "sm_90") {
                Ok(report) => {
                    for line in report.lines() {
                        if line.contains("spill") && !line.contains(" 0 bytes spill stores") {
                            spills.push(format!("{label}: {line}"));
                        }
                    }
                }
                Err(log) => failures.push(format!("{label} does not assemble:\n{log}")),
            }
        }
    }
    #[allow(clippy::print_stderr)]
    for s in &spills {
        eprintln!("spill: {s}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_strategy_and_dtype_path_assembles_for_sm90() {
    let Some(ptxas) = find_ptxas() else {
        return;
    };
    let mut failures = Vec::new();
    for (i, text) in crate::strategies::graphs().iter().enumerate() {
        let g = coil_graph::parse(text).expect("parses");
        let (g, _) =
            coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).expect("passes");
        let l = coil_lower::lower(&g, &coil_lower::LowerConfig::gpu()).expect("lowers");
        let mut ks = crate::zoo::per_buffer(&l);
        ks.extend(crate::zoo::fused(&l, "fused"));
        let module = module_of(&ks).expect("renders");
        if let Err(log) = assemble(
            &ptxas,
            &format!("strategies_{i}"),
            &module.to_string(),
            "sm_90",
        ) {
            failures.push(format!("graph {i} does not assemble:\n{log}\n{text}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every plan autotuning may load on a GPU (`candidate_plans`) assembles, for every kernel of
/// the zoo's large models (where the candidates differ most: long rows, split means, big
/// pointwise kernels).
#[test]
fn every_autotuning_candidate_of_the_large_zoo_assembles() {
    let Some(ptxas) = find_ptxas() else {
        return;
    };
    let caps = GpuCaps::h200();
    let mut failures = Vec::new();
    let mut candidates = 0;
    for (label, ks) in zoo_kernels(Size::Large) {
        for k in &ks {
            for (i, plan) in coil_cuda::render::candidate_plans(k, &caps)
                .into_iter()
                .enumerate()
                .skip(1)
            {
                candidates += 1;
                let result = module_planned(std::slice::from_ref(k), |_| plan).and_then(|m| {
                    assemble(&ptxas, &format!("{label}_{i}"), &m.to_string(), "sm_90")
                });
                if let Err(log) = result {
                    failures.push(format!("{label} {} candidate {plan:?}:\n{log}", k.name));
                }
            }
        }
    }
    assert!(candidates > 10, "only {candidates} candidates");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// softmax at article size in `dtype`, fused into one kernel, lowered with `config`.
fn softmax_kernel(
    dtype: coil_graph::DType,
    config: &coil_lower::LowerConfig,
) -> coil_codegen::Kernel {
    let g = coil_models::find("softmax")
        .unwrap()
        .graph(Size::Article)
        .unwrap()
        .cast_to(coil_graph::DType::F32, dtype)
        .unwrap();
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).unwrap();
    let l = coil_lower::lower(&g, config).unwrap();
    crate::zoo::fused(&l, "softmax").expect("softmax fuses into one kernel")
}

/// `exp` takes `ex2.approx` only in kernels whose every result is rounded to 16 bits at its
/// store (a bf16 softmax), not in f32 kernels nor where `emulate_precision_casts` rounds
/// between ops; and a 16-bit kernel moves eight elements per 128-bit access.
#[test]
fn sixteen_bit_kernels_take_the_fast_exp_and_eight_wide_accesses() {
    use coil_cuda::render::{chunk_lanes, only_16_bit_results};
    use coil_graph::DType;
    let gpu = coil_lower::LowerConfig::gpu();
    let emulated = coil_lower::LowerConfig {
        emulate_precision_casts: true,
        ..coil_lower::LowerConfig::gpu()
    };
    let bf16 = softmax_kernel(DType::BF16, &gpu);
    assert!(only_16_bit_results(&bf16));
    assert_eq!(chunk_lanes(&bf16, bf16.rnumel()), 8);
    let ptx = module_of(std::slice::from_ref(&bf16)).unwrap().to_string();
    assert!(ptx.contains("ex2.approx"), "{ptx}");
    assert!(ptx.contains("ld.global.nc.v4.b32"), "{ptx}");
    for (what, k) in [
        ("f32", softmax_kernel(DType::F32, &gpu)),
        (
            "bf16 emulating eager's casts",
            softmax_kernel(DType::BF16, &emulated),
        ),
    ] {
        assert!(!only_16_bit_results(&k), "{what}");
        let ptx = module_of(std::slice::from_ref(&k)).unwrap().to_string();
        assert!(!ptx.contains("ex2.approx"), "{what}: {ptx}");
    }
}

/// A kernel that adds atomically (a `scatter_add` of a million points) is never autotuned:
/// timing its candidates on the real buffers would add every point once per launch (the bug
/// this pins: 37 times on an H200). The same kernel storing instead is, as it is idempotent.
#[test]
fn kernels_that_add_atomically_have_one_candidate() {
    let text = |word: &str| {
        format!(
            "kernel poi_fused_scatter_add_0 (pointwise) ranges=[1048576] reduction_ranges=[]
  arg0 idx: i64[1048576] in
  arg1 index_checks: i64[2] out
  arg2 src: f32[1048576] in
  arg3 buf0: f32[1024] inout
  outer:
    v0: i64 = load arg0[p0]
    v1: i64 = indirect(v0, size=1024, check=arg1[0])
    v2: f32 = load arg2[p0]
    {word} arg3[ind1] = v2
"
        )
    };
    let caps = GpuCaps::h200();
    let adds = &coil_kernel::parse_kernels(&text("atomic_add")).unwrap()[0];
    assert!(!adds.is_idempotent());
    assert_eq!(coil_cuda::render::candidate_plans(adds, &caps).len(), 1);
    let sets = &coil_kernel::parse_kernels(&text("store")).unwrap()[0];
    assert!(sets.is_idempotent());
    assert!(coil_cuda::render::candidate_plans(sets, &caps).len() > 1);
}

/// A kernel too small for its plans to differ by more than a launch's noise has one
/// candidate (`MIN_TUNED_ELEMENTS`); the same reduction over longer rows has several.
#[test]
fn small_kernels_have_one_candidate() {
    let text = |rows: usize| {
        format!(
            "kernel per_fused_sum_0 (persistent reduction) ranges=[{rows}] reduction_ranges=[64]
  arg0 x: f32[{n}] in
  arg1 buf0: f32[{rows}] out
  reduction loop:
    v0: f32 = load arg0[64*p0 + p1]
    acc0: f32 = sum(v0)
  outer:
    v1: f32 = acc0
    store arg1[p0] = v1
",
            n = rows * 64
        )
    };
    let caps = GpuCaps::h200();
    let small = &coil_kernel::parse_kernels(&text(64)).unwrap()[0];
    assert!(small.numel() * small.rnumel() < coil_cuda::render::MIN_TUNED_ELEMENTS);
    assert_eq!(coil_cuda::render::candidate_plans(small, &caps).len(), 1);
    let big = &coil_kernel::parse_kernels(&text(4096)).unwrap()[0];
    assert!(coil_cuda::render::candidate_plans(big, &caps).len() > 1);
}
