class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]", xs_1: "u8[4, 16]"):
        view: "u8[3, 16]" = torch.ops.aten.view.dtype(xs_0, torch.uint8)
        alias: "u8[3, 16]" = torch.ops.aten.alias.default(view);  view = None
        mul: "f32[3, 4]" = torch.ops.aten.mul.Tensor(xs_0, 2);  xs_0 = None
        view_1: "i16[3, 8]" = torch.ops.aten.view.dtype(mul, torch.int16);  mul = None
        alias_1: "i16[3, 8]" = torch.ops.aten.alias.default(view_1);  view_1 = None
        add: "i16[3, 8]" = torch.ops.aten.add.Tensor(alias_1, 1);  alias_1 = None
        view_2: "i32[4, 4]" = torch.ops.aten.view.dtype(xs_1, torch.int32)
        alias_2: "i32[4, 4]" = torch.ops.aten.alias.default(view_2);  view_2 = None
        view_3: "i64[4, 2]" = torch.ops.aten.view.dtype(xs_1, torch.int64)
        alias_3: "i64[4, 2]" = torch.ops.aten.alias.default(view_3);  view_3 = None
        view_4: "u8[4, 16]" = torch.ops.aten.view.dtype(alias_3, torch.uint8);  alias_3 = None
        alias_4: "u8[4, 16]" = torch.ops.aten.alias.default(view_4);  view_4 = None
        add_1: "u8[4, 16]" = torch.ops.aten.add.Tensor(alias_4, 0);  alias_4 = None
        view_5: "i16[4, 8]" = torch.ops.aten.view.dtype(xs_1, torch.int16);  xs_1 = None
        alias_5: "i16[4, 8]" = torch.ops.aten.alias.default(view_5);  view_5 = None
        slice_1: "i16[4, 2]" = torch.ops.aten.slice.Tensor(alias_5, 1, 1, 3);  alias_5 = None
        mul_1: "i16[4, 2]" = torch.ops.aten.mul.Tensor(slice_1, 3);  slice_1 = None
        return (alias, add, alias_2, add_1, mul_1)
