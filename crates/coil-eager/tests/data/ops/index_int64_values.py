class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 5]", xs_1: "i64[3]"):
        index: "i64[3, 3]" = torch.ops.aten.index.Tensor(xs_0, [None, xs_1]);  xs_0 = xs_1 = None
        return (index,)
