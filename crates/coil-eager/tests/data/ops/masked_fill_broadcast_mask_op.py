class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3, 4]", xs_1: "b8[1, 4]", xs_2: "b8[3, 1]"):
        masked_fill: "f32[2, 3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_1, 2.0);  xs_1 = None
        masked_fill_1: "f32[2, 3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_2, -3.0);  xs_0 = xs_2 = None
        return (masked_fill, masked_fill_1)
