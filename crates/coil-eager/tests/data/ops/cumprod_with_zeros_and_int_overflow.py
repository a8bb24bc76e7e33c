class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 4]", xs_1: "i64[4]"):
        cumprod: "f32[2, 4]" = torch.ops.aten.cumprod.default(xs_0, 1);  xs_0 = None
        cumprod_1: "i64[4]" = torch.ops.aten.cumprod.default(xs_1, 0);  xs_1 = None
        return (cumprod, cumprod_1)
