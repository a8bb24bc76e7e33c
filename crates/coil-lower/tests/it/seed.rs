//! The seed model after decomposition lowers to Inductor's two buffers.

use crate::common::{graph, lower};

/// `seed_model` as coil-passes decomposes it: `mean` -> `sum` then `mul` by 1/1024.
pub const SEED_DECOMPOSED: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1024, 1024]", bias: "f32[1024]", gamma: "f32[1024]", beta: "f32[1024]"):
        mul: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(x, 1.1);  x = None
        add: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul, bias);  mul = bias = None
        relu: "f32[1024, 1024]" = torch.ops.aten.relu.default(add);  add = None
        mul_1: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, relu)
        mul_2: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(relu, 0.1);  relu = None
        add_1: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_1, mul_2);  mul_1 = mul_2 = None
        sum_1: "f32[1024, 1]" = torch.ops.aten.sum.dim_IntList(add_1, [1], True)
        mul_3: "f32[1024, 1]" = torch.ops.aten.mul.Tensor(sum_1, 0.0009765625);  sum_1 = None
        sub: "f32[1024, 1024]" = torch.ops.aten.sub.Tensor(add_1, mul_3);  add_1 = mul_3 = None
        mul_4: "f32[1024, 1024]" = torch.ops.aten.mul.Tensor(sub, gamma);  sub = gamma = None
        add_2: "f32[1024, 1024]" = torch.ops.aten.add.Tensor(mul_4, beta);  mul_4 = beta = None
        return (add_2,)
"#;

#[test]
fn seed_model_dump() {
    let l = lower(&graph(SEED_DECOMPOSED));
    println!("{}", l.ir_pre_fusion());
    assert_eq!(l.buffers().len(), 2);
}
