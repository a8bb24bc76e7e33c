//! The zoo: buffer counts of the fusion-boundary models (DESIGN 4.3's table, lowering half),
//! and the IR interpreter against PyTorch's outputs on every tiny model.

use coil_lower::{BufferKind, ExternKind, LowerConfig, LowerError, MatmulOp, ReductionType};
use coil_models::Size;

use crate::common::{assert_close, lower, lower_with};

fn article(name: &str) -> coil_graph::Graph {
    coil_models::find(name)
        .unwrap()
        .graph(Size::Article)
        .unwrap()
}

/// `(kind, reduction)` of each buffer: `P` pointwise, `R(sum)` reduction, `E(mm)` extern.
fn shape(name: &str) -> Vec<String> {
    let l = lower(&article(name));
    l.buffers()
        .iter()
        .map(|b| match &b.kind {
            BufferKind::Computed(c) => match c.reduction_type {
                Some(rt) => format!("R({rt})"),
                None => "P".to_string(),
            },
            BufferKind::Extern(e) => match &e.kind {
                ExternKind::Matmul(op) => format!("E({op:?})"),
                other => format!("E({})", other.kernel_name()),
            },
        })
        .collect()
}

#[test]
fn chain_is_one_pointwise_buffer_holding_all_four_ops() {
    assert_eq!(shape("chain"), ["P"]);
    let l = lower(&article("chain"));
    let origins: Vec<&str> = l.buffers()[0]
        .origins
        .iter()
        .map(|o| o.node.as_str())
        .collect();
    assert_eq!(origins, ["sin", "mul", "relu", "add"]);
    let dump = l.ir_pre_fusion();
    for op in ["ops.add(", "ops.relu(", "ops.mul(", "ops.sin("] {
        assert!(dump.contains(op), "{op} missing:\n{dump}");
    }
}

#[test]
fn rowsum_is_one_reduction() {
    assert_eq!(shape("rowsum"), ["R(sum)"]);
    let l = lower(&article("rowsum"));
    assert_eq!(l.buffers()[0].group(), (1024, 1024));
}

#[test]
fn siblings_are_two_reductions() {
    assert_eq!(shape("siblings"), ["R(max)", "R(sum)"]);
}

#[test]
fn wall_is_a_global_sum_and_a_pointwise_consumer() {
    assert_eq!(shape("wall"), ["R(sum)", "P"]);
    let l = lower(&article("wall"));
    let b = &l.buffers()[0];
    assert!(b.layout.sizes.iter().all(|&s| s == 1));
    assert_eq!(b.group(), (1, 1 << 20));
    assert_eq!(l.buffers()[1].group(), (1 << 20, 1));
}

#[test]
fn mm_epilogue_is_kernel_extern_kernel() {
    assert_eq!(shape("mm_epilogue"), ["P", "E(Mm)", "P"]);
    let l = lower(&article("mm_epilogue"));
    let BufferKind::Extern(e) = &l.buffers()[1].kind else {
        panic!("buf1 is the mm")
    };
    assert_eq!(e.kind, ExternKind::Matmul(MatmulOp::Mm));
    assert_eq!(l.name(e.inputs[0].buffer), "buf0");
    assert_eq!(l.name(e.inputs[1].buffer), "w");
}

#[test]
fn siblings_reduce_with_max_then_sum() {
    let l = lower(&article("siblings"));
    let types: Vec<Option<ReductionType>> = l
        .buffers()
        .iter()
        .map(|b| b.computed().unwrap().reduction_type)
        .collect();
    assert_eq!(types, [Some(ReductionType::Max), Some(ReductionType::Sum)]);
}

/// Models whose graphs hold composite ops that only coil-passes decomposes.
const NEEDS_DECOMPOSITION: &[&str] = &["softmax", "layernorm", "attention", "transformer_block"];

/// The graph after coil-passes (decompositions, simplifications).
pub(crate) fn decomposed(g: &coil_graph::Graph) -> coil_graph::Graph {
    coil_passes::run_passes(g, &coil_passes::PassConfig::default())
        .unwrap()
        .0
}

#[test]
fn interpreter_matches_pytorch_and_eager_on_the_tiny_zoo() {
    let configs = [
        ("gpu", LowerConfig::gpu()),
        ("cpu", LowerConfig::cpu()),
        (
            "no-inline",
            LowerConfig {
                inline_all: false,
                ..LowerConfig::gpu()
            },
        ),
    ];
    for m in coil_models::MODELS {
        let case = m.tiny_case().unwrap();
        let mut graphs = vec![("passes", decomposed(&case.graph))];
        if !NEEDS_DECOMPOSITION.contains(&m.name) {
            graphs.push(("raw", case.graph.clone()));
        }
        for (gname, g) in &graphs {
            let eager = crate::common::reference(g, &case.inputs);
            for (cname, config) in &configs {
                let what = format!("{} ({gname}, {cname})", m.name);
                let l = coil_lower::lower(g, config).unwrap_or_else(|e| panic!("{what}: {e}"));
                let got = l.evaluate(&case.inputs).unwrap();
                assert_eq!(got.len(), case.outputs.len());
                for (i, ((g, w), e)) in got.iter().zip(&case.outputs).zip(&eager).enumerate() {
                    assert_close(&format!("{what} output {i} vs PyTorch"), g, w, 1e-4, 1e-4);
                    assert_close(&format!("{what} output {i} vs eager"), g, e, 1e-5, 1e-5);
                }
            }
        }
    }
}

#[test]
fn composite_models_need_the_passes() {
    for name in NEEDS_DECOMPOSITION {
        let e = coil_lower::lower(&article(name), &LowerConfig::gpu()).unwrap_err();
        assert!(
            matches!(e, LowerError::NeedsDecomposition { .. }),
            "{name}: {e}"
        );
    }
}

#[test]
fn softmax_after_the_passes_is_three_buffers_on_gpu_and_four_on_cpu() {
    let g = decomposed(&article("softmax"));
    assert_eq!(lower(&g).buffers().len(), 3);
    assert_eq!(lower_with(&g, &LowerConfig::cpu()).buffers().len(), 4);
}

#[test]
fn article_sizes_lower_for_every_model_after_the_passes() {
    for m in coil_models::MODELS {
        let g = decomposed(&m.graph(Size::Article).unwrap());
        for config in [LowerConfig::gpu(), LowerConfig::cpu()] {
            let l = lower_with(&g, &config);
            assert!(!l.buffers().is_empty(), "{}", m.name);
        }
    }
}
