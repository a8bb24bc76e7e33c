//! Temporary exploration.

use coil_lower::LowerConfig;

use crate::common::*;

#[test]
fn explore() {
    for name in [
        "seed_model",
        "softmax",
        "wall",
        "siblings",
        "mm_epilogue",
        "chain",
        "rowsum",
        "layernorm",
    ] {
        let l = lower(&zoo(name), &LowerConfig::cpu());
        let s = inductor_cpu(&l);
        eprintln!(
            "=== {name} cpu\n{}\n{}\n{:?}\n{}",
            s.fusion_log().join("\n"),
            s.ir_post_fusion(),
            kernel_names(&s),
            s.bytes_accessed()
        );
        let l = lower(&zoo(name), &LowerConfig::gpu());
        let s = inductor_gpu(&l);
        eprintln!(
            "=== {name} gpu\n{}\n{:?}",
            decisions(&s).join("\n"),
            kernel_names(&s)
        );
        let tvm = coil_sched::TvmFuseOps::default();
        use coil_sched::FusionStrategy;
        let l = lower(&zoo(name), &tvm.lower_config(&LowerConfig::cpu()));
        let s = schedule(
            &l,
            coil_sched::SchedConfig::cpu(),
            &coil_sched::CppLoops,
            &tvm,
        );
        eprintln!(
            "=== {name} tvm\n{}\n{:?}",
            s.fusion_log().join("\n"),
            kernel_names(&s)
        );
    }
}
