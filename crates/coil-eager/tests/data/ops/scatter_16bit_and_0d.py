class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "bf16[4, 4]", xs_1: "f16[4, 4]", xs_2: "i64[2, 3]", xs_3: "bf16[2, 5]", xs_4: "f16[3, 4]", xs_5: "f32[]", xs_6: "i64[]", xs_7: "f32[]"):
        scatter_add: "bf16[4, 4]" = torch.ops.aten.scatter_add.default(xs_0, 0, xs_2, xs_3)
        scatter_add_1: "f16[4, 4]" = torch.ops.aten.scatter_add.default(xs_1, 1, xs_2, xs_4)
        slice_1: "bf16[2, 3]" = torch.ops.aten.slice.Tensor(xs_3, 1, 0, 3);  xs_3 = None
        scatter: "bf16[4, 4]" = torch.ops.aten.scatter.src(xs_0, 1, xs_2, slice_1);  xs_0 = slice_1 = None
        scatter_1: "f32[]" = torch.ops.aten.scatter.src(xs_5, 0, xs_6, xs_7);  xs_5 = xs_6 = xs_7 = None
        select: "i64[3]" = torch.ops.aten.select.int(xs_2, 0, 0);  xs_2 = None
        select_1: "f16[4]" = torch.ops.aten.select.int(xs_4, 0, 0);  xs_4 = None
        index_put: "f16[4, 4]" = torch.ops.aten.index_put.default(xs_1, [select], select_1, True);  xs_1 = select = select_1 = None
        return (scatter_add, scatter_add_1, scatter, scatter_1, index_put)
