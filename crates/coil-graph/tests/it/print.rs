//! Printing: FX's clean-up tails, Python's float repr, and `Display`.

use coil_graph::{Arg, DType, GraphBuilder, format_float, parse, print_graph};
use expect_test::expect;
use proptest::prelude::*;

#[test]
fn clean_up_tails_follow_fx() {
    // FX frees a value after its last use, listing the values a statement frees in the order
    // the statement first reads them; outputs are never freed; an unused value frees itself
    // at once; graph inputs that nothing reads are never mentioned.
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let y = b.input("y", DType::F32, &[2, 3]);
    let _z = b.input("z", DType::F32, &[1]);
    let a = b
        .call("add.Tensor", vec![Arg::Node(y), Arg::Node(x)])
        .unwrap();
    let m = b
        .call("mul.Tensor", vec![Arg::Node(a), Arg::Node(a)])
        .unwrap();
    let c = b
        .call(
            "cat.default",
            vec![Arg::List(vec![Arg::Node(m), Arg::Node(y), Arg::Node(m)])],
        )
        .unwrap();
    let _unused = b.call("neg.default", vec![Arg::Node(c)]).unwrap();
    let s = b.call("sigmoid.default", vec![Arg::Node(c)]).unwrap();
    let g = b.finish(&[s, a]).unwrap();
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "f32[2, 3]", y: "f32[2, 3]", z: "f32[1]"):
                add: "f32[2, 3]" = torch.ops.aten.add.Tensor(y, x);  x = None
                mul: "f32[2, 3]" = torch.ops.aten.mul.Tensor(add, add)
                cat: "f32[6, 3]" = torch.ops.aten.cat.default([mul, y, mul]);  mul = y = None
                neg: "f32[6, 3]" = torch.ops.aten.neg.default(cat);  neg = None
                sigmoid: "f32[6, 3]" = torch.ops.aten.sigmoid.default(cat);  cat = None
                return (sigmoid, add)
    "#]]
    .assert_eq(&print_graph(&g));
    assert_eq!(g.to_string(), print_graph(&g));
    assert_eq!(parse(&print_graph(&g)).unwrap(), g);
}

#[test]
fn zero_dim_and_empty_tensors_print_their_sizes() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::BF16, &[]);
    let e = b.input("e", DType::I32, &[0, 4]);
    let s = b.call("sum.default", vec![Arg::Node(e)]).unwrap();
    let g = b.finish(&[x, s]).unwrap();
    expect![[r#"
        class GraphModule(torch.nn.Module):
            def forward(self, x: "bf16[]", e: "i32[0, 4]"):
                sum: "i64[]" = torch.ops.aten.sum.default(e);  e = None
                return (x, sum)
    "#]]
    .assert_eq(&print_graph(&g));
}

#[test]
fn floats_match_python_repr() {
    // Values checked against CPython 3's repr().
    let cases: &[(f64, &str)] = &[
        (1.1, "1.1"),
        (0.1, "0.1"),
        (1e-05, "1e-05"),
        (1e-06, "1e-06"),
        (2.8284271247461903, "2.8284271247461903"),
        (1.0, "1.0"),
        (f64::NEG_INFINITY, "-inf"),
        (f64::INFINITY, "inf"),
        (f64::NAN, "nan"),
        (1e16, "1e+16"),
        (0.0001, "0.0001"),
        (0.125, "0.125"),
        (8.0, "8.0"),
        (std::f64::consts::FRAC_1_SQRT_2, "0.7071067811865476"),
        (0.044715, "0.044715"),
        (-1e-05, "-1e-05"),
        (1234567890123456.0, "1234567890123456.0"),
        (12345678901234567.0, "1.2345678901234568e+16"),
        (2.5e-5, "2.5e-05"),
        (1e22, "1e+22"),
        (6.02214076e23, "6.02214076e+23"),
        (1.5e-320, "1.5e-320"),
    ];
    for &(x, want) in cases {
        assert_eq!(format_float(x), want, "{x:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    /// Every finite float prints in Python's shape and reads back to the same bits.
    #[test]
    fn floats_read_back_exactly(bits in any::<u64>()) {
        let x = f64::from_bits(bits);
        let text = format_float(x);
        if x.is_nan() {
            prop_assert_eq!(text, "nan");
        } else {
            let back: f64 = text.parse().unwrap();
            prop_assert_eq!(back.to_bits(), x.to_bits(), "{}", text);
            let body = text.trim_start_matches('-');
            // Positional notation always has a '.', scientific a signed two-digit exponent.
            prop_assert!(
                body == "inf"
                    || (body.contains('.') && !body.contains('e'))
                    || body.split_once('e').is_some_and(|(_, e)| {
                        (e.starts_with('+') || e.starts_with('-')) && e.len() >= 3
                    }),
                "{}", text
            );
        }
    }
}
