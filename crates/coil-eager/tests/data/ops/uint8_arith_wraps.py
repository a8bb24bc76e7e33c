class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "u8[3, 7]", xs_1: "u8[3, 7]", xs_2: "i8[3, 7]"):
        add: "u8[3, 7]" = torch.ops.aten.add.Tensor(xs_0, xs_1)
        sub: "u8[3, 7]" = torch.ops.aten.sub.Tensor(xs_0, xs_1)
        mul: "u8[3, 7]" = torch.ops.aten.mul.Tensor(xs_0, xs_1)
        div: "u8[3, 7]" = torch.ops.aten.div.Tensor_mode(xs_0, 3, rounding_mode = 'floor')
        gt: "b8[3, 7]" = torch.ops.aten.gt.Tensor(xs_0, xs_1)
        add_1: "i16[3, 7]" = torch.ops.aten.add.Tensor(xs_0, xs_2);  xs_2 = None
        sub_1: "u8[3, 7]" = torch.ops.aten.sub.Tensor(xs_0, xs_1)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(sub_1, None, None, torch.uint8, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i64[3, 7]" = torch.ops.aten._to_copy.default(sub_1, dtype = torch.int64);  sub_1 = None
        sum_1: "i64[7]" = torch.ops.aten.sum.dim_IntList(xs_0, [0])
        amin: "u8[3]" = torch.ops.aten.amin.default(xs_0, [1])
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.uint8, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "f32[3, 7]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.float32)
        sub_2: "f32[3, 7]" = torch.ops.aten.sub.Tensor(_to_copy_1, 128.5);  _to_copy_1 = None
        minimum: "u8[3, 7]" = torch.ops.aten.minimum.default(xs_0, xs_1);  xs_1 = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.uint8, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy_2: "i16[3, 7]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.int16);  xs_0 = None
        mul_1: "i16[3, 7]" = torch.ops.aten.mul.Tensor(_to_copy_2, 300);  _to_copy_2 = None
        return (add, sub, mul, div, gt, add_1, _to_copy, sum_1, amin, sub_2, minimum, mul_1)
