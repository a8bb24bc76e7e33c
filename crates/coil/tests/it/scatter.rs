//! Scatters as kernels (`scatter`, `scatter_add`, `index_put`): a scatter writes into a copy
//! of `self` that later ops read, so nothing may be fused across it. Chains of scatters and
//! pointwise ops that read values before and after a scatter, under every strategy, on the
//! reference evaluator and the CPU, against coil-eager; random ones as a property test; and
//! an index out of range as a clear error.

use std::sync::Arc;

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_graph::{DType, Data, Tensor};
use coil_testkit::{check_outputs, random_tensor};
use proptest::prelude::*;

pub(crate) fn backends() -> Vec<Arc<dyn Backend>> {
    let mut b: Vec<Arc<dyn Backend>> = vec![Arc::new(InterpBackend::new())];
    if let Ok(cpu) = coil_cpu::CpuBackend::new() {
        b.push(Arc::new(cpu));
    }
    b
}

pub(crate) fn ints(values: Vec<i64>, sizes: Vec<usize>) -> Tensor {
    Tensor::new(Data::I64(values), sizes).expect("the values fill the sizes")
}

/// Compiles `text` under every strategy on every backend and compares with coil-eager.
pub(crate) fn matches_eager(text: &str, inputs: &[Tensor]) -> Result<(), String> {
    let g = coil_graph::parse(text).map_err(|e| e.to_string())?;
    let want = coil_eager::run(&g, inputs).map_err(|e| e.to_string())?;
    for backend in backends() {
        for strategy in coil::builtin_strategies() {
            let name = strategy.name();
            let options = Options {
                strategy,
                verify: true,
                ..Options::default()
            };
            let model = coil::compile(&g, backend.clone(), &options)
                .map_err(|e| format!("{name}: {e}\n{g}"))?;
            if !model.report.fallback_ops.is_empty() {
                return Err(format!(
                    "{name}: host fallbacks {:?}",
                    model.report.fallback_ops
                ));
            }
            let got = model.run(inputs).map_err(|e| format!("{name}: {e}"))?;
            check_outputs(&got, &want.outputs, 1e-5, 1e-5).map_err(|e| format!("{name}: {e}"))?;
        }
    }
    Ok(())
}

/// `a = clone(x); a.scatter_(...); a1 = a + 1; a1.scatter_(...)`, returning both (PyTorch's
/// `test_scatter5`, as functionalized): the copy of the first scatter's result into the second
/// target reads it after the scatter, so it must not fuse with the first target's copy.
#[test]
fn a_scatter_of_a_scattered_value_reads_it_after_the_first() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 5]", idx: "i64[3, 1]", src: "f32[4, 5]"):
        clone: "f32[4, 5]" = torch.ops.aten.clone.default(x)
        s0: "f32[4, 5]" = torch.ops.aten.scatter_add.default(clone, 0, idx, src)
        add: "f32[4, 5]" = torch.ops.aten.add.Tensor(s0, 1.0)
        s1: "f32[4, 5]" = torch.ops.aten.scatter_add.default(add, 0, idx, src)
        return (s0, s1)
"#;
    let inputs = [
        random_tensor(DType::F32, &[4, 5], 1),
        ints(vec![1, 2, 3], vec![3, 1]),
        random_tensor(DType::F32, &[4, 5], 2),
    ];
    matches_eager(text, &inputs).unwrap();
}

/// `index_put(a, [b], c)` and `index_put(a + 1, [b + 1], c + 1) + 1` (PyTorch's
/// `test_index_put1`): lazy values fused into the target's copy and the scatter, a reader of
/// the result after it, and `self` read again by the other `index_put`.
#[test]
fn index_puts_of_lazy_values_and_their_readers() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, a: "f32[8, 3]", b: "i64[4]", c: "f32[4, 3]"):
        p0: "f32[8, 3]" = torch.ops.aten.index_put.default(a, [b], c)
        a1: "f32[8, 3]" = torch.ops.aten.add.Tensor(a, 1)
        b1: "i64[4]" = torch.ops.aten.add.Tensor(b, 1)
        c1: "f32[4, 3]" = torch.ops.aten.add.Tensor(c, 1)
        p1: "f32[8, 3]" = torch.ops.aten.index_put.default(a1, [b1], c1)
        out: "f32[8, 3]" = torch.ops.aten.add.Tensor(p1, 1)
        both: "f32[8, 3]" = torch.ops.aten.mul.Tensor(out, a1)
        return (p0, out, both)
"#;
    let inputs = [
        random_tensor(DType::F32, &[8, 3], 3),
        ints(vec![6, 0, -3, 2], vec![4]),
        random_tensor(DType::F32, &[4, 3], 4),
    ];
    matches_eager(text, &inputs).unwrap();
}

/// `scatter_reduce(sum, include_self=False)`: the touched elements cleared by one scatter,
/// then added to by a second into the same target.
#[test]
fn scatter_reduce_sum_without_self_clears_then_adds() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[5, 3]", idx: "i64[4, 3]", src: "f32[4, 3]"):
        r: "f32[5, 3]" = torch.ops.aten.scatter_reduce.two(x, 0, idx, src, "sum", include_self = False)
        return (r,)
"#;
    let inputs = [
        random_tensor(DType::F32, &[5, 3], 5),
        ints(vec![0, 4, 4, 1, 1, 1, 4, 0, 2, 3, 3, 3], vec![4, 3]),
        random_tensor(DType::F32, &[4, 3], 6),
    ];
    matches_eager(text, &inputs).unwrap();
}

/// An index outside `self` is the run's error, naming the node, never a write out of bounds.
#[test]
fn a_scatter_index_out_of_range_is_an_error() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 2]", idx: "i64[3]", v: "f32[3, 2]"):
        p: "f32[4, 2]" = torch.ops.aten.index_put.default(x, [idx], v, True)
        return (p,)
"#;
    let g = coil_graph::parse(text).unwrap();
    let inputs = [
        random_tensor(DType::F32, &[4, 2], 7),
        ints(vec![0, 9, 1], vec![3]),
        random_tensor(DType::F32, &[3, 2], 8),
    ];
    for backend in backends() {
        let model = coil::compile(&g, backend, &Options::default()).unwrap();
        let e = model.run(&inputs).unwrap_err().to_string();
        assert!(
            e.contains("index 9 is out of bounds for dimension 0 with size 4") && e.contains("'p'"),
            "{e}"
        );
    }
}

/// A random chain: `y = x * 2`, a scatter or `scatter_add` of `y` along a random dim with
/// random in-range indices, then a reader of both `y` (before the scatter) and the result.
fn scatter_chain() -> impl Strategy<Value = (String, Vec<Tensor>)> {
    (1usize..5, 1usize..5, 0usize..2, any::<bool>(), any::<u64>()).prop_map(
        |(m, n, dim, add, seed)| {
            let sizes = [m, n];
            // index: [k, n] along dim 0, [m, k] along dim 1, values within sizes[dim].
            let k = 1 + (seed as usize % 4);
            let isz = if dim == 0 { vec![k, n] } else { vec![m, k] };
            let count: usize = isz.iter().product();
            let mut rng = coil_testkit::Rng::new(seed);
            let vals: Vec<i64> = (0..count)
                .map(|_| rng.int(0, sizes[dim] as i64 - 1))
                .collect();
            let op = if add {
                "scatter_add.default"
            } else {
                "scatter.src"
            };
            // A plain scatter with duplicate targets has no defined result: add only then.
            let op = if !add && has_duplicates(&vals, &isz, dim) {
                "scatter_add.default"
            } else {
                op
            };
            let text = format!(
                r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[{m}, {n}]", idx: "i64[{i0}, {i1}]", src: "f32[{i0}, {i1}]"):
        y: "f32[{m}, {n}]" = torch.ops.aten.mul.Tensor(x, 2)
        s: "f32[{m}, {n}]" = torch.ops.aten.{op}(y, {dim}, idx, src)
        z: "f32[{m}, {n}]" = torch.ops.aten.sub.Tensor(s, y)
        return (s, z)
"#,
                i0 = isz[0],
                i1 = isz[1],
            );
            let inputs = vec![
                random_tensor(DType::F32, &sizes, seed ^ 1),
                ints(vals, isz.clone()),
                random_tensor(DType::F32, &isz, seed ^ 2),
            ];
            (text, inputs)
        },
    )
}

/// Whether two points of the index name the same target element.
fn has_duplicates(vals: &[i64], isz: &[usize], dim: usize) -> bool {
    let mut seen = std::collections::HashSet::new();
    vals.iter().enumerate().any(|(p, &v)| {
        let (r, c) = (p / isz[1], p % isz[1]);
        let at = if dim == 0 {
            (v, c as i64)
        } else {
            (r as i64, v)
        };
        !seen.insert(at)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_scatter_chains_match_eager((text, inputs) in scatter_chain()) {
        matches_eager(&text, &inputs).map_err(TestCaseError::fail)?;
    }
}

/// `sort` and `topk` of empty rows, a 0-d tensor and `k = 0`: outputs of the right shapes
/// and no kernel touching memory.
#[test]
fn sorts_of_empty_and_0d_tensors() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, e: "f32[3, 0]", z: "f32[]", m: "f32[2, 5]"):
        sort = torch.ops.aten.sort.default(e)
        v0: "f32[3, 0]" = sort[0]
        i0: "i64[3, 0]" = sort[1];  sort = None
        sort_1 = torch.ops.aten.sort.default(z, 0, True)
        v1: "f32[]" = sort_1[0]
        i1: "i64[]" = sort_1[1];  sort_1 = None
        topk = torch.ops.aten.topk.default(m, 0)
        v2: "f32[2, 0]" = topk[0]
        i2: "i64[2, 0]" = topk[1];  topk = None
        topk_1 = torch.ops.aten.topk.default(m, 5, 1, False)
        v3: "f32[2, 5]" = topk_1[0]
        i3: "i64[2, 5]" = topk_1[1];  topk_1 = None
        return (v0, i0, v1, i1, v2, i2, v3, i3)
"#;
    let inputs = [
        random_tensor(DType::F32, &[3, 0], 9),
        random_tensor(DType::F32, &[], 10),
        random_tensor(DType::F32, &[2, 5], 11),
    ];
    matches_eager(text, &inputs).unwrap();
}

/// `Options::deterministic` (PyTorch's deterministic mode): a scatter that adds runs on the
/// host, in order, and gives the same bits on every run; by default it is a kernel.
#[test]
fn deterministic_mode_sends_adding_scatters_to_the_host() {
    let text = r#"class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[16, 4]", index: "i64[512, 4]", src: "f32[512, 4]"):
        scatter_add: "f32[16, 4]" = torch.ops.aten.scatter_add.default(x, 0, index, src)
        mul: "f32[16, 4]" = torch.ops.aten.mul.Tensor(scatter_add, 2.0)
        return (mul,)
"#;
    let g = coil_graph::parse(text).expect("parses");
    let x = random_tensor(DType::F32, &[16, 4], 1);
    let index = ints(
        (0..2048).map(|i| (i * 7 % 16) as i64).collect(),
        vec![512, 4],
    );
    let src = random_tensor(DType::F32, &[512, 4], 2);
    let inputs = [x, index, src];
    let want = coil_eager::run(&g, &inputs).expect("eager").outputs;
    for backend in backends() {
        for deterministic in [false, true] {
            let options = coil::Options {
                deterministic,
                ..coil::Options::default()
            };
            let model = coil::compile(&g, backend.clone(), &options).expect("compiles");
            let host = model.report.fallback_ops.clone();
            assert_eq!(
                deterministic,
                host.iter().any(|op| op.contains("scatter_add")),
                "{host:?}"
            );
            let first = model.run(&inputs).expect("runs");
            check_outputs(&first, &want, 1e-5, 1e-5).expect("matches eager");
            if deterministic {
                let again = model.run(&inputs).expect("runs");
                assert_eq!(first[0].to_bytes(), again[0].to_bytes());
            }
        }
    }
}
