class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 5]", xs_1: "f32[2, 3]", xs_2: "f32[3, 2]", xs_3: "f32[]"):
        as_strided_scatter: "f32[4, 5]" = torch.ops.aten.as_strided_scatter.default(xs_0, xs_1, [2, 3], [5, 1], 4);  xs_1 = None
        mul: "f32[4, 5]" = torch.ops.aten.mul.Tensor(xs_0, 2)
        as_strided_scatter_1: "f32[4, 5]" = torch.ops.aten.as_strided_scatter.default(mul, xs_2, [3, 2], [1, 5]);  mul = xs_2 = None
        as_strided_scatter_2: "f32[4, 5]" = torch.ops.aten.as_strided_scatter.default(xs_0, xs_3, [], [], 19);  xs_3 = None
        add: "f32[4, 5]" = torch.ops.aten.add.Tensor(xs_0, 0);  xs_0 = None
        return (as_strided_scatter, as_strided_scatter_1, as_strided_scatter_2, add)
