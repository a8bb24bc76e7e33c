class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f64[6, 8]"):
        add: "f64[6, 8]" = torch.ops.aten.add.Tensor(xs_0, 3)
        clamp: "f64[6, 8]" = torch.ops.aten.clamp.default(add, 0);  add = None
        clamp_1: "f64[6, 8]" = torch.ops.aten.clamp.default(clamp, None, 6);  clamp = None
        mul: "f64[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, clamp_1);  clamp_1 = None
        div: "f64[6, 8]" = torch.ops.aten.div.Tensor(mul, 6);  mul = None
        add_1: "f64[6, 8]" = torch.ops.aten.add.Tensor(xs_0, 3)
        clamp_2: "f64[6, 8]" = torch.ops.aten.clamp.default(add_1, 0);  add_1 = None
        clamp_3: "f64[6, 8]" = torch.ops.aten.clamp.default(clamp_2, None, 6);  clamp_2 = None
        div_1: "f64[6, 8]" = torch.ops.aten.div.Tensor(clamp_3, 6);  clamp_3 = None
        mul_1: "f64[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, 3.0)
        exp: "f64[6, 8]" = torch.ops.aten.exp.default(mul_1)
        log1p: "f64[6, 8]" = torch.ops.aten.log1p.default(exp);  exp = None
        div_2: "f64[6, 8]" = torch.ops.aten.div.Tensor(log1p, 3.0);  log1p = None
        gt: "b8[6, 8]" = torch.ops.aten.gt.Scalar(mul_1, 2.0);  mul_1 = None
        where: "f64[6, 8]" = torch.ops.aten.where.self(gt, xs_0, div_2);  gt = div_2 = None
        elu: "f64[6, 8]" = torch.ops.aten.elu.default(xs_0, 1.5)
        leaky_relu: "f64[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, 0.3)
        hardtanh: "f64[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, -0.5, 0.5);  xs_0 = None
        return (div, div_1, where, elu, leaky_relu, hardtanh)
