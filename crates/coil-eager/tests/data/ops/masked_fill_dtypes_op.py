class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]", xs_1: "b8[2, 4]", xs_2: "b8[2, 4]"):
        masked_fill: "i64[2, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_2, 2.7)
        masked_fill_1: "i64[2, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_2, -2.7);  xs_0 = None
        masked_fill_2: "b8[2, 4]" = torch.ops.aten.masked_fill.Scalar(xs_1, xs_2, 5)
        masked_fill_3: "b8[2, 4]" = torch.ops.aten.masked_fill.Scalar(xs_1, xs_2, 0);  xs_1 = xs_2 = None
        return (masked_fill, masked_fill_1, masked_fill_2, masked_fill_3)
