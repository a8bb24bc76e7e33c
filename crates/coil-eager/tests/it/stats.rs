//! Traffic counting: distinct inputs once at their own size, outputs, views free.

use coil_graph::{Arg, DType, GraphBuilder};

use crate::*;

#[test]
fn bytes_model_pytorch_eager() {
    let mut b = GraphBuilder::new();
    let x = b.input("x", DType::F32, &[4, 8]);
    let bias = b.input("bias", DType::F32, &[8]);
    let add = b.call("add.Tensor", vec![n(x), n(bias)]).unwrap();
    let sq = b.call("mul.Tensor", vec![n(add), n(add)]).unwrap();
    let flat = b.call("view.default", vec![n(sq), ints(&[32])]).unwrap();
    let s = b.call("sum.default", vec![n(flat)]).unwrap();
    let full = b
        .call("full.default", vec![ints(&[2]), Arg::Float(1.0)])
        .unwrap();
    let run = run(b, &[s, full], &[iota(&[4, 8]), iota(&[8])]);
    let st = &run.stats;
    let rows: Vec<(&str, &str, usize, usize, bool)> = st
        .ops
        .iter()
        .map(|o| {
            (
                o.node.as_str(),
                o.op.as_str(),
                o.bytes_read,
                o.bytes_written,
                o.is_view,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            // The bias is read at its own size, not broadcast.
            ("add", "aten.add.Tensor", 128 + 32, 128, false),
            // The same tensor twice is read once.
            ("mul", "aten.mul.Tensor", 128, 128, false),
            ("view", "aten.view.default", 0, 0, true),
            ("sum", "aten.sum.default", 128, 4, false),
            // Factories only write.
            ("full", "aten.full.default", 0, 8, false),
        ]
    );
    assert_eq!(st.num_ops(), 5);
    assert_eq!(st.num_kernels(), 4);
    assert_eq!(st.bytes_read(), 160 + 128 + 128);
    assert_eq!(st.bytes_written(), 128 + 128 + 4 + 8);
    assert_eq!(st.bytes(), st.bytes_read() + st.bytes_written());
}
