class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        leaky_relu: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, -0.5)
        leaky_relu_1: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, 2.0)
        elu: "f32[6, 8]" = torch.ops.aten.elu.default(xs_0, -1.5)
        hardtanh: "f32[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, 0.5, 0.5)
        softplus: "f32[6, 8]" = torch.ops.aten.softplus.default(xs_0, -1.0, 3.0);  xs_0 = None
        return (leaky_relu, leaky_relu_1, elu, hardtanh, softplus)
