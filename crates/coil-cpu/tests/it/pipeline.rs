//! Row pipelining (`CpuOptions::pipeline_rows`): softmax's division runs one row late, inside
//! the next row's `exp` loop. The results are bit-identical to the unpipelined kernel's for
//! every split of the rows over threads (ranges of one row, of several, odd counts), and the
//! pipeline is where it should be in the IR.

use coil_cpu::{CpuBackend, CpuOptions};
use coil_graph::DType;

use crate::driver::{all_in_one, lower, run};
use crate::shapes::random;

const SOFTMAX_AND_SCALE: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[37, 1003]", w: "f32[1003]"):
        _softmax: "f32[37, 1003]" = torch.ops.aten._softmax.default(x, -1, False)
        mul: "f32[37, 1003]" = torch.ops.aten.mul.Tensor(_softmax, w)
        return (mul,)
"#;

const LAYERNORM: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[9, 640]"):
        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [640], None, None, 1e-05)
        getitem: "f32[9, 640]" = native_layer_norm[0]
        return (getitem,)
"#;

fn backend_with(threads: usize, pipeline_rows: bool) -> CpuBackend {
    CpuBackend::with_options(CpuOptions {
        threads,
        codegen: coil_cpu::CodegenOptions {
            pipeline_rows,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("cpu backend")
}

#[test]
fn pipelined_softmax_rows_give_the_same_bits() {
    let g = coil_graph::parse(SOFTMAX_AND_SCALE).expect("parses");
    let inputs = [
        random(DType::F32, &[37, 1003], 7),
        random(DType::F32, &[1003], 8),
    ];
    let l = lower(&g);
    let groups = all_in_one(&l);
    for threads in [1, 2, 3, 5, 37] {
        let on = run(&backend_with(threads, true), &l, &groups, &inputs).expect("runs");
        let off = run(&backend_with(threads, false), &l, &groups, &inputs).expect("runs");
        assert!(on.source.contains("late:"), "not pipelined:\n{}", on.source);
        assert!(
            !off.source.contains("late:"),
            "pipelined with the option off"
        );
        assert_eq!(on.outputs.len(), off.outputs.len());
        for (a, b) in on.outputs.iter().zip(&off.outputs) {
            let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "{threads} threads: pipelined rows differ"
            );
        }
    }
}

/// layernorm's stage before its last (the variance) computes too little to hide stores
/// behind: no pipeline.
#[test]
fn cheap_host_stages_are_not_pipelined() {
    let g = coil_graph::parse(LAYERNORM).expect("parses");
    let inputs = [random(DType::F32, &[9, 640], 9)];
    let l = lower(&g);
    let r = run(&backend_with(2, true), &l, &all_in_one(&l), &inputs).expect("runs");
    assert!(!r.source.contains("late:"), "{}", r.source);
}
