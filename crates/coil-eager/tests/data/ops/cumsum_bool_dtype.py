class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[3, 4]"):
        cumsum: "f32[3, 4]" = torch.ops.aten.cumsum.default(xs_0, 0, dtype = torch.float32)
        cumsum_1: "i64[3, 4]" = torch.ops.aten.cumsum.default(xs_0, -1)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.bool, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i32[3, 4]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.int32);  xs_0 = None
        cumsum_2: "i64[3, 4]" = torch.ops.aten.cumsum.default(_to_copy, 0);  _to_copy = None
        return (cumsum, cumsum_1, cumsum_2)
