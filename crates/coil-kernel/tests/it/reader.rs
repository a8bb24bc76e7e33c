//! The kernel text reader: round trips through `Display`, error positions, and no panics on
//! any input.

use coil_kernel::*;
use proptest::prelude::*;

fn p(n: usize) -> IndexExpr {
    IndexExpr::var(Var::p(n))
}

fn arg(name: &str, dtype: DType, len: usize, role: ArgRole) -> KernelArg {
    KernelArg {
        name: name.into(),
        dtype,
        len,
        role,
    }
}

fn load(b: &mut KernelBuilder, arg: u32, index: IndexExpr, dtype: DType) -> ValueId {
    b.value(
        KExpr::Load {
            arg: ArgId(arg),
            index,
            mask: None,
        },
        dtype,
    )
}

fn constant(b: &mut KernelBuilder, c: Const, dtype: DType) -> ValueId {
    b.value(KExpr::Const(c), dtype)
}

/// A pointwise kernel over [16, 100]: bf16 and i64 dtypes, float constants of every spelling,
/// a masked load, a where, an index value and a cast.
fn pointwise() -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Outer);
    let flat = p(0).scale(100).add(&p(1));
    let x = load(&mut b, 0, flat.clone(), DType::F32);
    let y = load(&mut b, 1, flat.clone(), DType::BF16);
    let yf = b.value(KExpr::Cast(y), DType::F32);
    let sum = b.value(KExpr::Binary(Op::Add, x, yf), DType::F32);
    let mut acc = sum;
    for c in [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        1e-05,
        1.1,
        std::f64::consts::PI,
        1e300,
        5.0,
    ] {
        let k = constant(&mut b, Const::Float(c), DType::F32);
        acc = b.value(KExpr::Binary(Op::Mul, acc, k), DType::F32);
    }
    let i = b.value(KExpr::Index(p(1).scale(-1).add_constant(99)), DType::I64);
    let five = constant(&mut b, Const::Int(5), DType::I64);
    let big = constant(&mut b, Const::Int(i64::MIN), DType::I64);
    let lt = b.value(KExpr::Binary(Op::Lt, i, five), DType::Bool);
    let lt2 = b.value(KExpr::Binary(Op::Gt, big, i), DType::Bool);
    let both = b.value(KExpr::Binary(Op::LogicalOr, lt, lt2), DType::Bool);
    let yes = constant(&mut b, Const::Bool(true), DType::Bool);
    let mask = b.value(KExpr::Binary(Op::LogicalAnd, both, yes), DType::Bool);
    let masked = b.value(
        KExpr::Load {
            arg: ArgId(0),
            index: flat.add_constant(5),
            mask: Some(mask),
        },
        DType::F32,
    );
    let w = b.value(KExpr::Where(mask, masked, acc), DType::F32);
    let r = b.value(KExpr::Unary(Op::Relu, w), DType::F32);
    let out = b.value(KExpr::Cast(r), DType::BF16);
    b.store(ArgId(2), flat.clone(), out);
    b.store(ArgId(3), flat, i);
    b.finish(
        "poi_fused_add_where_0".into(),
        KernelKind::Pointwise,
        vec![16, 100],
        vec![],
        vec![
            arg("x", DType::F32, 1600, ArgRole::Input),
            arg("y", DType::BF16, 1600, ArgRole::Input),
            arg("buf0", DType::BF16, 1600, ArgRole::Output),
            arg("buf1", DType::I64, 1600, ArgRole::InOut),
        ],
    )
}

/// A persistent reduction: max and sum accumulators, a scan, and an outer stage reading them.
fn persistent_reduction() -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Reduction);
    let flat = p(0).scale(100).add(&p(1));
    let x = load(&mut b, 0, flat.clone(), DType::F32);
    let e = b.value(KExpr::Unary(Op::Exp, x), DType::F32);
    let max = b.reduce(ReductionType::Max, x, DType::F32);
    let sum = b.reduce(ReductionType::Sum, e, DType::F32);
    let argmax = b.reduce(ReductionType::Argmax, x, DType::I64);
    let scan = b.value(
        KExpr::Scan {
            scan_type: ReductionType::Sum,
            value: e,
        },
        DType::F32,
    );
    let prod = b.value(
        KExpr::Scan {
            scan_type: ReductionType::Prod,
            value: x,
        },
        DType::F32,
    );
    let both = b.value(KExpr::Binary(Op::Sub, scan, prod), DType::F32);
    b.store(ArgId(1), flat, both);
    b.begin_stage(StageKind::Outer);
    let m = b.value(KExpr::Acc(max), DType::F32);
    let s = b.value(KExpr::Acc(sum), DType::F32);
    let a = b.value(KExpr::Acc(argmax), DType::I64);
    let lse = b.value(KExpr::Unary(Op::Log, s), DType::F32);
    let out = b.value(KExpr::Binary(Op::Add, m, lse), DType::F32);
    b.store(ArgId(2), p(0), out);
    b.store(ArgId(3), p(0), a);
    b.finish(
        "per_fused_logsumexp_0".into(),
        KernelKind::Reduction { persistent: true },
        vec![16],
        vec![100],
        vec![
            arg("arg0_1", DType::F32, 1600, ArgRole::Input),
            arg("buf0", DType::F32, 1600, ArgRole::Output),
            arg("buf1", DType::F32, 16, ArgRole::Output),
            arg("buf2", DType::I64, 16, ArgRole::Output),
        ],
    )
}

/// A gather: `out[8*p0 + p1] = table[8*ind1 + p1]`, and an unwrapped index value.
fn gather() -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Outer);
    let idx = load(&mut b, 0, p(0), DType::I64);
    let ind = b.value(
        KExpr::IndirectIndex {
            value: idx,
            size: 64,
            wrap_negative: true,
            flags: ArgId(2),
            check: 0,
        },
        DType::I64,
    );
    let index = IndexExpr::var(Var::indirect(ind.index()))
        .scale(8)
        .add(&p(1));
    let v = load(&mut b, 1, index, DType::F32);
    let ind2 = b.value(
        KExpr::IndirectIndex {
            value: idx,
            size: 16,
            wrap_negative: false,
            flags: ArgId(2),
            check: 3,
        },
        DType::I64,
    );
    let row = b.value(
        KExpr::Index(IndexExpr::var(Var::indirect(ind2.index()))),
        DType::I64,
    );
    let rowf = b.value(KExpr::Cast(row), DType::F32);
    let out = b.value(KExpr::Binary(Op::Maximum, v, rowf), DType::F32);
    b.store(ArgId(3), p(0).scale(8).add(&p(1)), out);
    b.finish(
        "poi_fused_embedding_0".into(),
        KernelKind::Pointwise,
        vec![16, 8],
        vec![],
        vec![
            arg("idx", DType::I64, 16, ArgRole::Input),
            arg("table", DType::F32, 512, ArgRole::Input),
            arg("flags", DType::I64, 8, ArgRole::InOut),
            arg("buf0", DType::F32, 128, ArgRole::Output),
        ],
    )
}

/// A looped reduction with `FloorDiv` and `ModularIndexing` indices.
fn div_mod() -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Reduction);
    let index = p(0)
        .floor_div(16)
        .scale(64)
        .add(&p(1).modular(1, 16))
        .add(&p(1).add_constant(1).floor_div(2));
    let x = load(&mut b, 0, index, DType::F64);
    let m = b.value(
        KExpr::Index(p(0).scale(3).add(&p(1)).modular(4, 16)),
        DType::I64,
    );
    let mf = b.value(KExpr::Cast(m), DType::F64);
    let y = b.value(KExpr::Binary(Op::TrueDiv, x, mf), DType::F64);
    let acc = b.reduce(ReductionType::Min, y, DType::F64);
    b.begin_stage(StageKind::Outer);
    let a = b.value(KExpr::Acc(acc), DType::F64);
    let h = b.value(KExpr::Cast(a), DType::F16);
    b.store(ArgId(1), p(0), h);
    b.finish(
        "red_fused_div_min_0".into(),
        KernelKind::Reduction { persistent: false },
        vec![64],
        vec![16],
        vec![
            arg("x", DType::F64, 256, ArgRole::Input),
            arg("buf0", DType::F16, 64, ArgRole::Output),
        ],
    )
}

fn built() -> Vec<Kernel> {
    vec![pointwise(), persistent_reduction(), gather(), div_mod()]
}

#[test]
fn built_kernels_round_trip() {
    for k in built() {
        assert_eq!(k.verify(), Ok(()), "{k}");
        let text = k.to_string();
        let back = parse_kernels(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(back, vec![k.clone()], "{text}");
        assert_eq!(back[0].to_string(), text);
    }
}

#[test]
fn printed_forms_are_the_expected_ones() {
    let text = [
        pointwise().to_string(),
        gather().to_string(),
        div_mod().to_string(),
    ]
    .join("\n");
    for want in [
        "const nan",
        "const inf",
        "const -inf",
        "const -0.0",
        "const 1e-05",
        "const -9223372036854775808",
        "const True",
        "index -p1 + 99",
        "if v",
        "load arg1[p1 + 8*ind1]",
        "indirect(v0, size=64, wrap, check=arg2[0])",
        "indirect(v0, size=16, check=arg2[3])",
        "index ind3",
        "64*(p0//16)",
        "((p1 + 1)//2)",
        "ModularIndexing(p1, 1, 16)",
        "ModularIndexing(3*p0 + p1, 4, 16)",
    ] {
        assert!(text.contains(want), "{want} missing from\n{text}");
    }
}

#[test]
fn float_constants_keep_their_bits() {
    let k = pointwise();
    let back = parse_kernels(&k.to_string()).expect("reads");
    let bits = |k: &Kernel| -> Vec<u64> {
        k.values
            .iter()
            .filter_map(|(e, _)| match e {
                KExpr::Const(Const::Float(x)) => Some(x.to_bits()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(bits(&back[0]), bits(&k));
    assert!(bits(&k).contains(&(-0.0f64).to_bits()));
}

#[test]
fn several_kernels_in_one_text() {
    let text = built()
        .iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(parse_kernels(&text), Ok(built()));
}

const SOFTMAX: &str = "\
kernel per_fused__softmax_0 (persistent reduction) ranges=[16] reduction_ranges=[100]
  arg0 arg0_1: f32[1600] in
  arg1 buf0: f32[16] out
  reduction loop:
    v0: f32 = load arg0[100*p0 + p1]
    acc0: f32 = max(v0)
  outer:
    v1: f32 = acc0
    store arg1[p0] = v1

kernel poi_fused__softmax_1 (pointwise) ranges=[16, 100] reduction_ranges=[]
  arg0 arg0_1: f32[1600] in
  arg1 buf0: f32[16] in
  arg2 buf1: f32[1600] out
  outer:
    v0: f32 = load arg0[100*p0 + p1]
    v1: f32 = load arg1[p0]
    v2: f32 = sub(v0, v1)
    v3: f32 = exp(v2)
    store arg2[100*p0 + p1] = v3
";

fn print_all(ks: &[Kernel]) -> String {
    ks.iter()
        .map(|k| k.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_softmax_text_reads_back_to_itself() {
    let ks = parse_kernels(SOFTMAX).expect("reads");
    assert_eq!(ks.len(), 2);
    assert_eq!(ks[0].kind, KernelKind::Reduction { persistent: true });
    assert_eq!(ks[1].values.len(), 4);
    assert_eq!(print_all(&ks), SOFTMAX);
}

#[test]
fn comments_and_trailing_spaces_are_skipped() {
    let text = format!(
        "# two kernels\n\n{}",
        SOFTMAX
            .lines()
            .map(|l| format!("{l}   \n   # a comment\n"))
            .collect::<String>()
    );
    assert_eq!(print_all(&parse_kernels(&text).expect("reads")), SOFTMAX);
    assert_eq!(parse_kernels(""), Ok(vec![]));
}

/// `SOFTMAX`'s first kernel with line `line` (1-based) replaced.
fn with_line(line: usize, new: &str) -> String {
    SOFTMAX
        .lines()
        .enumerate()
        .map(|(i, l)| if i + 1 == line { new } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

#[track_caller]
fn fails_at(text: &str, line: usize, col: usize, word: &str) {
    match parse_kernels(text) {
        Ok(_) => panic!("read without an error:\n{text}"),
        Err(e) => {
            assert_eq!((e.line, e.col), (line, col), "{e}\n{text}");
            assert!(e.msg.contains(word), "`{word}` not in `{e}`");
        }
    }
}

/// `(line replaced, its new text, error line, error column, a word of the message)`.
const MALFORMED: &[(usize, &str, usize, usize, &str)] = &[
    (6, "    acc0: f32 = maxi(v0)", 6, 17, "unknown reduction"),
    (19, "    v3: f32 = expo(v2)", 19, 15, "unknown op"),
    (17, "    v1: f33 = load arg1[p0]", 17, 9, "dtype"),
    (
        17,
        "    v1: f32 = load arg7[p0]",
        17,
        20,
        "unknown argument",
    ),
    (
        18,
        "    v2: f32 = sub(v0, v5)",
        18,
        23,
        "before it is defined",
    ),
    (18, "    v2: f32 = sub(v0 v1)", 18, 22, "`)`"),
    (18, "    v2: f32 = exp(v0, v1)", 18, 15, "takes 1 operands"),
    (5, "    v0: f32 = load arg0[100*p0 + p1", 5, 36, "`]`"),
    (
        5,
        "    v0: f32 = load arg0[100*p0 + q1]",
        5,
        34,
        "index variable",
    ),
    (
        5,
        "    v0: f32 = load arg0[99999999999999999999*p0]",
        5,
        25,
        "out of range",
    ),
    (
        8,
        "    v1: f32 = const 99999999999999999999",
        8,
        21,
        "out of range",
    ),
    (8, "    v1: f32 = const 1.2.3", 8, 21, "bad constant"),
    (8, "    v0: f32 = acc0", 8, 5, "defined twice"),
    (8, "    v1: f32 = acc1", 8, 15, "before it is defined"),
    (
        8,
        "    v1: f32 = acc0\n    v3: f32 = const 1.0",
        1,
        1,
        "v2 is never defined",
    ),
    (
        1,
        "kernel k (pointwise) ranges=[16, 18446744073709551615]",
        1,
        29,
        "overflow",
    ),
    (1, "kernel k (sideways) ranges=[16]", 1, 11, "pointwise"),
    (
        1,
        "kernel k (pointwise) ranges=[16] reduction_ranges=[1,]",
        1,
        54,
        "number",
    ),
    (4, "  reduction lop:", 4, 13, "`loop`"),
    (2, "  arg1 arg0_1: f32[1600] in", 2, 3, "expected arg0"),
    (3, "  arg1 buf0: f32[16] output", 3, 22, "`inout`"),
    (9, "    store arg1[p0] = v1 extra", 9, 25, "end of the line"),
    (9, "    stor arg1[p0] = v1", 9, 5, "expected an argument"),
    (9, "    store arg1[(p0//0)] = v1", 9, 21, "positive"),
    (
        5,
        "    v4294967296: f32 = load arg0[p0]",
        5,
        5,
        "out of range",
    ),
    (
        12,
        "  arg0 arg0_1: f32[1600] in extra",
        12,
        29,
        "end of the line",
    ),
];

#[test]
fn errors_point_at_the_offending_token() {
    for &(replaced, new, line, col, word) in MALFORMED {
        fails_at(&with_line(replaced, new), line, col, word);
    }
    // A missing header.
    let headless = SOFTMAX.lines().skip(1).collect::<Vec<_>>().join("\n");
    fails_at(&headless, 1, 3, "`kernel`");
    // A value before any stage header.
    fails_at(
        &with_line(4, "    v9: f32 = const 1.0"),
        4,
        5,
        "stage header",
    );
}

#[test]
fn structurally_wrong_kernels_fail_verification_at_their_header() {
    // Storing to an input.
    fails_at(&with_line(9, "    store arg0[p0] = v1"), 1, 1, "an input");
    // Out of range.
    fails_at(
        &with_line(9, "    store arg1[p0 + 1] = v1"),
        1,
        1,
        "outside",
    );
    // A stage-crossing use, in the second kernel.
    let text = SOFTMAX.replace(
        "    v1: f32 = load arg1[p0]\n",
        "  outer:\n    v1: f32 = load arg1[p0]\n",
    );
    fails_at(&text, 11, 1, "before it is defined in stage 1");
    // `d` variables read, but kernels may not use them.
    fails_at(
        &with_line(9, "    store arg1[d0] = v1"),
        1,
        1,
        "indexes with d0",
    );
}

#[test]
fn indirect_indices_must_name_indirect_values_defined_above() {
    let text = gather().to_string();
    let bad = text.replace("8*ind1", "8*ind7");
    fails_at(&bad, 9, 32, "before it is defined");
    let bad = text.replace("8*ind1", "8*ind0");
    fails_at(&bad, 9, 32, "not an indirect index");
}

#[test]
fn adversarial_indices_are_errors_not_panics() {
    let deep = format!("{}p0{}", "(".repeat(10_000), ")".repeat(10_000));
    let e = parse_kernels(&with_line(9, &format!("    store arg1[{deep}] = v1"))).unwrap_err();
    assert!(e.msg.contains("nested too deeply"), "{e}");
    // Terms near 2^125 each: the verifier's i128 bounds would overflow.
    let max = i64::MAX;
    let huge = format!(
        "kernel k (pointwise) ranges=[4611686018427387904] reduction_ranges=[]\n  arg0 x: f32[4] out\n  outer:\n    v0: f32 = const 1.0\n    store arg0[{max}*p0 + {max}*(p0//2) + {max}*(p0//3) + {max}*(p0//5)] = v0"
    );
    fails_at(&huge, 5, 16, "too large");
}

/// Words and symbols the kernel text is made of, to build near-valid random texts.
const PIECES: &[&str] = &[
    "kernel k ",
    "(pointwise) ",
    "(persistent reduction) ",
    "ranges=[4] ",
    "reduction_ranges=[] ",
    "reduction_ranges=[4]",
    "\n",
    "\n\n",
    "  arg0 x: f32[16] in",
    "  arg1 y: i64[16] inout",
    "  outer:",
    "  reduction loop:",
    "    v0: f32 = ",
    "    v1: i64 = ",
    "    acc0: f32 = sum(v0)",
    "load arg0[",
    "p0",
    "p1",
    "ind1",
    "d0",
    "4*",
    " + ",
    " - ",
    "(",
    ")",
    "//",
    "2",
    "]",
    " if v0",
    "ModularIndexing(",
    ", ",
    "acc0",
    "const ",
    "nan",
    "1e-05",
    "True",
    "exp(v0)",
    "add(v0, v1)",
    "where(v0, v0, v0)",
    "scan_sum(v0)",
    "indirect(v1, size=4, wrap, check=arg1[0])",
    "cast v0",
    "index ",
    "    store arg1[",
    "] = v1",
    "] = v0",
    "18446744073709551616",
    "é",
    "#",
];

/// One edit of a text: delete, insert or replace the char at `at` (taken modulo the length).
fn mutate(text: &str, at: usize, how: u8, ch: char) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    let i = at % chars.len().max(1);
    match how % 3 {
        0 if !chars.is_empty() => {
            chars.remove(i);
        }
        1 => chars.insert(i.min(chars.len()), ch),
        _ if !chars.is_empty() => chars[i] = ch,
        _ => {}
    }
    chars.into_iter().collect()
}

fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        proptest::sample::select(
            " \n#()[],:=+-*/_0123456789vpdinacgkx"
                .chars()
                .collect::<Vec<_>>()
        ),
        any::<char>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_strings_never_panic(s in ".{0,200}") {
        let _ = parse_kernels(&s);
    }

    #[test]
    fn random_pieces_never_panic(pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..60)) {
        let _ = parse_kernels(&pieces.concat());
    }

    #[test]
    fn mutated_kernels_never_panic(
        which in 0usize..5,
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), interesting_char()), 1..4),
    ) {
        let mut texts: Vec<String> = built().iter().map(|k| k.to_string()).collect();
        texts.push(SOFTMAX.to_string());
        let mut text = texts[which].clone();
        for (at, how, ch) in edits {
            text = mutate(&text, at, how, ch);
        }
        if let Ok(ks) = parse_kernels(&text) {
            // Whatever reads prints a text that reads back to itself.
            let printed = print_all(&ks);
            let again = parse_kernels(&printed).map(|ks| print_all(&ks));
            prop_assert_eq!(again, Ok(printed));
        }
    }
}
