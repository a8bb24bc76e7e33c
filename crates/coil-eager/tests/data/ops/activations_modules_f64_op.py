class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f64[6, 8]"):
        hardswish: "f64[6, 8]" = torch.ops.aten.hardswish.default(xs_0)
        hardsigmoid: "f64[6, 8]" = torch.ops.aten.hardsigmoid.default(xs_0)
        softplus: "f64[6, 8]" = torch.ops.aten.softplus.default(xs_0, 3.0, 2.0)
        elu: "f64[6, 8]" = torch.ops.aten.elu.default(xs_0, 1.5)
        leaky_relu: "f64[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, 0.3)
        hardtanh: "f64[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, -0.5, 0.5);  xs_0 = None
        return (hardswish, hardsigmoid, softplus, elu, leaky_relu, hardtanh)
