class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 6]"):
        permute: "f32[6, 4]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        clone: "f32[6, 4]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format);  permute = None
        view: "f32[24]" = torch.ops.aten.view.default(clone, [24]);  clone = None
        as_strided: "f32[3, 4]" = torch.ops.aten.as_strided.default(view, [3, 4], [1, 3], 2);  view = None
        add: "f32[4, 6]" = torch.ops.aten.add.Tensor(xs_0, 0)
        split_with_sizes = torch.ops.aten.split_with_sizes.default(add, [2, 4], 1);  add = None
        getitem_1: "f32[4, 4]" = split_with_sizes[1];  split_with_sizes = None
        as_strided_1: "f32[2, 5]" = torch.ops.aten.as_strided.default(getitem_1, [2, 5], [6, 1]);  getitem_1 = None
        permute_1: "f32[6, 4]" = torch.ops.aten.permute.default(xs_0, [1, 0]);  xs_0 = None
        as_strided_2: "f32[6, 2]" = torch.ops.aten.as_strided.default(permute_1, [6, 2], [1, 6]);  permute_1 = None
        clone_1: "f32[3, 4]" = torch.ops.aten.clone.default(as_strided);  as_strided = None
        clone_2: "f32[2, 5]" = torch.ops.aten.clone.default(as_strided_1);  as_strided_1 = None
        clone_3: "f32[6, 2]" = torch.ops.aten.clone.default(as_strided_2);  as_strided_2 = None
        return (clone_1, clone_2, clone_3)
