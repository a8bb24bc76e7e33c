class GraphModule(torch.nn.Module):
    def forward(self, p_bias: "bf16[64]", p_gamma: "bf16[64]", p_beta: "bf16[64]", x: "bf16[64, 64]"):
        mul: "bf16[64, 64]" = torch.ops.aten.mul.Tensor(x, 1.1);  x = None
        add: "bf16[64, 64]" = torch.ops.aten.add.Tensor(mul, p_bias);  mul = p_bias = None
        relu: "bf16[64, 64]" = torch.ops.aten.relu.default(add);  add = None
        mul_1: "bf16[64, 64]" = torch.ops.aten.mul.Tensor(relu, relu)
        mul_2: "bf16[64, 64]" = torch.ops.aten.mul.Tensor(relu, 0.1);  relu = None
        add_1: "bf16[64, 64]" = torch.ops.aten.add.Tensor(mul_1, mul_2);  mul_1 = mul_2 = None
        mean: "bf16[64, 1]" = torch.ops.aten.mean.dim(add_1, [1], True)
        sub: "bf16[64, 64]" = torch.ops.aten.sub.Tensor(add_1, mean);  add_1 = mean = None
        mul_3: "bf16[64, 64]" = torch.ops.aten.mul.Tensor(sub, p_gamma);  sub = p_gamma = None
        add_2: "bf16[64, 64]" = torch.ops.aten.add.Tensor(mul_3, p_beta);  mul_3 = p_beta = None
        return (add_2,)
