//! Outputs written straight into an input's memory (`CompiledModel::output_may_alias_input`,
//! `run_host_raw`): allowed where each element of the input is read before it is overwritten
//! (a pointwise kernel reading the input where it writes the output, or every read done before
//! the output's memory is first written), refused otherwise; and where allowed, a run with
//! the output's address equal to the input's gives what a run into fresh memory gives, under
//! every strategy.

use std::sync::Arc;

use coil::Options;
use coil_codegen::Backend;
use coil_graph::Tensor;
use coil_testkit::{check_outputs, random_tensor};

fn cpu() -> Option<Arc<dyn Backend>> {
    coil_cpu::CpuBackend::new()
        .ok()
        .map(|b| Arc::new(b) as Arc<dyn Backend>)
}

/// SGD's momentum step on one parameter: the new buffer and the new parameter.
const SGD: &str = r#"class GraphModule(torch.nn.Module):
    def forward(self, param: "f32[64, 3, 7, 7]", buf: "f32[64, 3, 7, 7]", grad: "f32[64, 3, 7, 7]"):
        mul: "f32[64, 3, 7, 7]" = torch.ops.aten.mul.Tensor(buf, 0.9)
        add: "f32[64, 3, 7, 7]" = torch.ops.aten.add.Tensor(mul, grad)
        add_1: "f32[64, 3, 7, 7]" = torch.ops.aten.add.Tensor(param, add, alpha = -0.1)
        return (add, add_1)
"#;

/// The output is the input transposed: element (i, j) is written where (j, i) is still unread.
const TRANSPOSE: &str = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[32, 32]"):
        permute: "f32[32, 32]" = torch.ops.aten.permute.default(x, [1, 0])
        mul: "f32[32, 32]" = torch.ops.aten.mul.Tensor(permute, 2.0)
        clone: "f32[32, 32]" = torch.ops.aten.clone.default(mul, memory_format = torch.contiguous_format)
        return (clone,)
"#;

/// A row sum of the input is taken after the new value of the input is written (the sum
/// reads every element of a row, not only the one its lane writes).
const READ_AFTER: &str = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 256]"):
        mul: "f32[16, 256]" = torch.ops.aten.mul.Tensor(x, 0.5)
        sum_1: "f32[16, 1]" = torch.ops.aten.sum.dim_IntList(x, [1], True)
        add: "f32[16, 256]" = torch.ops.aten.add.Tensor(mul, sum_1)
        return (add, sum_1)
"#;

fn compile(text: &str, backend: Arc<dyn Backend>, options: &Options) -> coil::CompiledModel {
    let g = coil_graph::parse(text).expect("parses");
    coil::compile(&g, backend, options).expect("compiles")
}

/// Runs `model` with output `out` written into input `input`'s own memory (a copy of the
/// inputs, so `inputs` stay as they were); returns the outputs, that one read from the input.
fn run_aliased(
    model: &coil::CompiledModel,
    inputs: &[Tensor],
    out: usize,
    input: usize,
) -> Vec<Tensor> {
    let mut bytes: Vec<Vec<u8>> = inputs.iter().map(Tensor::to_bytes).collect();
    let specs = model.outputs();
    let mut outs: Vec<Vec<u8>> = specs
        .iter()
        .map(|(d, s)| vec![0u8; d.itemsize() * s.iter().product::<usize>()])
        .collect();
    let ins: Vec<(*const u8, usize)> = bytes.iter().map(|b| (b.as_ptr(), b.len())).collect();
    let mut out_ptrs: Vec<(*mut u8, usize)> =
        outs.iter_mut().map(|b| (b.as_mut_ptr(), b.len())).collect();
    out_ptrs[out] = (bytes[input].as_mut_ptr(), bytes[input].len());
    // SAFETY: every buffer lives to the end of the call; the one shared pair is what
    // `output_may_alias_input` allowed.
    unsafe { model.run_host_raw(&ins, &out_ptrs) }.expect("runs");
    outs[out] = std::mem::take(&mut bytes[input]);
    specs
        .iter()
        .zip(&outs)
        .map(|((d, s), b)| Tensor::from_bytes(*d, s.clone(), b).expect("sized"))
        .collect()
}

#[test]
fn a_pointwise_update_is_written_into_its_input_with_the_same_results() {
    let Some(backend) = cpu() else { return };
    let g = coil_graph::parse(SGD).expect("parses");
    let inputs: Vec<Tensor> = (0..3)
        .map(|i| {
            let meta = g.node(g.inputs()[i]).meta();
            random_tensor(meta.dtype, &meta.sizes, 7 + i as u64)
        })
        .collect();
    for strategy in coil::builtin_strategies() {
        let name = strategy.name();
        let options = Options {
            strategy,
            ..Options::default()
        };
        let model = compile(SGD, backend.clone(), &options);
        assert!(
            model.output_may_alias_input(0, 1),
            "{name}: buf's new value into buf"
        );
        assert!(
            model.output_may_alias_input(1, 0),
            "{name}: param's into param"
        );
        // Into grad too: the one kernel reads it where it writes.
        assert!(
            model.output_may_alias_input(0, 2),
            "{name}: buf's new value into grad"
        );
        let want = model.run(&inputs).expect("runs");
        for (out, input) in [(0, 1), (1, 0), (0, 2)] {
            let got = run_aliased(&model, &inputs, out, input);
            check_outputs(&got, &want, 0.0, 0.0).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

#[test]
fn outputs_that_would_overwrite_unread_elements_are_refused() {
    let Some(backend) = cpu() else { return };
    for text in [TRANSPOSE, READ_AFTER] {
        let model = compile(text, backend.clone(), &Options::default());
        assert!(!model.output_may_alias_input(0, 0), "{text}");
    }
    // Mismatched shapes or indices out of range: no.
    let model = compile(SGD, backend, &Options::default());
    assert!(!model.output_may_alias_input(5, 0));
    assert!(!model.output_may_alias_input(0, 9));
}

/// A graph that returns an input whole (as AOTAutograd's forward graphs return weights for
/// the backward) names it, and a run given the input's own address for that output copies
/// nothing; given other memory, it copies the input there.
#[test]
fn an_input_returned_whole_is_named_and_not_copied() {
    let Some(backend) = cpu() else { return };
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 16]", w: "f32[16, 4]"):
        mm: "f32[8, 4]" = torch.ops.aten.mm.default(x, w)
        relu: "f32[8, 4]" = torch.ops.aten.relu.default(mm)
        return (relu, w, x)
"#;
    let model = compile(text, backend, &Options::default());
    assert_eq!(model.output_input(0), None);
    assert_eq!(model.output_input(1), Some(1));
    assert_eq!(model.output_input(2), Some(0));
    let inputs = [
        random_tensor(coil_graph::DType::F32, &[8, 16], 1),
        random_tensor(coil_graph::DType::F32, &[16, 4], 2),
    ];
    let want = model.run(&inputs).expect("runs");
    // Output 1 at w's own address, output 2 into fresh memory.
    let got = run_aliased(&model, &inputs, 1, 1);
    check_outputs(&got, &want, 0.0, 0.0).expect("same values");
}

/// An input the graph returns as it was (its old value, as AOTAutograd's forward saves a
/// mutated input for the backward) is never also written in place.
#[test]
fn an_input_also_returned_as_it_was_is_not_written_in_place() {
    let Some(backend) = cpu() else { return };
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64]"):
        mul: "f32[64]" = torch.ops.aten.mul.Tensor(x, 2.0)
        return (mul, x)
"#;
    let model = compile(text, backend, &Options::default());
    assert_eq!(model.output_input(1), Some(0));
    assert!(!model.output_may_alias_input(0, 0));
}

/// A static KV cache's update, as functionalization leaves it: the cache with the new key
/// written at the current position (`index_put` on the sequence dim), and attention-like
/// readers of the new cache.
const KV_UPDATE: &str = r#"class GraphModule(torch.nn.Module):
    def forward(self, cache: "f32[1, 2, 40, 16]", pos: "i64[1]", k: "f32[1, 2, 1, 16]", q: "f32[1, 2, 1, 16]"):
        index_put: "f32[1, 2, 40, 16]" = torch.ops.aten.index_put.default(cache, [None, None, pos], k)
        permute: "f32[1, 2, 16, 40]" = torch.ops.aten.permute.default(index_put, [0, 1, 3, 2])
        expand: "f32[1, 2, 1, 16]" = torch.ops.aten.expand.default(q, [1, 2, 1, 16])
        view: "f32[2, 1, 16]" = torch.ops.aten.view.default(expand, [2, 1, 16])
        expand_1: "f32[1, 2, 16, 40]" = torch.ops.aten.expand.default(permute, [1, 2, 16, 40])
        clone: "f32[1, 2, 16, 40]" = torch.ops.aten.clone.default(expand_1, memory_format = torch.contiguous_format)
        view_1: "f32[2, 16, 40]" = torch.ops.aten.view.default(clone, [2, 16, 40])
        bmm: "f32[2, 1, 40]" = torch.ops.aten.bmm.default(view, view_1)
        return (index_put, bmm)
"#;

/// The cache's new value written into the cache itself: the copy of the cache that the
/// scatter starts with is left out (a decode step costs the elements it writes, not a pass
/// over the cache), and the results are those of a run into fresh memory.
#[test]
fn a_cache_update_in_place_leaves_out_the_copy_of_the_cache() {
    let Some(backend) = cpu() else { return };
    let g = coil_graph::parse(KV_UPDATE).expect("parses");
    let mut inputs: Vec<Tensor> = (0..4)
        .map(|i| {
            let meta = g.node(g.inputs()[i]).meta();
            random_tensor(meta.dtype, &meta.sizes, 21 + i as u64)
        })
        .collect();
    inputs[1] = Tensor::new(coil_graph::Data::I64(vec![17]), vec![1]).expect("sized");
    for strategy in coil::builtin_strategies() {
        let name = strategy.name();
        let options = Options {
            strategy,
            ..Options::default()
        };
        let model = compile(KV_UPDATE, backend.clone(), &options);
        assert!(model.output_may_alias_input(0, 0), "{name}");
        assert!(model.skips_copy_into(0, 0), "{name}");
        assert!(
            !model.skips_copy_into(1, 0),
            "{name}: not the attention's output"
        );
        let want = model.run(&inputs).expect("runs");
        let got = run_aliased(&model, &inputs, 0, 0);
        check_outputs(&got, &want, 0.0, 0.0).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// On a GPU, whose kernels read inputs through the non-coherent cache, an output may be its
/// input's memory where the host's rule allows: the cache update, and SGD's step (each kernel
/// reads the parameter in the lane that writes the new one, before it); not an output into
/// an input it is not computed from element for element.
#[test]
fn on_a_device_the_hosts_rule_decides_which_updates_alias_their_inputs() {
    let Some(backend) = cpu() else { return };
    let cache = compile(KV_UPDATE, backend.clone(), &Options::default());
    assert!(cache.output_may_alias_input_on_device(0, 0));
    let sgd = compile(SGD, backend, &Options::default());
    for (output, input) in [(1, 0), (0, 1), (0, 0), (1, 1)] {
        assert_eq!(
            sgd.output_may_alias_input_on_device(output, input),
            sgd.output_may_alias_input(output, input),
            "output {output}, input {input}"
        );
    }
    assert!(sgd.output_may_alias_input_on_device(1, 0));
}
