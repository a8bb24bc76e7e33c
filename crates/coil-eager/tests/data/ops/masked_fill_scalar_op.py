class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]", xs_1: "b8[3, 4]"):
        masked_fill: "f32[3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_1, -1.5)
        masked_fill_1: "f32[3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_1, -inf)
        masked_fill_2: "f32[3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_1, 0);  xs_0 = xs_1 = None
        return (masked_fill, masked_fill_1, masked_fill_2)
