class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i16[5, 6]", xs_1: "i16[5, 6]"):
        add: "i16[5, 6]" = torch.ops.aten.add.Tensor(xs_0, xs_1)
        mul: "i16[5, 6]" = torch.ops.aten.mul.Tensor(xs_0, xs_1)
        mul_1: "i16[5, 6]" = torch.ops.aten.mul.Tensor(xs_0, xs_1);  xs_1 = None
        div: "i16[5, 6]" = torch.ops.aten.div.Tensor_mode(mul_1, 3, rounding_mode = 'floor');  mul_1 = None
        sub: "i16[5, 6]" = torch.ops.aten.sub.Tensor(xs_0, 30000)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i8[5, 6]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.int8)
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "u8[5, 6]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.uint8)
        cumsum: "i64[5, 6]" = torch.ops.aten.cumsum.default(xs_0, 1)
        prod: "i64[5]" = torch.ops.aten.prod.dim_int(xs_0, 1)
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy_2: "f32[5, 6]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.float32)
        sin: "f32[5, 6]" = torch.ops.aten.sin.default(_to_copy_2);  _to_copy_2 = None
        _assert_tensor_metadata_3 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_3 = None
        _to_copy_3: "bf16[5, 6]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.bfloat16);  xs_0 = None
        return (add, mul, div, sub, _to_copy, _to_copy_1, cumsum, prod, sin, _to_copy_3)
