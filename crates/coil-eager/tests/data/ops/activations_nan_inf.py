class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[8]"):
        hardtanh: "f32[8]" = torch.ops.aten.hardtanh.default(xs_0, -1.0, 1.0)
        leaky_relu: "f32[8]" = torch.ops.aten.leaky_relu.default(xs_0, 0.1)
        elu: "f32[8]" = torch.ops.aten.elu.default(xs_0, 1.0)
        hardtanh_1: "f32[8]" = torch.ops.aten.hardtanh.default(xs_0, 0, 6)
        exp: "f32[8]" = torch.ops.aten.exp.default(xs_0)
        log1p: "f32[8]" = torch.ops.aten.log1p.default(exp);  exp = None
        gt: "b8[8]" = torch.ops.aten.gt.Scalar(xs_0, 20)
        where: "f32[8]" = torch.ops.aten.where.self(gt, xs_0, log1p);  gt = log1p = None
        add: "f32[8]" = torch.ops.aten.add.Tensor(xs_0, 3)
        clamp: "f32[8]" = torch.ops.aten.clamp.default(add, 0);  add = None
        clamp_1: "f32[8]" = torch.ops.aten.clamp.default(clamp, None, 6);  clamp = None
        mul: "f32[8]" = torch.ops.aten.mul.Tensor(xs_0, clamp_1);  clamp_1 = None
        div: "f32[8]" = torch.ops.aten.div.Tensor(mul, 6);  mul = None
        add_1: "f32[8]" = torch.ops.aten.add.Tensor(xs_0, 3);  xs_0 = None
        clamp_2: "f32[8]" = torch.ops.aten.clamp.default(add_1, 0);  add_1 = None
        clamp_3: "f32[8]" = torch.ops.aten.clamp.default(clamp_2, None, 6);  clamp_2 = None
        div_1: "f32[8]" = torch.ops.aten.div.Tensor(clamp_3, 6);  clamp_3 = None
        return (hardtanh, leaky_relu, elu, hardtanh_1, where, div, div_1)
