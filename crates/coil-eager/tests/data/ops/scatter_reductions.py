class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[5, 6]", xs_1: "i64[5, 6]", xs_2: "i64[4, 6]", xs_3: "f32[4, 6]", xs_4: "i64[4, 6]"):
        scatter_reduce: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'sum')
        scatter_reduce_1: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'sum', include_self = False)
        scatter_reduce_2: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'prod')
        scatter_reduce_3: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'prod', include_self = False)
        scatter_reduce_4: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'mean')
        scatter_reduce_5: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'mean', include_self = False)
        scatter_reduce_6: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'amax')
        scatter_reduce_7: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'amax', include_self = False)
        scatter_reduce_8: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'amin')
        scatter_reduce_9: "f32[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_0, 0, xs_2, xs_3, 'amin', include_self = False)
        scatter_reduce_10: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'sum')
        scatter_reduce_11: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'sum', include_self = False)
        scatter_reduce_12: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'mean')
        scatter_reduce_13: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'mean', include_self = False)
        scatter_reduce_14: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'amax')
        scatter_reduce_15: "i64[5, 6]" = torch.ops.aten.scatter_reduce.two(xs_1, 0, xs_2, xs_4, 'amax', include_self = False)
        scatter: "f32[5, 6]" = torch.ops.aten.scatter.reduce(xs_0, 0, xs_2, xs_3, reduce = 'add')
        scatter_1: "f32[5, 6]" = torch.ops.aten.scatter.reduce(xs_0, 0, xs_2, xs_3, reduce = 'multiply');  xs_3 = None
        slice_1: "i64[4, 3]" = torch.ops.aten.slice.Tensor(xs_2, 1, 0, 3)
        scatter_2: "f32[5, 6]" = torch.ops.aten.scatter.value_reduce(xs_0, 1, slice_1, 1.5, reduce = 'multiply');  xs_0 = slice_1 = None
        scatter_3: "i64[5, 6]" = torch.ops.aten.scatter.reduce(xs_1, 0, xs_2, xs_4, reduce = 'add');  xs_1 = xs_2 = xs_4 = None
        return (scatter_reduce, scatter_reduce_1, scatter_reduce_2, scatter_reduce_3, scatter_reduce_4, scatter_reduce_5, scatter_reduce_6, scatter_reduce_7, scatter_reduce_8, scatter_reduce_9, scatter_reduce_10, scatter_reduce_11, scatter_reduce_12, scatter_reduce_13, scatter_reduce_14, scatter_reduce_15, scatter, scatter_1, scatter_2, scatter_3)
