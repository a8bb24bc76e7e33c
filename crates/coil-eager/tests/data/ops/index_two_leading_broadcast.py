class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 5, 2]", xs_1: "i64[3, 1]", xs_2: "i64[4]"):
        index: "f32[3, 4, 2]" = torch.ops.aten.index.Tensor(xs_0, [xs_1, xs_2]);  xs_0 = xs_1 = xs_2 = None
        return (index,)
