//! Views share storage; slices, selects and splits get the right offsets; copies copy.

use coil_graph::{Arg, DType, GraphBuilder, Tensor};

use crate::*;

/// Runs `op(x, args...)` and returns (input, output).
fn view_of(op: &str, x: Tensor, args: Vec<Arg>) -> (Tensor, Tensor) {
    let y = unary(op, x.clone(), args, vec![]);
    (x, y)
}

#[test]
fn views_share_storage_with_the_right_strides() {
    let (x, y) = view_of("view.default", iota(&[2, 6]), vec![ints(&[3, -1])]);
    assert!(y.shares_storage(&x));
    check(
        &y,
        DType::F32,
        &[3, 4],
        &(0..12).map(f64::from).collect::<Vec<_>>(),
    );

    let (x, y) = view_of("permute.default", iota(&[2, 3, 4]), vec![ints(&[2, 0, 1])]);
    assert!(y.shares_storage(&x));
    assert_eq!((y.sizes(), y.strides()), (&[4, 2, 3][..], &[1, 12, 4][..]));
    assert_eq!(y.to_f64_vec()[..4], [0., 4., 8., 12.]);

    let (x, y) = view_of(
        "transpose.int",
        iota(&[2, 3]),
        vec![Arg::Int(0), Arg::Int(-1)],
    );
    assert!(y.shares_storage(&x));
    check(&y, DType::F32, &[3, 2], &[0., 3., 1., 4., 2., 5.]);

    let (x, y) = view_of("t.default", iota(&[2, 3]), vec![]);
    assert!(y.shares_storage(&x));
    assert_eq!(y.strides(), &[1, 3]);

    let (x, y) = view_of("expand.default", iota(&[3, 1]), vec![ints(&[2, -1, 4])]);
    assert!(y.shares_storage(&x));
    assert_eq!((y.sizes(), y.strides()), (&[2, 3, 4][..], &[0, 1, 0][..]));

    let (x, y) = view_of("unsqueeze.default", iota(&[2, 3]), vec![Arg::Int(-1)]);
    assert!(y.shares_storage(&x));
    assert_eq!((y.sizes(), y.strides()), (&[2, 3, 1][..], &[3, 1, 1][..]));

    let (_, y) = view_of("squeeze.dim", iota(&[2, 1, 3]), vec![Arg::Int(1)]);
    assert_eq!(y.sizes(), &[2, 3]);
    let (_, y) = view_of("squeeze.dims", iota(&[1, 2, 1]), vec![ints(&[0, -1])]);
    assert_eq!(y.sizes(), &[2]);
    let (_, y) = view_of("squeeze.default", iota(&[1, 2, 1]), vec![]);
    assert_eq!(y.sizes(), &[2]);

    let (x, y) = view_of("alias.default", iota(&[2]), vec![]);
    assert!(y.shares_storage(&x));

    let (x, y) = view_of("_unsafe_view.default", iota(&[4]), vec![ints(&[2, 2])]);
    assert!(y.shares_storage(&x));
}

#[test]
fn slice_with_step_and_select_negative_index() {
    // slice(x, 0, 1, 8, 3) on 0..10 -> [1, 4, 7].
    let (x, y) = view_of(
        "slice.Tensor",
        iota(&[10]),
        vec![Arg::Int(0), Arg::Int(1), Arg::Int(8), Arg::Int(3)],
    );
    assert!(y.shares_storage(&x));
    check(&y, DType::F32, &[3], &[1., 4., 7.]);
    assert_eq!((y.offset(), y.strides()), (1, &[3][..]));
    // Negative start, end past the size, on dim 1.
    let (_, y) = view_of(
        "slice.Tensor",
        iota(&[2, 5]),
        vec![Arg::Int(1), Arg::Int(-2), Arg::Int(100)],
    );
    check(&y, DType::F32, &[2, 2], &[3., 4., 8., 9.]);

    let (x, y) = view_of("select.int", iota(&[3, 4]), vec![Arg::Int(0), Arg::Int(-1)]);
    assert!(y.shares_storage(&x));
    check(&y, DType::F32, &[4], &[8., 9., 10., 11.]);
    let (_, y) = view_of("select.int", iota(&[3, 4]), vec![Arg::Int(1), Arg::Int(2)]);
    check(&y, DType::F32, &[3], &[2., 6., 10.]);
}

#[test]
fn split_with_sizes_and_getitem() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 5]);
    let sp = b
        .call(
            "split_with_sizes.default",
            vec![n(x), ints(&[2, 3]), Arg::Int(-1)],
        )
        .unwrap();
    let p0 = b.getitem(sp, 0).unwrap();
    let p1 = b.getitem(sp, 1).unwrap();
    let input = iota(&[2, 5]);
    let run = run(b, &[p0, p1], std::slice::from_ref(&input));
    check(&run.outputs[0], DType::F32, &[2, 2], &[0., 1., 5., 6.]);
    check(
        &run.outputs[1],
        DType::F32,
        &[2, 3],
        &[2., 3., 4., 7., 8., 9.],
    );
    assert!(run.outputs.iter().all(|o| o.shares_storage(&input)));
    assert_eq!(run.outputs[1].offset(), 2);
    assert_eq!(run.stats.num_kernels(), 0);
}

#[test]
fn reshape_copies_only_when_it_must() {
    // Contiguous: a view.
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let r = b.call("reshape.default", vec![n(x), ints(&[6])]).unwrap();
    let input = iota(&[2, 3]);
    let viewed = run(b, &[r], std::slice::from_ref(&input));
    assert!(viewed.outputs[0].shares_storage(&input));
    assert!(viewed.stats.ops[0].is_view);

    // Transposed: a copy, counted as a kernel.
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let t = b.call("t.default", vec![n(x)]).unwrap();
    let r = b.call("reshape.default", vec![n(t), ints(&[6])]).unwrap();
    let run2 = run(b, &[r], std::slice::from_ref(&input));
    let y = &run2.outputs[0];
    assert!(!y.shares_storage(&input));
    check(y, DType::F32, &[6], &[0., 3., 1., 4., 2., 5.]);
    assert_eq!(run2.stats.num_kernels(), 1);
    assert_eq!(run2.stats.ops[1].bytes_read, 24);
}

#[test]
fn clone_copies_into_contiguous_storage() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 3]);
    let t = b.call("t.default", vec![n(x)]).unwrap();
    let c = b.call("clone.default", vec![n(t)]).unwrap();
    let input = iota(&[2, 3]);
    let y = run1(b, c, std::slice::from_ref(&input));
    assert!(!y.shares_storage(&input));
    assert!(y.is_contiguous());
    check(&y, DType::F32, &[3, 2], &[0., 3., 1., 4., 2., 5.]);
}

#[test]
fn cat_along_dims_with_promotion() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[2, 2]);
    let y = b.input("y", DType::F32, &[2, 1]);
    let c1 = b
        .call(
            "cat.default",
            vec![Arg::List(vec![n(x), n(y)]), Arg::Int(1)],
        )
        .unwrap();
    let c0 = b
        .call("cat.default", vec![Arg::List(vec![n(x), n(x)])])
        .unwrap();
    let run = run(
        b,
        &[c1, c0],
        &[f32s(&[1., 2., 3., 4.], &[2, 2]), f32s(&[5., 6.], &[2, 1])],
    );
    check(
        &run.outputs[0],
        DType::F32,
        &[2, 3],
        &[1., 2., 5., 3., 4., 6.],
    );
    check(
        &run.outputs[1],
        DType::F32,
        &[4, 2],
        &[1., 2., 3., 4., 1., 2., 3., 4.],
    );

    // i64 and f32 promote to f32; 1-D empty tensors are skipped.
    let mut b = GraphBuilder::new();
    let i = b.input("i", DType::I64, &[2]);
    let f = b.input("f", DType::F32, &[1]);
    let e = b.input("e", DType::F32, &[0]);
    let c = b
        .call("cat.default", vec![Arg::List(vec![n(i), n(e), n(f)])])
        .unwrap();
    let y = run1(
        b,
        c,
        &[i64s(&[1, 2], &[2]), f32s(&[0.5], &[1]), f32s(&[], &[0])],
    );
    check(&y, DType::F32, &[3], &[1., 2., 0.5]);
}
