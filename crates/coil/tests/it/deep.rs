//! Deep graphs (issue 16): a chain of 7,000 pointwise ops goes through the parser, the
//! passes (no recursion over the graph's depth in their conversions), the lowering, the
//! scheduler, the kernel builder and coil-eager on a test thread's small stack.

use coil::Options;
use coil_codegen::InterpBackend;
use coil_graph::{Data, Tensor};
use coil_testkit::check_outputs;

/// `x`, then `n` alternating `neg` and `relu` ops.
fn chain(n: usize) -> String {
    let mut text = String::from(
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[8]\"):\n",
    );
    let mut prev = "x".to_string();
    for i in 0..n {
        let op = if i % 2 == 0 { "neg" } else { "relu" };
        text.push_str(&format!(
            "        v{i}: \"f32[8]\" = torch.ops.aten.{op}.default({prev})\n"
        ));
        prev = format!("v{i}");
    }
    text.push_str(&format!("        return ({prev},)\n"));
    text
}

#[test]
fn a_chain_of_7000_ops_compiles_and_runs() {
    let g = coil_graph::parse(&chain(7000)).expect("parses");
    let x =
        Tensor::new(Data::F32((0..8).map(|i| i as f32 - 3.5).collect()), vec![8]).expect("tensor");
    let want = coil_eager::run(&g, std::slice::from_ref(&x))
        .expect("eager runs")
        .outputs;
    let prepared = coil::prepare(&g, &InterpBackend::new(), &Options::default())
        .expect("passes, lowering, scheduling and kernels");
    assert!(prepared.report.num_kernels >= 1);
    let model = coil::compile(
        &g,
        std::sync::Arc::new(InterpBackend::new()),
        &Options::default(),
    )
    .expect("compiles");
    let got = model.run(std::slice::from_ref(&x)).expect("runs");
    check_outputs(&got, &want, 0.0, 0.0).expect("same as eager");
}
