class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 5]", xs_1: "i64[4, 2]"):
        cumsum: "f64[2, 5]" = torch.ops.aten.cumsum.default(xs_0, 1, dtype = torch.float64);  xs_0 = None
        cumsum_1: "f32[4, 2]" = torch.ops.aten.cumsum.default(xs_1, 0, dtype = torch.float32);  xs_1 = None
        return (cumsum, cumsum_1)
