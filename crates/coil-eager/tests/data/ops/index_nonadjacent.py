class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 3, 5]", xs_1: "i64[3]", xs_2: "i64[3]"):
        index: "f32[3, 3]" = torch.ops.aten.index.Tensor(xs_0, [xs_1, None, xs_2]);  xs_0 = xs_1 = xs_2 = None
        return (index,)
