//! Shapes and dtypes the zoo does not cover: odd sizes (vector tails), size-1 and zero-size
//! dims, long rows split into blocks, strided (permuted) loads, i64/i32/bool/f16/f64 values,
//! NaN and ties in max/argmax, pow's special exponents, and strided matmul operands; each run
//! one kernel per buffer (and fused where the graph is one kernel) against coil-eager.

use coil_graph::{DType, Data, Tensor};
use coil_testkit::check_close;

use crate::driver::{all_in_one, backend, eager, lower, per_buffer, run};

/// Deterministic pseudo-random values: floats in [-2, 2), integers in [-5, 5], bools.
pub(crate) fn random(dtype: DType, sizes: &[usize], seed: u64) -> Tensor {
    coil_testkit::random_tensor(dtype, sizes, seed)
}

/// Parses `text`, runs it per buffer (and fused when `fused`), and compares with eager.
fn check(text: &str, inputs: &[Tensor], atol: f64, rtol: f64, fused: bool) {
    let g = coil_graph::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let want = eager(&g, inputs);
    let l = lower(&g);
    let mut modes = vec![("per buffer", per_buffer(&l))];
    if fused {
        modes.push(("fused", all_in_one(&l)));
    }
    for (mode, groups) in modes {
        let got = run(backend(), &l, &groups, inputs)
            .unwrap_or_else(|e| panic!("{mode}: {e}\n{text}\n{}", l.ir_pre_fusion()));
        assert_eq!(got.outputs.len(), want.len());
        for (i, (a, b)) in got.outputs.iter().zip(&want).enumerate() {
            check_close(a, b, atol, rtol).unwrap_or_else(|e| {
                panic!("{mode} output {i}: {e}\n{text}\n{}", l.ir_pre_fusion())
            });
        }
    }
}

fn graph(sig: &str, body: &str, ret: &str) -> String {
    format!(
        "class GraphModule(torch.nn.Module):\n    def forward(self, {sig}):\n{}        return ({ret},)\n",
        body.lines()
            .map(|l| format!("        {}\n", l.trim()))
            .collect::<String>()
    )
}

/// `fmod` keeps the dividend's sign, `remainder` the divisor's (PyTorch's values, worked out by
/// hand); integer ones are lowered (`a - trunc(a / b) * b`, then the sign fix), fused, and
/// match eager for random operands.
#[test]
fn fmod_and_remainder_take_the_dividend_and_the_divisor_sign() {
    let text = graph(
        "a: \"i64[4]\", b: \"i64[4]\"",
        "fmod = torch.ops.aten.fmod.Tensor(a, b)
         remainder = torch.ops.aten.remainder.Tensor(a, b)
         remainder_1 = torch.ops.aten.remainder.Scalar(a, 3)",
        "fmod, remainder, remainder_1",
    );
    let g = coil_graph::parse(&text).unwrap();
    let ints = |v: &[i64]| {
        Tensor::new(
            Data::from_f64(DType::I64, v.iter().map(|&x| x as f64)),
            vec![v.len()],
        )
        .unwrap()
    };
    let (a, b) = (ints(&[-7, 7, -7, 6]), ints(&[3, -3, -3, 4]));
    let got: Vec<Vec<f64>> = eager(&g, &[a.clone(), b.clone()])
        .iter()
        .map(|t| t.to_f64_vec())
        .collect();
    assert_eq!(got[0], vec![-1.0, 1.0, -1.0, 2.0]);
    assert_eq!(got[1], vec![2.0, -2.0, -1.0, 2.0]);
    assert_eq!(got[2], vec![2.0, 1.0, 2.0, 0.0]);
    check(&text, &[a, b], 0.0, 0.0, true);
    let text = graph(
        "a: \"i32[7, 11]\", b: \"i32[7, 11]\"",
        "fmod = torch.ops.aten.fmod.Tensor(a, b)
         remainder = torch.ops.aten.remainder.Tensor(a, b)",
        "fmod, remainder",
    );
    let a = random(DType::I32, &[7, 11], 21);
    let b: Vec<f64> = random(DType::I32, &[7, 11], 22)
        .to_f64_vec()
        .into_iter()
        .map(|x| if x == 0.0 { -5.0 } else { x })
        .collect();
    let b = Tensor::new(Data::from_f64(DType::I32, b.into_iter()), vec![7, 11]).unwrap();
    check(&text, &[a, b], 0.0, 0.0, true);
    let text = graph(
        "a: \"f32[3]\"",
        "fmod = torch.ops.aten.fmod.Scalar(a, 2.0)
         remainder = torch.ops.aten.remainder.Scalar(a, 2.0)",
        "fmod, remainder",
    );
    let g = coil_graph::parse(&text).unwrap();
    let a = Tensor::new(
        Data::from_f64(DType::F32, [-7.5, 7.5, 4.0].into_iter()),
        vec![3],
    )
    .unwrap();
    let got: Vec<Vec<f64>> = eager(&g, &[a]).iter().map(|t| t.to_f64_vec()).collect();
    assert_eq!(got[0], vec![-1.5, 1.5, 0.0]);
    assert_eq!(got[1], vec![0.5, 1.5, 0.0]);
}

/// `slice_scatter` (what functionalization makes of `x[:, a:b:s] = y`): src where the slice
/// is, self elsewhere, src cast to self's dtype; fused with its producers.
#[test]
fn slice_scatter_writes_src_into_the_slice() {
    let text = graph(
        "x: \"f32[3, 10]\", y: \"f32[3, 3]\", z: \"i64[2, 10]\"",
        "relu = torch.ops.aten.relu.default(y)
         slice_scatter = torch.ops.aten.slice_scatter.default(x, relu, 1, 2, 9, 3)
         slice_scatter_1 = torch.ops.aten.slice_scatter.default(x, z, 0, -2)
         mul = torch.ops.aten.mul.Tensor(slice_scatter, 2)",
        "mul, slice_scatter_1",
    );
    let g = coil_graph::parse(&text).unwrap();
    let x = random(DType::F32, &[3, 10], 31);
    let y = random(DType::F32, &[3, 3], 32);
    let z = random(DType::I64, &[2, 10], 33);
    let got = eager(&g, &[x.clone(), y.clone(), z.clone()]);
    let (xv, yv, zv) = (x.to_f64_vec(), y.to_f64_vec(), z.to_f64_vec());
    let first = got[0].to_f64_vec();
    for r in 0..3 {
        for c in 0..10 {
            let want = if (2..9).contains(&c) && (c - 2) % 3 == 0 {
                yv[r * 3 + (c - 2) / 3].max(0.0)
            } else {
                xv[r * 10 + c]
            };
            assert_eq!(first[r * 10 + c], (want as f32 * 2.0) as f64, "({r}, {c})");
        }
    }
    let second = got[1].to_f64_vec();
    assert_eq!(&second[..10], &xv[..10]);
    assert_eq!(
        &second[10..],
        &zv[..20]
            .iter()
            .map(|&v| v as f32 as f64)
            .collect::<Vec<_>>()[..]
    );
    check(&text, &[x, y, z], 0.0, 0.0, true);
}

/// `copy.default` (functionalized `x.copy_(src)`): src broadcast to self's sizes, cast to its
/// dtype.
#[test]
fn copy_broadcasts_and_casts_src() {
    let text = graph(
        "x: \"f32[3, 10]\", row: \"i64[10]\"",
        "copy = torch.ops.aten.copy.default(x, row)",
        "copy",
    );
    let g = coil_graph::parse(&text).unwrap();
    let x = random(DType::F32, &[3, 10], 41);
    let row = random(DType::I64, &[10], 42);
    let got = eager(&g, &[x.clone(), row.clone()])[0].to_f64_vec();
    let r = row.to_f64_vec();
    assert_eq!(got, [r.clone(), r.clone(), r].concat());
    check(&text, &[x, row], 0.0, 0.0, true);
}

/// 16-bit sums accumulate in f32: adding 4096 ones reaches 4096 (a bf16 accumulator stops at
/// 256, since 257 is not a bf16).
#[test]
fn sixteen_bit_sums_accumulate_in_f32() {
    for dt in ["bf16", "f16"] {
        let text = graph(
            &format!("x: \"{dt}[4, 4096]\""),
            "sum_1 = torch.ops.aten.sum.dim_IntList(x, [1])
             mean = torch.ops.aten.mean.dim(x, [1])",
            "sum_1, mean",
        );
        let g = coil_graph::parse(&text).unwrap();
        let dtype = DType::from_short_name(dt).unwrap();
        let ones = Tensor::new(
            Data::from_f64(dtype, std::iter::repeat_n(1.0, 4 * 4096)),
            vec![4, 4096],
        )
        .unwrap();
        let l = lower(&g);
        let got = run(backend(), &l, &per_buffer(&l), std::slice::from_ref(&ones)).unwrap();
        assert_eq!(got.outputs[0].to_f64_vec(), vec![4096.0; 4], "{dt} sum");
        assert_eq!(got.outputs[1].to_f64_vec(), vec![1.0; 4], "{dt} mean");
    }
}

#[test]
fn odd_sizes_run_vector_bodies_and_scalar_tails() {
    for (rows, cols) in [(3, 37), (5, 1003), (2, 7), (4, 8), (1, 9)] {
        let text = graph(
            &format!("x: \"f32[{rows}, {cols}]\", y: \"f32[{cols}]\""),
            "add = torch.ops.aten.add.Tensor(x, y)
             exp = torch.ops.aten.exp.default(add)
             sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1])
             amax = torch.ops.aten.amax.default(add, [1])
             argmax = torch.ops.aten.argmax.default(add, 1)
             argmin = torch.ops.aten.argmin.default(add, 1)",
            "exp, sum_1, amax, argmax, argmin",
        );
        let ins = [
            random(DType::F32, &[rows, cols], 1),
            random(DType::F32, &[cols], 2),
        ];
        check(&text, &ins, 1e-5, 1e-5, false);
    }
}

#[test]
fn fused_row_kernels_with_odd_rows() {
    for cols in [1, 5, 8, 13, 100] {
        let text = graph(
            &format!("x: \"f32[6, {cols}]\", w: \"f32[{cols}]\""),
            "mul = torch.ops.aten.mul.Tensor(x, x)
             mean = torch.ops.aten.mean.dim(mul, [-1], True)
             add = torch.ops.aten.add.Tensor(mean, 1e-06)
             rsqrt = torch.ops.aten.rsqrt.default(add)
             mul_1 = torch.ops.aten.mul.Tensor(x, rsqrt)
             mul_2 = torch.ops.aten.mul.Tensor(mul_1, w)",
            "mul_2",
        );
        let ins = [
            random(DType::F32, &[6, cols], 3),
            random(DType::F32, &[cols], 4),
        ];
        check(&text, &ins, 1e-5, 1e-5, true);
    }
}

#[test]
fn size_one_and_zero_size_dims() {
    let text = graph(
        "x: \"f32[1, 37]\", y: \"f32[37, 1]\"",
        "sum_1 = torch.ops.aten.sum.dim_IntList(x, [0])
         sum_2 = torch.ops.aten.sum.dim_IntList(x, [1], True)
         amax = torch.ops.aten.amax.default(y, [1])
         add = torch.ops.aten.add.Tensor(x, y)",
        "sum_1, sum_2, amax, add",
    );
    let ins = [
        random(DType::F32, &[1, 37], 5),
        random(DType::F32, &[37, 1], 6),
    ];
    check(&text, &ins, 1e-5, 1e-5, false);
    let text = graph(
        "x: \"f32[0, 5]\", y: \"f32[4, 0]\"",
        "add = torch.ops.aten.add.Tensor(x, 1.0)
         sum_1 = torch.ops.aten.sum.dim_IntList(y, [1])
         sum_2 = torch.ops.aten.sum.dim_IntList(x, [0])",
        "add, sum_1, sum_2",
    );
    let ins = [
        random(DType::F32, &[0, 5], 7),
        random(DType::F32, &[4, 0], 8),
    ];
    check(&text, &ins, 0.0, 0.0, false);
}

#[test]
fn long_rows_split_into_blocks() {
    let text = graph(
        "x: \"f32[100003]\"",
        "sigmoid = torch.ops.aten.sigmoid.default(x)
         mul = torch.ops.aten.mul.Tensor(sigmoid, 3.0)",
        "mul",
    );
    check(&text, &[random(DType::F32, &[100003], 9)], 1e-6, 1e-5, true);
    let text = graph(
        "x: \"f32[3, 50001]\"",
        "tanh = torch.ops.aten.tanh.default(x)",
        "tanh",
    );
    check(
        &text,
        &[random(DType::F32, &[3, 50001], 10)],
        1e-6,
        1e-5,
        true,
    );
}

#[test]
fn permuted_inputs_and_column_reductions_use_strided_loads() {
    let text = graph(
        "x: \"f32[16, 24]\", y: \"f32[24, 16]\"",
        "permute = torch.ops.aten.permute.default(x, [1, 0])
         add = torch.ops.aten.add.Tensor(permute, y)
         sum_1 = torch.ops.aten.sum.dim_IntList(x, [0])
         amax = torch.ops.aten.amax.default(x, [0, 1])",
        "add, sum_1, amax",
    );
    let ins = [
        random(DType::F32, &[16, 24], 11),
        random(DType::F32, &[24, 16], 12),
    ];
    check(&text, &ins, 1e-5, 1e-5, false);
}

#[test]
fn integer_ops_and_reductions() {
    let text = graph(
        "a: \"i64[6, 13]\", b: \"i64[6, 13]\"",
        "add = torch.ops.aten.add.Tensor(a, b)
         mul = torch.ops.aten.mul.Tensor(add, a)
         div = torch.ops.aten.div.Tensor_mode(mul, b, rounding_mode = 'floor')
         div_1 = torch.ops.aten.div.Tensor_mode(mul, b, rounding_mode = 'trunc')
         sum_1 = torch.ops.aten.sum.dim_IntList(mul, [1])
         argmax = torch.ops.aten.argmax.default(a, 1)
         amin = torch.ops.aten.amin.default(b, [1])
         gt = torch.ops.aten.gt.Tensor(a, b)
         where = torch.ops.aten.where.self(gt, a, b)
         neg = torch.ops.aten.neg.default(a)
         abs_1 = torch.ops.aten.abs.default(a)",
        "div, div_1, sum_1, argmax, amin, where, neg, abs_1",
    );
    let a = random(DType::I64, &[6, 13], 13);
    // Nonzero divisors.
    let b: Vec<f64> = random(DType::I64, &[6, 13], 14)
        .to_f64_vec()
        .into_iter()
        .map(|x| if x == 0.0 { 3.0 } else { x })
        .collect();
    let b = Tensor::new(Data::from_f64(DType::I64, b.into_iter()), vec![6, 13]).unwrap();
    check(&text, &[a, b], 0.0, 0.0, false);
    let text = graph(
        "a: \"i32[5, 9]\"",
        "add = torch.ops.aten.add.Tensor(a, 7)
         to = torch.ops.aten._to_copy.default(add, dtype = torch.float32)
         mul = torch.ops.aten.mul.Tensor(to, 0.5)
         to_1 = torch.ops.aten._to_copy.default(mul, dtype = torch.int64)",
        "add, to_1",
    );
    check(&text, &[random(DType::I32, &[5, 9], 15)], 0.0, 0.0, false);
}

#[test]
fn bool_values_are_bytes() {
    let text = graph(
        "x: \"f32[7, 19]\", m: \"b8[7, 19]\"",
        "gt = torch.ops.aten.gt.Scalar(x, 0.0)
         and_1 = torch.ops.aten.logical_and.default(gt, m)
         not_1 = torch.ops.aten.logical_not.default(and_1)
         or_1 = torch.ops.aten.logical_or.default(not_1, m)
         sum_1 = torch.ops.aten.sum.dim_IntList(or_1, [1])
         where = torch.ops.aten.where.self(m, x, 0.0)
         to = torch.ops.aten._to_copy.default(m, dtype = torch.float32)",
        "and_1, or_1, sum_1, where, to",
    );
    let ins = [
        random(DType::F32, &[7, 19], 16),
        random(DType::Bool, &[7, 19], 17),
    ];
    check(&text, &ins, 0.0, 0.0, false);
}

#[test]
fn f16_loads_and_stores_compute_in_f32() {
    let text = graph(
        "x: \"f16[4, 33]\", y: \"f16[33]\"",
        "add = torch.ops.aten.add.Tensor(x, y)
         exp = torch.ops.aten.exp.default(add)
         sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1])
         to = torch.ops.aten._to_copy.default(exp, dtype = torch.float32)",
        "exp, sum_1, to",
    );
    let ins = [
        random(DType::F16, &[4, 33], 18),
        random(DType::F16, &[33], 19),
    ];
    // coil-eager rounds to f16 after every op; the kernels keep f32 until the store.
    check(&text, &ins, 1e-2, 1e-2, true);
    // Exact round trip of representable values, bf16 too.
    let text = graph(
        "x: \"f16[3, 17]\", z: \"bf16[3, 17]\"",
        "to = torch.ops.aten._to_copy.default(x, dtype = torch.float32)
         to_1 = torch.ops.aten._to_copy.default(z, dtype = torch.float32)
         to_2 = torch.ops.aten._to_copy.default(to, dtype = torch.bfloat16)
         to_3 = torch.ops.aten._to_copy.default(to_1, dtype = torch.float16)",
        "to, to_1, to_2, to_3",
    );
    let ins = [
        random(DType::F16, &[3, 17], 20),
        random(DType::BF16, &[3, 17], 21),
    ];
    check(&text, &ins, 0.0, 0.0, false);
}

#[test]
fn f64_values() {
    let text = graph(
        "x: \"f64[3, 29]\"",
        "exp = torch.ops.aten.exp.default(x)
         sin = torch.ops.aten.sin.default(x)
         sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1])
         prod = torch.ops.aten.prod.dim_int(x, 1)",
        "exp, sin, sum_1, prod",
    );
    check(
        &text,
        &[random(DType::F64, &[3, 29], 22)],
        1e-12,
        1e-12,
        false,
    );
}

#[test]
fn nan_and_ties_in_max_and_argmax() {
    let nan = f32::NAN;
    // Rows of 19 (two vectors and a tail) and of 83 (two unrolled rounds of four vectors, two
    // more vectors, a tail): NaNs and ties land in different accumulators and the tail.
    for cols in [19usize, 83] {
        let mut rows: Vec<Vec<f32>> = vec![(0..cols).map(|i| (i % 5) as f32).collect(); 8];
        rows[1][3] = nan;
        rows[2][cols - 2] = nan;
        rows[3][2] = nan;
        rows[3][cols - 1] = nan;
        rows[4] = vec![1.0; cols];
        rows[5] = vec![f32::NEG_INFINITY; cols];
        rows[6][cols / 2] = nan;
        rows[6][cols / 3] = nan;
        rows[7] = (0..cols).map(|i| -((i % 7) as f32)).collect();
        let x = Tensor::from_f32(rows.concat(), vec![8, cols]).unwrap();
        let text = graph(
            &format!("x: \"f32[8, {cols}]\""),
            "amax = torch.ops.aten.amax.default(x, [1])
             amin = torch.ops.aten.amin.default(x, [1])
             argmax = torch.ops.aten.argmax.default(x, 1)
             argmin = torch.ops.aten.argmin.default(x, 1)
             relu = torch.ops.aten.relu.default(x)",
            "amax, amin, argmax, argmin, relu",
        );
        check(&text, &[x], 0.0, 0.0, false);
    }
}

#[test]
fn pow_special_and_general_exponents() {
    let text = graph(
        "x: \"f32[3, 21]\", y: \"f32[3, 21]\"",
        "pow_1 = torch.ops.aten.pow.Tensor_Scalar(x, 2)
         pow_2 = torch.ops.aten.pow.Tensor_Scalar(x, 3)
         abs_1 = torch.ops.aten.abs.default(x)
         pow_3 = torch.ops.aten.pow.Tensor_Scalar(abs_1, 0.5)
         pow_4 = torch.ops.aten.pow.Tensor_Scalar(abs_1, 2.5)
         pow_5 = torch.ops.aten.pow.Tensor_Scalar(x, -1)
         pow_6 = torch.ops.aten.pow.Tensor_Tensor(x, y)",
        "pow_1, pow_2, pow_3, pow_4, pow_5, pow_6",
    );
    let mut y = random(DType::F32, &[3, 21], 24).to_f64_vec();
    // Integer exponents of negative bases, and 0.
    for (i, v) in y.iter_mut().enumerate() {
        if i % 3 == 0 {
            *v = v.round();
        }
    }
    let y = Tensor::new(Data::from_f64(DType::F32, y.into_iter()), vec![3, 21]).unwrap();
    check(
        &text,
        &[random(DType::F32, &[3, 21], 23), y],
        1e-6,
        1e-5,
        false,
    );
}

#[test]
fn matmuls_take_strided_operands() {
    let text = graph(
        "x: \"f32[8, 12]\", w: \"f32[10, 12]\", b: \"f32[10]\"",
        "t = torch.ops.aten.permute.default(w, [1, 0])
         mm = torch.ops.aten.mm.default(x, t)
         addmm = torch.ops.aten.addmm.default(b, x, t)",
        "mm, addmm",
    );
    let ins = [
        random(DType::F32, &[8, 12], 25),
        random(DType::F32, &[10, 12], 26),
        random(DType::F32, &[10], 27),
    ];
    check(&text, &ins, 1e-5, 1e-5, false);
    let text = graph(
        "a: \"f64[3, 5, 7]\", b: \"f64[3, 4, 7]\"",
        "permute = torch.ops.aten.permute.default(b, [0, 2, 1])
         bmm = torch.ops.aten.bmm.default(a, permute)",
        "bmm",
    );
    let ins = [
        random(DType::F64, &[3, 5, 7], 28),
        random(DType::F64, &[3, 4, 7], 29),
    ];
    check(&text, &ins, 1e-12, 1e-12, false);
}

#[test]
fn softmax_over_two_dims_reuses_cached_exp() {
    for (a, b) in [(3, 5), (7, 9), (2, 16)] {
        let text = graph(
            &format!("x: \"f32[4, {a}, {b}]\""),
            "amax = torch.ops.aten.amax.default(x, [1, 2], True)
             sub = torch.ops.aten.sub.Tensor(x, amax)
             exp = torch.ops.aten.exp.default(sub)
             sum_1 = torch.ops.aten.sum.dim_IntList(exp, [1, 2], True)
             div = torch.ops.aten.div.Tensor(exp, sum_1)",
            "div",
        );
        check(
            &text,
            &[random(DType::F32, &[4, a, b], 30)],
            1e-6,
            1e-5,
            true,
        );
    }
}

#[test]
fn long_float_sums_stay_close_to_exact() {
    // A flat running sum per lane drifts by thousands of roundings on rows this long; the
    // two-level sum keeps the error near that of pairwise summation (what eager and PyTorch
    // do): 1.4e-4 and 2.1e-4 here (half an f32 ulp of the results is 0.6e-4), against 1.4e-3
    // for a flat sum.
    let cols = 262_144usize;
    let x = random(DType::F32, &[2, cols], 31);
    let text = graph(
        &format!("x: \"f32[2, {cols}]\""),
        "sum_1 = torch.ops.aten.sum.dim_IntList(x, [1])",
        "sum_1",
    );
    let g = coil_graph::parse(&text).unwrap();
    let l = lower(&g);
    let got = run(backend(), &l, &all_in_one(&l), std::slice::from_ref(&x)).unwrap();
    let vals = x.to_f64_vec();
    for (r, s) in got.outputs[0].to_f64_vec().iter().enumerate() {
        let exact: f64 = vals[r * cols..(r + 1) * cols].iter().sum();
        let err = (s - exact).abs();
        assert!(err < 4e-4, "row {r}: {s} vs exact {exact}");
    }
}
