class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 5]", xs_1: "i64[3, 2]"):
        scatter: "f32[3, 5]" = torch.ops.aten.scatter.value(xs_0, 1, xs_1, 7.5)
        scatter_1: "f32[3, 5]" = torch.ops.aten.scatter.value(xs_0, 1, xs_1, -2);  xs_0 = xs_1 = None
        return (scatter, scatter_1)
