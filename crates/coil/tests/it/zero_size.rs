//! Zero-size and 0-d tensors through the whole pipeline (issue 16's first finds): each graph
//! runs on coil-eager (before and after the passes), the reference evaluator's backend and the
//! CPU backend under every strategy, with PyTorch's results (zero-size outputs, NaN for the
//! mean of nothing) and no panic.

use std::sync::Arc;

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_graph::{Data, Tensor};
use coil_testkit::check_outputs;

/// `text`'s graph on `inputs`: eager's outputs, then the same from both compiled backends.
fn check(text: &str, inputs: &[Tensor], want: &[(Vec<usize>, Vec<f64>)]) {
    let g = coil_graph::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let eager = coil_eager::run(&g, inputs)
        .unwrap_or_else(|e| panic!("eager: {e}\n{text}"))
        .outputs;
    for (o, (sizes, values)) in eager.iter().zip(want) {
        assert_eq!(o.sizes(), sizes.as_slice(), "{text}");
        let got = o.to_f64_vec();
        assert_eq!(got.len(), values.len(), "{text}");
        for (a, b) in got.iter().zip(values) {
            assert!(a == b || (a.is_nan() && b.is_nan()), "{a} vs {b}\n{text}");
        }
    }
    // The passes keep it computable: eager on the transformed graph agrees (a softmax over a
    // zero-size dim must not become an `amax` over nothing).
    let (transformed, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default())
        .unwrap_or_else(|e| panic!("passes: {e}\n{text}"));
    let after = coil_eager::run(&transformed, inputs)
        .unwrap_or_else(|e| panic!("eager on the transformed graph: {e}\n{transformed}"))
        .outputs;
    check_outputs(&after, &eager, 0.0, 0.0).unwrap_or_else(|e| panic!("passes: {e}\n{text}"));
    let backends: [Arc<dyn Backend>; 2] = [
        Arc::new(InterpBackend::new()),
        Arc::new(coil_cpu::CpuBackend::new().expect("host CPU")),
    ];
    for backend in backends {
        let name = backend.name();
        for strategy in coil::builtin_strategies() {
            let options = Options {
                strategy,
                verify: true,
                ..Options::default()
            };
            let model = coil::compile(&g, backend.clone(), &options)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            let got = model
                .run(inputs)
                .unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            check_outputs(&got, &eager, 0.0, 0.0).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
        }
    }
}

fn empty(sizes: Vec<usize>) -> Tensor {
    Tensor::new(Data::F32(vec![]), sizes).expect("tensor")
}

#[test]
fn argmin_of_a_0d_tensor_is_0() {
    let x = Tensor::new(Data::F32(vec![3.5]), vec![]).expect("tensor");
    for call in [
        "argmin.default(x)",
        "argmin.default(x, 0)",
        "argmax.default(x, -1, True)",
    ] {
        let text = format!(
            "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[]\"):\n        a: \"i64[]\" = torch.ops.aten.{call};  x = None\n        return (a,)\n"
        );
        check(&text, std::slice::from_ref(&x), &[(vec![], vec![0.0])]);
    }
}

#[test]
fn cat_of_zero_size_pieces_is_zero_size() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[0, 4]", y: "f32[0, 4]"):
        cat: "f32[0, 4]" = torch.ops.aten.cat.default([x, y]);  x = y = None
        return (cat,)
"#;
    check(
        text,
        &[empty(vec![0, 4]), empty(vec![0, 4])],
        &[(vec![0, 4], vec![])],
    );
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[3, 0]", y: "f32[3, 0]"):
        cat: "f32[3, 0]" = torch.ops.aten.cat.default([x, y], 1);  x = y = None
        return (cat,)
"#;
    check(
        text,
        &[empty(vec![3, 0]), empty(vec![3, 0])],
        &[(vec![3, 0], vec![])],
    );
}

#[test]
fn softmax_over_a_dimension_of_size_0_is_zero_size() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 0]"):
        _softmax: "f32[4, 0]" = torch.ops.aten._softmax.default(x, 1, False);  x = None
        return (_softmax,)
"#;
    check(text, &[empty(vec![4, 0])], &[(vec![4, 0], vec![])]);
}

#[test]
fn the_mean_of_an_empty_log_softmax_is_nan() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 0]"):
        _log_softmax: "f32[4, 0]" = torch.ops.aten._log_softmax.default(x, 1, False);  x = None
        mean: "f32[]" = torch.ops.aten.mean.default(_log_softmax);  _log_softmax = None
        return (mean,)
"#;
    check(text, &[empty(vec![4, 0])], &[(vec![], vec![f64::NAN])]);
}

#[test]
fn a_slice_of_an_empty_tensor_starting_past_its_storage_is_empty() {
    // Found by the edge-shape property test: the slice starts at element 1 of no storage.
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, in0: "i64[0, 2]"):
        sqrt: "f32[0, 2]" = torch.ops.aten.sqrt.default(in0)
        slice: "i64[0, 1]" = torch.ops.aten.slice.Tensor(in0, 1, 1, 2, 1);  in0 = None
        cat: "i64[0, 1]" = torch.ops.aten.cat.default([slice, slice], 0);  slice = None
        return (cat, sqrt)
"#;
    let x = Tensor::new(Data::I64(vec![]), vec![0, 2]).expect("tensor");
    check(text, &[x], &[(vec![0, 1], vec![]), (vec![0, 2], vec![])]);
}
