class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[16]", xs_1: "i64[16]"):
        arange: "i64[60000]" = torch.ops.aten.arange.start_step(0, 60000, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        mul: "i64[60000]" = torch.ops.aten.mul.Tensor(arange, 7919)
        remainder: "i64[60000]" = torch.ops.aten.remainder.Scalar(mul, 16);  mul = None
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(arange, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "f32[60000]" = torch.ops.aten._to_copy.default(arange, dtype = torch.float32)
        sin: "f32[60000]" = torch.ops.aten.sin.default(_to_copy);  _to_copy = None
        remainder_1: "i64[60000]" = torch.ops.aten.remainder.Scalar(arange, 11);  arange = None
        sub: "i64[60000]" = torch.ops.aten.sub.Tensor(remainder_1, 5);  remainder_1 = None
        scatter_add: "f32[16]" = torch.ops.aten.scatter_add.default(xs_0, 0, remainder, sin)
        scatter_add_1: "i64[16]" = torch.ops.aten.scatter_add.default(xs_1, 0, remainder, sub);  xs_1 = sub = None
        index_put: "f32[16]" = torch.ops.aten.index_put.default(xs_0, [remainder], sin, True);  xs_0 = remainder = sin = None
        return (scatter_add, scatter_add_1, index_put)
