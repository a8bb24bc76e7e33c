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

/// `x`, a fork, a chain of `n` ops on one side, and the join `add(chain, fork)`: the path from
/// the fork to its post-dominator is `n` nodes long (TVM's path walks must not recurse on it).
fn fork_join(n: usize) -> String {
    let mut text = String::from(
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[8]\"):\n        a: \"f32[8]\" = torch.ops.aten.neg.default(x)\n",
    );
    let mut prev = "a".to_string();
    for i in 0..n {
        let op = if i % 2 == 0 { "relu" } else { "neg" };
        text.push_str(&format!(
            "        v{i}: \"f32[8]\" = torch.ops.aten.{op}.default({prev})\n"
        ));
        prev = format!("v{i}");
    }
    text.push_str(&format!(
        "        out: \"f32[8]\" = torch.ops.aten.add.Tensor({prev}, a)\n        return (out,)\n"
    ));
    text
}

#[test]
fn every_strategy_schedules_a_long_fork_join_on_a_small_stack() {
    let g = coil_graph::parse(&fork_join(6000)).expect("parses");
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            for name in coil_sched::builtin_strategy_names() {
                let opts = Options::with_strategy(name).expect("strategy");
                let p = coil::prepare(&g, &InterpBackend::new(), &opts)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert!(p.report.num_kernels >= 1, "{name}");
            }
        })
        .expect("thread")
        .join()
        .expect("no stack overflow");
}
