//! A fusion strategy defined here, outside coil-sched, handed to `coil::compile`: the facade
//! lowers with the strategy's own lowering config, schedules with it, and builds its kernels,
//! named with the backend's name; the results match PyTorch's and the stage verifiers pass.

use std::sync::Arc;

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_lower::LowerConfig;
use coil_sched::{FusionStrategy, InductorScorer, LoopCompat, SchedError, Schedule};
use coil_testkit::check_outputs;

/// Fuses neighbours in execution order, first fusable pair first, with the plan the loop rules
/// give (`Schedule::can_fuse`, then `Schedule::fuse_pair`), until no neighbours fuse; on a
/// lowering that realizes every op (so that there is something to fuse).
#[derive(Debug)]
struct Neighbours;

impl FusionStrategy for Neighbours {
    fn name(&self) -> &'static str {
        "neighbours"
    }

    fn lower_config(&self, base: &LowerConfig) -> LowerConfig {
        LowerConfig {
            inline_all: false,
            ..base.clone()
        }
    }

    fn fuse(&self, sched: &mut Schedule<'_>, loops: &dyn LoopCompat) -> Result<(), SchedError> {
        loop {
            let order = sched.order().to_vec();
            let pair = order.windows(2).find_map(|w| {
                let plan = sched.can_fuse(w[0], w[1], loops, &InductorScorer).ok()?;
                (!sched.will_fusion_create_cycle(w[0], w[1])).then_some((w[0], w[1], plan))
            });
            let Some((a, b, plan)) = pair else { break };
            let line = format!(
                "neighbours: fusing {} with {}",
                sched.name(a),
                sched.name(b)
            );
            sched.log_line(line);
            sched.fuse_pair(a, b, &plan)?;
        }
        Ok(())
    }
}

fn tiny(name: &str) -> coil_models::TinyCase {
    coil_models::find(name)
        .expect("zoo")
        .tiny_case()
        .expect("tiny")
}

#[test]
fn a_strategy_defined_in_the_test_compiles_and_runs_through_the_facade() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::new());
    let options = Options {
        strategy: Arc::new(Neighbours),
        verify: true,
        ..Options::default()
    };
    for name in ["layernorm", "softmax", "seed_model", "gelu_mlp"] {
        let case = tiny(name);
        let model = coil::compile(&case.graph, backend.clone(), &options).expect("compiles");
        let report = &model.report;
        assert_eq!(report.strategy, "neighbours");
        assert!(
            report
                .fusion_log
                .iter()
                .any(|l| l.starts_with("neighbours: fusing")),
            "{name}: {:?}",
            report.fusion_log
        );
        // Its lowering (every op realized) is the one compiled: more buffers than Inductor's.
        let inductor =
            coil::prepare(&case.graph, backend.as_ref(), &Options::default()).expect("prepares");
        assert!(
            report.lowered_buffers > inductor.report.lowered_buffers,
            "{name}: {} buffers, inductor's {}",
            report.lowered_buffers,
            inductor.report.lowered_buffers
        );
        // Its kernels are the ones built and run, named with the backend's name.
        assert_eq!(report.num_kernels, model.program().kernels.len());
        assert!(
            report.num_kernels < report.lowered_buffers,
            "{name}: nothing fused"
        );
        for k in report
            .kernels
            .iter()
            .filter(|k| k.kind.short_name() != "extern")
        {
            assert!(k.name.starts_with("interp_"), "{}", k.name);
        }
        let out = model.run(&case.inputs).expect("runs");
        check_outputs(&out, &case.outputs, 1e-5, 1e-4).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn unknown_strategy_names_list_the_known_ones() {
    let err = Options::with_strategy("greedy").unwrap_err().to_string();
    assert_eq!(
        err,
        "scheduling: unknown fusion strategy 'greedy' (inductor, inductor-regpressure, tvm, none)"
    );
}

#[test]
fn the_kernel_prefix_is_the_targets_name_and_a_new_target_claims_no_library() {
    // A backend whose target is named `c` and, as `Target::new` makes it, claims no library.
    struct Renamed(InterpBackend);
    impl Backend for Renamed {
        fn target(&self) -> coil_codegen::Target {
            coil_codegen::Target::new("c", self.0.device(), coil_codegen::Device::Cpu)
        }
    }
    impl coil_codegen::Compiler for Renamed {
        fn compile(
            &self,
            kernels: &[coil_codegen::Kernel],
        ) -> Result<Box<dyn coil_codegen::CompiledKernels>, coil_codegen::BackendError> {
            self.0.compile(kernels)
        }
    }
    impl coil_codegen::Runtime for Renamed {
        fn alloc(
            &self,
            bytes: usize,
        ) -> Result<coil_codegen::BufferHandle, coil_codegen::BackendError> {
            self.0.alloc(bytes)
        }
        fn free(&self, buffer: coil_codegen::BufferHandle) {
            self.0.free(buffer)
        }
        fn write(
            &self,
            buffer: coil_codegen::BufferHandle,
            bytes: &[u8],
        ) -> Result<(), coil_codegen::BackendError> {
            self.0.write(buffer, bytes)
        }
        fn read(
            &self,
            buffer: coil_codegen::BufferHandle,
            out: &mut [u8],
        ) -> Result<(), coil_codegen::BackendError> {
            self.0.read(buffer, out)
        }
        fn extern_call(
            &self,
            call: &coil_codegen::ExternCall,
        ) -> Result<(), coil_codegen::BackendError> {
            self.0.extern_call(call)
        }
        fn synchronize(&self) -> Result<(), coil_codegen::BackendError> {
            Ok(())
        }
    }
    let backend: Arc<dyn Backend> = Arc::new(Renamed(InterpBackend::new()));
    let model = coil::compile(
        &tiny("seed_model").graph,
        backend.clone(),
        &Options::default(),
    )
    .expect("compiles");
    assert_eq!(
        model.report.kernels[0].name,
        "c_per_fused_add_mean_mul_relu_sub_0"
    );
    // It says it runs no extern kinds: a model with a matmul is refused, naming the kind.
    let err = coil::compile(&tiny("mm_epilogue").graph, backend, &Options::default())
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        err.as_deref(),
        Some("unsupported: the c backend does not run extern_kernels.mm on f32")
    );
}
