class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]", xs_1: "i64[2]"):
        index_select: "i64[2, 2]" = torch.ops.aten.index_select.default(xs_0, 1, xs_1);  xs_0 = xs_1 = None
        return (index_select,)
