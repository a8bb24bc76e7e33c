class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        leaky_relu: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0)
        leaky_relu_1: "f32[6, 8]" = torch.ops.aten.leaky_relu.default(xs_0, 0.2)
        elu: "f32[6, 8]" = torch.ops.aten.elu.default(xs_0, 1.0)
        elu_1: "f32[6, 8]" = torch.ops.aten.elu.default(xs_0, 0.5)
        elu_2: "f32[6, 8]" = torch.ops.aten.elu.default(xs_0, 1.6732632423543772, 1.0507009873554805);  xs_0 = None
        return (leaky_relu, leaky_relu_1, elu, elu_1, elu_2)
