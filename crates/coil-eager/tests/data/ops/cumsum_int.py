class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4, 2]", xs_1: "b8[3, 5]"):
        cumsum: "i64[3, 4, 2]" = torch.ops.aten.cumsum.default(xs_0, -2);  xs_0 = None
        cumsum_1: "i64[3, 5]" = torch.ops.aten.cumsum.default(xs_1, 1);  xs_1 = None
        return (cumsum, cumsum_1)
