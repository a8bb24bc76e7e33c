class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4]", xs_1: "b8[2, 3]"):
        constant_pad_nd: "i64[3, 5]" = torch.ops.aten.constant_pad_nd.default(xs_0, [2, -1], 7.0);  xs_0 = None
        constant_pad_nd_1: "b8[3, 4]" = torch.ops.aten.constant_pad_nd.default(xs_1, [1, 0, 0, 1], 1.0);  xs_1 = None
        return (constant_pad_nd, constant_pad_nd_1)
