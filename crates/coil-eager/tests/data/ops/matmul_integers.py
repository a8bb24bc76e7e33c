class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i16[3, 5]", xs_1: "i16[5, 4]", xs_2: "u8[2, 6]", xs_3: "u8[6, 3]", xs_4: "i64[2, 3, 4]", xs_5: "i64[2, 4, 5]"):
        mm: "i16[3, 4]" = torch.ops.aten.mm.default(xs_0, xs_1)
        mm_1: "u8[2, 3]" = torch.ops.aten.mm.default(xs_2, xs_3);  xs_2 = xs_3 = None
        expand: "i64[2, 3, 4]" = torch.ops.aten.expand.default(xs_4, [2, 3, 4]);  xs_4 = None
        view: "i64[2, 3, 4]" = torch.ops.aten.view.default(expand, [2, 3, 4]);  expand = None
        expand_1: "i64[2, 4, 5]" = torch.ops.aten.expand.default(xs_5, [2, 4, 5]);  xs_5 = None
        view_1: "i64[2, 4, 5]" = torch.ops.aten.view.default(expand_1, [2, 4, 5]);  expand_1 = None
        bmm: "i64[2, 3, 5]" = torch.ops.aten.bmm.default(view, view_1);  view = view_1 = None
        view_2: "i64[2, 3, 5]" = torch.ops.aten.view.default(bmm, [2, 3, 5]);  bmm = None
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i8[3, 5]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.int8);  xs_0 = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_1, None, None, torch.int16, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "i8[5, 4]" = torch.ops.aten._to_copy.default(xs_1, dtype = torch.int8);  xs_1 = None
        mm_2: "i8[3, 4]" = torch.ops.aten.mm.default(_to_copy, _to_copy_1);  _to_copy = _to_copy_1 = None
        return (mm, mm_1, view_2, mm_2)
