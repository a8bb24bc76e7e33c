class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[]"):
        arange: "i64[100000]" = torch.ops.aten.arange.default(100000, device = device(type='cpu'), pin_memory = False)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(arange, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "f32[100000]" = torch.ops.aten._to_copy.default(arange, dtype = torch.float32);  arange = None
        view: "f32[2, 50000]" = torch.ops.aten.view.default(_to_copy, [2, 50000]);  _to_copy = None
        mul: "f32[2, 50000]" = torch.ops.aten.mul.Tensor(view, 0.37)
        sin: "f32[2, 50000]" = torch.ops.aten.sin.default(mul);  mul = None
        mul_1: "f32[2, 50000]" = torch.ops.aten.mul.Tensor(sin, xs_0);  sin = xs_0 = None
        mul_2: "f32[2, 50000]" = torch.ops.aten.mul.Tensor(view, 0.0001);  view = None
        add: "f32[2, 50000]" = torch.ops.aten.add.Tensor(mul_1, mul_2);  mul_1 = mul_2 = None
        topk = torch.ops.aten.topk.default(add, 8)
        getitem: "f32[2, 8]" = topk[0]
        getitem_1: "i64[2, 8]" = topk[1];  topk = None
        topk_1 = torch.ops.aten.topk.default(add, 5, -1, False)
        getitem_2: "f32[2, 5]" = topk_1[0]
        getitem_3: "i64[2, 5]" = topk_1[1];  topk_1 = None
        slice_1: "f32[2, 4000]" = torch.ops.aten.slice.Tensor(add, 1, 0, 4000);  add = None
        topk_2 = torch.ops.aten.topk.default(slice_1, 16);  slice_1 = None
        getitem_4: "f32[2, 16]" = topk_2[0]
        getitem_5: "i64[2, 16]" = topk_2[1];  topk_2 = None
        return (getitem, getitem_1, getitem_2, getitem_3, getitem_4, getitem_5)
