class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 5]"):
        cumprod: "f32[3, 5]" = torch.ops.aten.cumprod.default(xs_0, 1)
        cumprod_1: "f32[3, 5]" = torch.ops.aten.cumprod.default(xs_0, -1);  xs_0 = None
        return (cumprod, cumprod_1)
