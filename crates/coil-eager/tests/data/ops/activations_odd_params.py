class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        leaky_relu: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, -0.5)
        leaky_relu_1: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, 2.0)
        elu: "f32[6, 8]" = torch.ops.aten.elu.default(xs_0, -1.5)
        hardtanh: "f32[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, 0.5, 0.5)
        mul: "f32[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, -1.0)
        exp: "f32[6, 8]" = torch.ops.aten.exp.default(mul)
        log1p: "f32[6, 8]" = torch.ops.aten.log1p.default(exp);  exp = None
        div: "f32[6, 8]" = torch.ops.aten.div.Tensor(log1p, -1.0);  log1p = None
        gt: "b8[6, 8]" = torch.ops.aten.gt.Scalar(mul, 3.0);  mul = None
        where: "f32[6, 8]" = torch.ops.aten.where.self(gt, xs_0, div);  gt = xs_0 = div = None
        return (leaky_relu, leaky_relu_1, elu, hardtanh, where)
