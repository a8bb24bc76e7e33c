class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i8[3, 8]", xs_1: "u8[3, 8]", xs_2: "i16[3, 8]", xs_3: "i32[3, 8]", xs_4: "i64[8]", xs_5: "b8[3, 8]"):
        bitwise_and: "i8[3, 8]" = torch.ops.aten.bitwise_and.Scalar(xs_0, 90)
        bitwise_or: "i16[3, 8]" = torch.ops.aten.bitwise_or.Tensor(xs_0, xs_1)
        bitwise_xor: "i16[3, 8]" = torch.ops.aten.bitwise_xor.Tensor(xs_0, xs_2)
        bitwise_xor_1: "u8[3, 8]" = torch.ops.aten.bitwise_xor.Scalar(xs_1, 255)
        bitwise_and_1: "i32[3, 8]" = torch.ops.aten.bitwise_and.Tensor(xs_3, xs_2)
        gt: "b8[3, 8]" = torch.ops.aten.gt.Scalar(xs_1, 100)
        bitwise_and_2: "b8[3, 8]" = torch.ops.aten.bitwise_and.Tensor(xs_5, gt);  gt = None
        t: "b8[8, 3]" = torch.ops.aten.t.default(xs_5)
        t_1: "b8[3, 8]" = torch.ops.aten.t.default(t);  t = None
        bitwise_xor_2: "b8[3, 8]" = torch.ops.aten.bitwise_xor.Tensor(xs_5, t_1);  xs_5 = t_1 = None
        lshift: "i8[3, 8]" = torch.ops.aten.__lshift__.Scalar(xs_0, 3)
        rshift: "i8[3, 8]" = torch.ops.aten.__rshift__.Scalar(xs_0, 2)
        lshift_1: "u8[3, 8]" = torch.ops.aten.__lshift__.Scalar(xs_1, 2)
        rshift_1: "u8[3, 8]" = torch.ops.aten.__rshift__.Scalar(xs_1, 3)
        lshift_2: "i16[3, 8]" = torch.ops.aten.__lshift__.Scalar(xs_2, 5)
        rshift_2: "i16[3, 8]" = torch.ops.aten.__rshift__.Scalar(xs_2, 9);  xs_2 = None
        lshift_3: "i32[3, 8]" = torch.ops.aten.__lshift__.Scalar(xs_3, 7)
        rshift_3: "i32[3, 8]" = torch.ops.aten.__rshift__.Scalar(xs_3, 17)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_4, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i8[8]" = torch.ops.aten._to_copy.default(xs_4, dtype = torch.int8)
        lshift_4: "i8[3, 8]" = torch.ops.aten.__lshift__.Tensor(xs_0, _to_copy);  _to_copy = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_4, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "i8[8]" = torch.ops.aten._to_copy.default(xs_4, dtype = torch.int8)
        rshift_4: "i8[3, 8]" = torch.ops.aten.__rshift__.Tensor(xs_0, _to_copy_1);  _to_copy_1 = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(xs_4, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy_2: "u8[8]" = torch.ops.aten._to_copy.default(xs_4, dtype = torch.uint8)
        rshift_5: "u8[3, 8]" = torch.ops.aten.__rshift__.Tensor(xs_1, _to_copy_2);  xs_1 = _to_copy_2 = None
        _assert_tensor_metadata_3 = torch.ops.aten._assert_tensor_metadata.default(xs_4, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_3 = None
        _to_copy_3: "i32[8]" = torch.ops.aten._to_copy.default(xs_4, dtype = torch.int32)
        lshift_5: "i32[3, 8]" = torch.ops.aten.__lshift__.Tensor(xs_3, _to_copy_3);  xs_3 = _to_copy_3 = None
        lshift_6: "i64[8]" = torch.ops.aten.__lshift__.Tensor(xs_4, xs_4)
        sub: "i64[8]" = torch.ops.aten.sub.Tensor(xs_4, 3)
        rshift_6: "i64[8]" = torch.ops.aten.__rshift__.Tensor(sub, xs_4);  sub = xs_4 = None
        bitwise_xor_3: "i8[3, 8]" = torch.ops.aten.bitwise_xor.Scalar(xs_0, 1);  xs_0 = None
        lshift_7: "i8[3, 8]" = torch.ops.aten.__lshift__.Scalar(bitwise_xor_3, 1);  bitwise_xor_3 = None
        return (bitwise_and, bitwise_or, bitwise_xor, bitwise_xor_1, bitwise_and_1, bitwise_and_2, bitwise_xor_2, lshift, rshift, lshift_1, rshift_1, lshift_2, rshift_2, lshift_3, rshift_3, lshift_4, rshift_4, rshift_5, lshift_5, lshift_6, rshift_6, lshift_7)
