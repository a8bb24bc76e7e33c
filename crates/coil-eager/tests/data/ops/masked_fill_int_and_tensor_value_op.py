class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4]", xs_1: "b8[3, 4]", xs_2: "f32[3, 4]", xs_3: "f32[]"):
        masked_fill: "i64[3, 4]" = torch.ops.aten.masked_fill.Scalar(xs_0, xs_1, 7);  xs_0 = None
        masked_fill_1: "f32[3, 4]" = torch.ops.aten.masked_fill.Tensor(xs_2, xs_1, xs_3);  xs_2 = xs_1 = xs_3 = None
        return (masked_fill, masked_fill_1)
