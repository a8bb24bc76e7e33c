class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[77]", xs_1: "i64[77]", xs_2: "i8[77]", xs_3: "i8[77]", xs_4: "u8[77]", xs_5: "u8[77]"):
        pow_1: "i64[77]" = torch.ops.aten.pow.Tensor_Tensor(xs_0, xs_1)
        pow_2: "i8[77]" = torch.ops.aten.pow.Tensor_Tensor(xs_2, xs_3);  xs_2 = xs_3 = None
        pow_3: "u8[77]" = torch.ops.aten.pow.Tensor_Tensor(xs_4, xs_5);  xs_4 = xs_5 = None
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i32[77]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.int32);  xs_0 = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_1, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "i32[77]" = torch.ops.aten._to_copy.default(xs_1, dtype = torch.int32);  xs_1 = None
        pow_4: "i32[77]" = torch.ops.aten.pow.Tensor_Tensor(_to_copy, _to_copy_1);  _to_copy = _to_copy_1 = None
        return (pow_1, pow_2, pow_3, pow_4)
