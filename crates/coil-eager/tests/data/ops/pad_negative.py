class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 4, 5]"):
        constant_pad_nd: "f32[2, 4, 2]" = torch.ops.aten.constant_pad_nd.default(xs_0, [-1, -2], 0.0)
        constant_pad_nd_1: "f32[2, 3, 6]" = torch.ops.aten.constant_pad_nd.default(xs_0, [-1, 2, 1, -2], 0.0)
        constant_pad_nd_2: "f32[2, 3, 5]" = torch.ops.aten.constant_pad_nd.default(xs_0, [0, 0, -1, 0], 5.0);  xs_0 = None
        return (constant_pad_nd, constant_pad_nd_1, constant_pad_nd_2)
