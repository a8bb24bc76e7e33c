class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 6, 2]", xs_1: "i64[5]"):
        index: "f32[3, 5, 2]" = torch.ops.aten.index.Tensor(xs_0, [None, xs_1]);  xs_0 = xs_1 = None
        return (index,)
