//! The optimised IR of a math kernel is vector code: `<8 x float>` loads, FMA arithmetic and
//! stores, with the math function inlined and no scalar libm call.

use coil_cpu::{FloatKind, HostTarget, JitModule, JitOptions, MathFn};

use crate::kernels::build_unary;

fn compile(f: MathFn, assembly: bool) -> JitModule {
    let target = HostTarget::detect().unwrap();
    let options = JitOptions {
        emit_assembly: assembly,
        ..JitOptions::default()
    };
    JitModule::compile("ir", &target, &options, |cx, module| {
        build_unary(cx, module, "kernel", f, FloatKind::F32, 4099, 8)
    })
    .unwrap()
}

#[test]
fn exp_kernel_is_vectorized_and_inlined() {
    let jit = compile(MathFn::Exp, false);
    let ir = jit.optimized_ir();
    assert!(ir.contains("load <8 x float>"), "no vector load:\n{ir}");
    assert!(ir.contains("store <8 x float>"), "no vector store:\n{ir}");
    assert!(ir.contains("@llvm.fma.v8f32"), "no vector FMA:\n{ir}");
    assert!(!ir.contains("@expf"), "scalar libm call:\n{ir}");
    assert!(
        !ir.contains("call <8 x float> @coil_exp"),
        "math function not inlined:\n{ir}"
    );
    assert!(
        !ir.contains("define internal"),
        "math functions left behind:\n{ir}"
    );
}

#[test]
fn every_f32_function_inlines_without_libm_calls() {
    for f in MathFn::UNARY {
        let jit = compile(f, false);
        let ir = jit.optimized_ir();
        for libm in [
            "@expf", "@logf", "@log1pf", "@tanhf", "@erff", "@sinf", "@cosf", "@sqrtf",
        ] {
            assert!(!ir.contains(libm), "{} kernel calls {libm}", f.name());
        }
        assert!(
            !ir.contains("@coil_") || ir.contains("@coil_rt_"),
            "{}: not inlined",
            f.name()
        );
        assert!(ir.contains("<8 x float>"), "{}: no vector code", f.name());
    }
}

#[test]
fn sin_calls_the_host_only_on_the_rare_huge_argument_branch() {
    let ir = compile(MathFn::Sin, false).optimized_ir().to_string();
    // The per-lane host calls exist, but behind a branch on a vector-or reduction.
    assert!(ir.contains("@coil_rt_sin_f32"));
    assert!(
        ir.contains("llvm.vector.reduce.or.v8i1") || ir.contains("bitcast <8 x i1>"),
        "{ir}"
    );
}

#[test]
fn host_features_reach_code_generation() {
    let target = HostTarget::detect().unwrap();
    let jit = compile(MathFn::Exp, true);
    let ir = jit.optimized_ir();
    assert!(ir.contains(&format!("\"target-cpu\"=\"{}\"", target.cpu())));
    let asm = jit.assembly().expect("assembly requested");
    if target.has_feature("avx2") && target.has_feature("fma") {
        assert!(asm.contains("vfmadd"), "no FMA instruction:\n{asm}");
        assert!(asm.contains("ymm"), "no 256-bit registers:\n{asm}");
    }
}
