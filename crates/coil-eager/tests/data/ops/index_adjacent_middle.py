class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 4, 5, 3]", xs_1: "i64[2, 2]", xs_2: "i64[2]"):
        index: "f32[2, 2, 2, 3]" = torch.ops.aten.index.Tensor(xs_0, [None, xs_1, xs_2]);  xs_0 = xs_1 = xs_2 = None
        return (index,)
