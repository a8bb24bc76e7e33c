class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[8]"):
        hardtanh: "f32[8]" = torch.ops.aten.hardtanh.default(xs_0, -1.0, 1.0)
        leaky_relu: "f32[8]" = torch.ops.aten.leaky_relu.default(xs_0, 0.1)
        elu: "f32[8]" = torch.ops.aten.elu.default(xs_0, 1.0)
        hardtanh_1: "f32[8]" = torch.ops.aten.hardtanh.default(xs_0, 0, 6)
        softplus: "f32[8]" = torch.ops.aten.softplus.default(xs_0)
        hardswish: "f32[8]" = torch.ops.aten.hardswish.default(xs_0)
        hardsigmoid: "f32[8]" = torch.ops.aten.hardsigmoid.default(xs_0);  xs_0 = None
        return (hardtanh, leaky_relu, elu, hardtanh_1, softplus, hardswish, hardsigmoid)
