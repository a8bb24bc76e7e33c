class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 5]", xs_1: "i64[2, 5]", xs_2: "f32[5, 6]"):
        permute: "f32[5, 6]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        slice_1: "i64[2, 4]" = torch.ops.aten.slice.Tensor(xs_1, 1, 0, 4)
        permute_1: "i64[4, 2]" = torch.ops.aten.permute.default(slice_1, [1, 0]);  slice_1 = None
        clone: "i64[4, 2]" = torch.ops.aten.clone.default(permute_1, memory_format = torch.contiguous_format);  permute_1 = None
        permute_2: "f32[6, 5]" = torch.ops.aten.permute.default(xs_2, [1, 0])
        slice_2: "f32[4, 5]" = torch.ops.aten.slice.Tensor(permute_2, 0, 0, 4);  permute_2 = None
        slice_3: "f32[4, 2]" = torch.ops.aten.slice.Tensor(slice_2, 1, 0, 2);  slice_2 = None
        scatter: "f32[5, 6]" = torch.ops.aten.scatter.src(permute, 1, clone, slice_3);  permute = clone = slice_3 = None
        slice_4: "f32[5, 5]" = torch.ops.aten.slice.Tensor(xs_0, 0, 1, 9223372036854775807)
        expand: "i64[2, 5]" = torch.ops.aten.expand.default(xs_1, [2, 5])
        slice_5: "f32[2, 6]" = torch.ops.aten.slice.Tensor(xs_2, 0, 0, 2)
        slice_6: "f32[2, 5]" = torch.ops.aten.slice.Tensor(slice_5, 1, 0, 5);  slice_5 = None
        scatter_add: "f32[5, 5]" = torch.ops.aten.scatter_add.default(slice_4, 0, expand, slice_6);  slice_4 = expand = slice_6 = None
        select: "i64[5]" = torch.ops.aten.select.int(xs_1, 0, 0);  xs_1 = None
        slice_7: "i64[3]" = torch.ops.aten.slice.Tensor(select, 0, 0, 3);  select = None
        select_1: "f32[6]" = torch.ops.aten.select.int(xs_2, 0, 0);  xs_2 = None
        slice_8: "f32[5]" = torch.ops.aten.slice.Tensor(select_1, 0, 0, 5);  select_1 = None
        index_put: "f32[6, 5]" = torch.ops.aten.index_put.default(xs_0, [slice_7], slice_8, True);  xs_0 = slice_7 = slice_8 = None
        return (scatter, scatter_add, index_put)
