class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 3, 4]"):
        constant_pad_nd: "f32[5, 3, 4]" = torch.ops.aten.constant_pad_nd.default(xs_0, [1, -1, -1, 1, 2, 0], 0.0)
        constant_pad_nd_1: "f32[1, 3, 4]" = torch.ops.aten.constant_pad_nd.default(xs_0, [0, 0, 0, 0, -1, -1], 0.0)
        constant_pad_nd_2: "f32[3, 3, 10]" = torch.ops.aten.constant_pad_nd.default(xs_0, [3, 3], -0.0);  xs_0 = None
        return (constant_pad_nd, constant_pad_nd_1, constant_pad_nd_2)
