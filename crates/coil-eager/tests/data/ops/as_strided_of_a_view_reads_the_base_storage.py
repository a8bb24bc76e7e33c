class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3, 4, 5]"):
        constant_pad_nd: "f32[2, 3, 7, 8]" = torch.ops.aten.constant_pad_nd.default(xs_0, [1, 2, 2, 1], 0.0);  xs_0 = None
        as_strided: "f32[2, 3, 2, 6]" = torch.ops.aten.as_strided.default(constant_pad_nd, [2, 3, 2, 6], [168, 56, 16, 1])
        as_strided_1: "f32[2, 3, 2, 2, 3]" = torch.ops.aten.as_strided.default(as_strided, [2, 3, 2, 2, 3], [168, 56, 16, 9, 1]);  as_strided = None
        slice_1: "f32[2, 2, 7, 8]" = torch.ops.aten.slice.Tensor(constant_pad_nd, 1, 1, 9223372036854775807);  constant_pad_nd = None
        slice_2: "f32[2, 2, 4, 8]" = torch.ops.aten.slice.Tensor(slice_1, 2, 3, 9223372036854775807);  slice_1 = None
        as_strided_2: "f32[4, 5]" = torch.ops.aten.as_strided.default(slice_2, [4, 5], [7, 2])
        as_strided_3: "f32[3, 3]" = torch.ops.aten.as_strided.default(slice_2, [3, 3], [1, 9], 5);  slice_2 = None
        clone: "f32[2, 3, 2, 2, 3]" = torch.ops.aten.clone.default(as_strided_1);  as_strided_1 = None
        add: "f32[4, 5]" = torch.ops.aten.add.Tensor(as_strided_2, 1);  as_strided_2 = None
        mul: "f32[3, 3]" = torch.ops.aten.mul.Tensor(as_strided_3, 2);  as_strided_3 = None
        return (clone, add, mul)
