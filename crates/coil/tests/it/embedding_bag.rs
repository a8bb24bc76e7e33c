//! `_embedding_bag` as kernels (sum and mean): random bags (empty ones, one bag, none, bags
//! ending before the last index with `include_last_offset`), per-sample weights and
//! `padding_idx`, on the reference evaluator and the CPU under every strategy, against
//! coil-eager, with no host fallback; an index out of range as a clear error; `max` and reads
//! of the auxiliary outputs on the host, still right.

use coil::Options;
use coil_graph::{DType, Tensor};
use coil_testkit::random_tensor;
use proptest::prelude::*;

use crate::scatter::{backends, ints, matches_eager};

/// What one random embedding bag takes.
#[derive(Clone, Debug)]
struct BagCase {
    rows: usize,
    dim: usize,
    ids: Vec<i64>,
    offsets: Vec<i64>,
    mean: bool,
    last: bool,
    weighted: bool,
    padding: i64,
    seed: u64,
}

impl BagCase {
    fn bags(&self) -> usize {
        self.offsets.len() - usize::from(self.last)
    }

    fn text(&self) -> String {
        let (r, d, n, m, b) = (
            self.rows,
            self.dim,
            self.ids.len(),
            self.offsets.len(),
            self.bags(),
        );
        let (psw_arg, psw) = if self.weighted {
            (format!(", psw: \"f32[{n}]\""), "psw")
        } else {
            (String::new(), "None")
        };
        format!(
            r#"
class GraphModule(torch.nn.Module):
    def forward(self, w: "f32[{r}, {d}]", ids: "i64[{n}]", offsets: "i64[{m}]"{psw_arg}):
        bag = torch.ops.aten._embedding_bag.default(w, ids, offsets, False, {mode}, False, {psw}, {last}, {pad})
        out: "f32[{b}, {d}]" = bag[0]
        y: "f32[{b}, {d}]" = torch.ops.aten.mul.Tensor(out, 2)
        return (y,)
"#,
            mode = u8::from(self.mean),
            last = if self.last { "True" } else { "False" },
            pad = self.padding,
        )
    }

    fn inputs(&self) -> Vec<Tensor> {
        let mut v = vec![
            random_tensor(DType::F32, &[self.rows, self.dim], self.seed),
            ints(self.ids.clone(), vec![self.ids.len()]),
            ints(self.offsets.clone(), vec![self.offsets.len()]),
        ];
        if self.weighted {
            v.push(random_tensor(DType::F32, &[self.ids.len()], self.seed ^ 7));
        }
        v
    }
}

fn bag_case() -> impl Strategy<Value = BagCase> {
    (
        1usize..7,
        1usize..6,
        0usize..13,
        0usize..6,
        any::<(bool, bool, bool, bool)>(),
        any::<u64>(),
    )
        .prop_map(
            |(rows, dim, n, bags, (mean, last, weighted, padded), seed)| {
                let mut rng = coil_testkit::Rng::new(seed);
                let ids = (0..n).map(|_| rng.int(0, rows as i64 - 1)).collect();
                // Sorted starts from 0 (PyTorch requires offsets[0] == 0); with
                // include_last_offset one more offset, the end (possibly before the last index).
                let count = bags + usize::from(last);
                let mut offsets: Vec<i64> = (0..count).map(|_| rng.int(0, n as i64)).collect();
                offsets.sort_unstable();
                if let Some(first) = offsets.first_mut() {
                    *first = 0;
                }
                let last = last && count > 0;
                BagCase {
                    rows,
                    dim,
                    ids,
                    offsets,
                    mean,
                    last,
                    weighted: weighted && !mean,
                    padding: if padded {
                        rng.int(0, rows as i64 - 1)
                    } else {
                        -1
                    },
                    seed,
                }
            },
        )
        .prop_filter("a bag needs an offset", |c| !c.offsets.is_empty())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_embedding_bags_match_eager(case in bag_case()) {
        matches_eager(&case.text(), &case.inputs()).map_err(TestCaseError::fail)?;
    }
}

/// The cases the random ones may miss, each named: bags of every length with an empty one in
/// the middle and at the end, mean over a bag of padding only, `include_last_offset` ending
/// early.
#[test]
fn bags_with_empty_ones_padding_and_early_ends_match_eager() {
    let ids = vec![1, 3, 3, 0, 2, 3, 1, 1];
    for (offsets, mean, last, padding) in [
        (vec![0, 2, 2, 5, 8], false, false, -1),
        (vec![0, 2, 2, 5, 8], true, false, 3),
        (vec![0, 1, 3], true, false, 1),
        (vec![0, 3, 6], false, true, -1),
        (vec![0, 3, 6], true, true, 0),
        (vec![0], true, false, -1),
    ] {
        let case = BagCase {
            rows: 4,
            dim: 5,
            ids: ids.clone(),
            offsets: offsets.clone(),
            mean,
            last,
            weighted: !mean,
            padding,
            seed: 11,
        };
        matches_eager(&case.text(), &case.inputs())
            .unwrap_or_else(|e| panic!("offsets {offsets:?} mean {mean} last {last}: {e}"));
    }
}

/// An index outside the table is the run's error, naming the node, never a read out of
/// bounds.
#[test]
fn an_embedding_bag_index_out_of_range_is_an_error() {
    let case = BagCase {
        rows: 4,
        dim: 2,
        ids: vec![0, 7, 1],
        offsets: vec![0, 1],
        mean: false,
        last: false,
        weighted: false,
        padding: -1,
        seed: 3,
    };
    let g = coil_graph::parse(&case.text()).unwrap();
    for backend in backends() {
        let model = coil::compile(&g, backend, &Options::default()).unwrap();
        assert!(model.report.fallback_ops.is_empty());
        let e = model.run(&case.inputs()).unwrap_err().to_string();
        assert!(
            e.contains("index 7 is out of bounds for dimension 0 with size 4") && e.contains("bag"),
            "{e}"
        );
    }
}

/// `max`, and a read of `offset2bag`, stay host calls (and still match eager).
#[test]
fn max_bags_and_auxiliary_outputs_run_on_the_host() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, w: "f32[5, 3]", ids: "i64[6]", offsets: "i64[3]"):
        bag = torch.ops.aten._embedding_bag.default(w, ids, offsets, False, 2)
        out: "f32[3, 3]" = bag[0]
        bag2 = torch.ops.aten._embedding_bag.default(w, ids, offsets, False, 1)
        mean: "f32[3, 3]" = bag2[0]
        sizes: "i64[3]" = bag2[2]
        return (out, mean, sizes)
"#;
    let g = coil_graph::parse(text).unwrap();
    let inputs = [
        random_tensor(DType::F32, &[5, 3], 5),
        ints(vec![4, 0, 2, 2, 1, 3], vec![6]),
        ints(vec![0, 2, 2], vec![3]),
    ];
    let want = coil_eager::run(&g, &inputs).unwrap();
    for backend in backends() {
        let model = coil::compile(&g, backend, &Options::default()).unwrap();
        let host = &model.report.fallback_ops;
        assert!(
            !host.is_empty() && host.iter().all(|op| op == "aten._embedding_bag.default"),
            "{host:?}"
        );
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want.outputs, 1e-6, 1e-6).unwrap();
    }
}
