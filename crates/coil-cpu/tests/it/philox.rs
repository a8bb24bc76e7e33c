//! coil's random ops (`coil.philox_rand`, `_randn`, `_randint`) compiled for the CPU, fused
//! into their consumers or not: the same numbers as coil-eager's reference (`coil_kernel::
//! philox`), different numbers for another seed or another op number, and the distributions
//! they claim (mean, variance, a chi-square test of uniformity).

use coil_graph::{Data, Tensor};

use crate::driver::{all_in_one, backend, eager, lower, per_buffer, run};

const GRAPH: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, seed: "i64[]", x: "f32[64, 33]"):
        u: "f32[64, 33]" = torch.ops.coil.philox_rand.default(seed, 0, [64, 33], dtype = torch.float32)
        u2: "f32[64, 33]" = torch.ops.coil.philox_rand.default(seed, 1, [64, 33], dtype = torch.float32)
        h: "bf16[64, 33]" = torch.ops.coil.philox_rand.default(seed, 2, [64, 33], dtype = torch.bfloat16)
        d: "f64[64, 33]" = torch.ops.coil.philox_rand.default(seed, 3, [64, 33], dtype = torch.float64)
        n: "f32[64, 33]" = torch.ops.coil.philox_randn.default(seed, 4, [64, 33], dtype = torch.float32)
        nd: "f64[64, 33]" = torch.ops.coil.philox_randn.default(seed, 5, [64, 33], dtype = torch.float64)
        r: "i64[64, 33]" = torch.ops.coil.philox_randint.default(seed, 6, [64, 33], -3, 17, dtype = torch.int64)
        big: "i64[64, 33]" = torch.ops.coil.philox_randint.default(seed, 7, [64, 33], 0, 9007199254740993, dtype = torch.int64)
        lt: "b8[64, 33]" = torch.ops.aten.lt.Scalar(u, 0.5)
        drop: "f32[64, 33]" = torch.ops.aten.where.ScalarOther(lt, x, 0.0)
        kept: "f32[64]" = torch.ops.aten.sum.dim_IntList(drop, [1])
        return (u, u2, h, d, n, nd, r, big, drop, kept)
"#;

fn inputs(seed: i64) -> Vec<Tensor> {
    let x: Vec<f32> = (0..64 * 33).map(|i| (i % 7) as f32 - 3.0).collect();
    vec![
        Tensor::new(Data::I64(vec![seed]), vec![]).unwrap(),
        Tensor::from_f32(x, vec![64, 33]).unwrap(),
    ]
}

fn values(t: &Tensor) -> Vec<f64> {
    t.contiguous().to_f64_vec()
}

#[test]
fn random_ops_give_the_reference_numbers_fused_or_not() {
    let g = coil_graph::parse(GRAPH).expect("parse");
    let l = lower(&g);
    for seed in [0, 42, -7, i64::MAX] {
        let ins = inputs(seed);
        let want = eager(&g, &ins);
        for fusion in [per_buffer(&l), all_in_one(&l)] {
            let got = run(backend(), &l, &fusion, &ins).expect("run").outputs;
            for (i, (w, o)) in want.iter().zip(&got).enumerate() {
                let (w, o) = (values(w), values(o));
                if i == 4 || i == 5 {
                    // Normal values through the backend's own log and cos.
                    for (a, b) in w.iter().zip(&o) {
                        assert!(
                            (a - b).abs() <= 2e-5 * (1.0 + a.abs()),
                            "output {i}: {a} {b}"
                        );
                    }
                } else {
                    assert_eq!(w, o, "output {i}, seed {seed}, {fusion:?}");
                }
            }
        }
    }
}

#[test]
fn random_ops_differ_by_seed_and_op_number() {
    let g = coil_graph::parse(GRAPH).expect("parse");
    let l = lower(&g);
    let a = run(backend(), &l, &all_in_one(&l), &inputs(1))
        .unwrap()
        .outputs;
    let b = run(backend(), &l, &all_in_one(&l), &inputs(2))
        .unwrap()
        .outputs;
    let again = run(backend(), &l, &per_buffer(&l), &inputs(1))
        .unwrap()
        .outputs;
    assert_eq!(values(&a[0]), values(&again[0]), "one seed, one stream");
    let same = |x: &[f64], y: &[f64]| x.iter().zip(y).filter(|(p, q)| p == q).count();
    assert!(
        same(&values(&a[0]), &values(&b[0])) < 10,
        "seeds 1 and 2 agree too often"
    );
    assert!(
        same(&values(&a[0]), &values(&a[1])) < 10,
        "ops 0 and 1 agree too often"
    );
}

#[test]
fn random_ops_have_their_distributions() {
    let g = coil_graph::parse(GRAPH).expect("parse");
    let l = lower(&g);
    let out = run(backend(), &l, &all_in_one(&l), &inputs(1234))
        .unwrap()
        .outputs;
    let n = (64 * 33) as f64;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let var = |v: &[f64]| {
        let m = mean(v);
        v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / v.len() as f64
    };
    // Uniform [0, 1): mean 1/2 and variance 1/12, each within 5 standard errors, and 16
    // equal bins pass a chi-square test (15 degrees of freedom; 37.7 is its 0.1% point).
    for i in [0usize, 1, 2, 3] {
        let v = values(&out[i]);
        assert!(
            v.iter().all(|&x| (0.0..1.0).contains(&x)),
            "output {i} leaves [0, 1)"
        );
        assert!(
            (mean(&v) - 0.5).abs() < 5.0 * (1.0f64 / 12.0 / n).sqrt(),
            "output {i} mean"
        );
        assert!((var(&v) - 1.0 / 12.0).abs() < 0.01, "output {i} variance");
        let mut bins = [0f64; 16];
        for x in &v {
            bins[(x * 16.0) as usize] += 1.0;
        }
        let e = n / 16.0;
        let chi2: f64 = bins.iter().map(|b| (b - e) * (b - e) / e).sum();
        assert!(chi2 < 37.7, "output {i}: chi-square {chi2}");
    }
    for i in [4usize, 5] {
        let v = values(&out[i]);
        assert!(
            mean(&v).abs() < 5.0 / n.sqrt(),
            "output {i} mean {}",
            mean(&v)
        );
        assert!(
            (var(&v) - 1.0).abs() < 0.1,
            "output {i} variance {}",
            var(&v)
        );
        let within_one = v.iter().filter(|x| x.abs() < 1.0).count() as f64 / n;
        assert!(
            (within_one - 0.6827).abs() < 0.03,
            "output {i}: {within_one} within 1"
        );
    }
    let r = values(&out[6]);
    assert!(
        r.iter()
            .all(|&x| (-3.0..17.0).contains(&x) && x.fract() == 0.0)
    );
    let mut seen = [0usize; 20];
    for x in &r {
        seen[(x + 3.0) as usize] += 1;
    }
    assert!(seen.iter().all(|&c| c > 60), "randint bins {seen:?}");
    let big = values(&out[7]);
    assert!(
        big.iter().any(|&x| x > 4.5e15),
        "the wide range uses its high bits"
    );
    // Dropout's mask keeps about half.
    let kept = values(&out[8])
        .iter()
        .zip(values(&out[0]))
        .filter(|(_, u)| *u < 0.5)
        .count();
    assert!((kept as f64 / n - 0.5).abs() < 0.05);
}

#[test]
fn random_op_errors_are_clear() {
    let bad = GRAPH.replace("[64, 33], -3, 17", "[64, 33], 17, -3");
    let e = coil_graph::parse(&bad).unwrap_err().to_string();
    assert!(e.contains("'from' to be less than 'to'"), "{e}");
    let bad = GRAPH.replace("seed: \"i64[]\"", "seed: \"f32[]\"");
    let e = coil_graph::parse(&bad).unwrap_err().to_string();
    assert!(e.contains("seed must be one int64 element"), "{e}");
    let bad = GRAPH.replace(
        "dtype = torch.float32)\n        u2",
        "dtype = torch.int32)\n        u2",
    );
    assert!(coil_graph::parse(&bad).is_err());
}
