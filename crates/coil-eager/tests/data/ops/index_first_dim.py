class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[5, 3, 2]", xs_1: "i64[3, 2]"):
        index: "f32[3, 2, 3, 2]" = torch.ops.aten.index.Tensor(xs_0, [xs_1])
        index_1: "f32[3, 2, 3, 2]" = torch.ops.aten.index.Tensor(xs_0, [xs_1]);  xs_0 = xs_1 = None
        sum_1: "f32[3, 2, 3]" = torch.ops.aten.sum.dim_IntList(index_1, [-1]);  index_1 = None
        return (index, sum_1)
