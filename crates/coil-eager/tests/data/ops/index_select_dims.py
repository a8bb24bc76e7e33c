class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 5, 3]", xs_1: "i64[3]"):
        index_select: "f32[3, 5, 3]" = torch.ops.aten.index_select.default(xs_0, 0, xs_1)
        index_select_1: "f32[4, 3, 3]" = torch.ops.aten.index_select.default(xs_0, 1, xs_1)
        index_select_2: "f32[4, 5, 3]" = torch.ops.aten.index_select.default(xs_0, -1, xs_1);  xs_0 = xs_1 = None
        return (index_select, index_select_1, index_select_2)
