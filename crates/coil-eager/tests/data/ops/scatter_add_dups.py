class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 4]", xs_1: "i64[3, 4]", xs_2: "f32[3, 5]"):
        scatter_add: "f32[4, 4]" = torch.ops.aten.scatter_add.default(xs_0, 0, xs_1, xs_2)
        scatter_add_1: "f32[4, 4]" = torch.ops.aten.scatter_add.default(xs_0, 1, xs_1, xs_2);  xs_0 = xs_1 = xs_2 = None
        return (scatter_add, scatter_add_1)
