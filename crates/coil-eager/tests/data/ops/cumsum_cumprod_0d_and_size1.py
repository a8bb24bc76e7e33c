class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[]", xs_1: "f32[1, 4]"):
        cumsum: "f32[]" = torch.ops.aten.cumsum.default(xs_0, 0)
        cumprod: "f32[]" = torch.ops.aten.cumprod.default(xs_0, -1);  xs_0 = None
        cumsum_1: "f32[1, 4]" = torch.ops.aten.cumsum.default(xs_1, 1)
        cumprod_1: "f32[1, 4]" = torch.ops.aten.cumprod.default(xs_1, 0);  xs_1 = None
        return (cumsum, cumprod, cumsum_1, cumprod_1)
