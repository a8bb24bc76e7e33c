class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 4]", xs_1: "bf16[3, 5]", xs_2: "f16[3, 5]", xs_3: "u8[2, 6]", xs_4: "b8[2, 6]", xs_5: "i32[2, 4]"):
        add: "f32[2, 4]" = torch.ops.aten.add.Tensor(xs_0, 1)
        view: "i32[2, 4]" = torch.ops.aten.view.dtype(add, torch.int32);  add = None
        alias: "i32[2, 4]" = torch.ops.aten.alias.default(view);  view = None
        mul: "i32[2, 4]" = torch.ops.aten.mul.Tensor(alias, 2);  alias = None
        view_1: "i32[2, 4]" = torch.ops.aten.view.dtype(xs_0, torch.int32)
        alias_1: "i32[2, 4]" = torch.ops.aten.alias.default(view_1);  view_1 = None
        bitwise_and: "i32[2, 4]" = torch.ops.aten.bitwise_and.Scalar(alias_1, 2147483647);  alias_1 = None
        t: "f32[4, 2]" = torch.ops.aten.t.default(xs_0);  xs_0 = None
        view_2: "i32[4, 2]" = torch.ops.aten.view.dtype(t, torch.int32);  t = None
        alias_2: "i32[4, 2]" = torch.ops.aten.alias.default(view_2);  view_2 = None
        view_3: "i16[3, 5]" = torch.ops.aten.view.dtype(xs_1, torch.int16)
        alias_3: "i16[3, 5]" = torch.ops.aten.alias.default(view_3);  view_3 = None
        add_1: "i16[3, 5]" = torch.ops.aten.add.Tensor(alias_3, 1);  alias_3 = None
        mul_1: "bf16[3, 5]" = torch.ops.aten.mul.Tensor(xs_1, 2);  xs_1 = None
        view_4: "i16[3, 5]" = torch.ops.aten.view.dtype(mul_1, torch.int16);  mul_1 = None
        alias_4: "i16[3, 5]" = torch.ops.aten.alias.default(view_4);  view_4 = None
        view_5: "i16[3, 5]" = torch.ops.aten.view.dtype(xs_2, torch.int16)
        alias_5: "i16[3, 5]" = torch.ops.aten.alias.default(view_5);  view_5 = None
        rshift: "i16[3, 5]" = torch.ops.aten.__rshift__.Scalar(alias_5, 3);  alias_5 = None
        view_6: "i16[3, 5]" = torch.ops.aten.view.dtype(xs_2, torch.int16);  xs_2 = None
        alias_6: "i16[3, 5]" = torch.ops.aten.alias.default(view_6);  view_6 = None
        bitwise_or: "i16[3, 5]" = torch.ops.aten.bitwise_or.Scalar(alias_6, 1);  alias_6 = None
        view_7: "f16[3, 5]" = torch.ops.aten.view.dtype(bitwise_or, torch.float16);  bitwise_or = None
        alias_7: "f16[3, 5]" = torch.ops.aten.alias.default(view_7);  view_7 = None
        view_8: "i8[2, 6]" = torch.ops.aten.view.dtype(xs_3, torch.int8)
        alias_8: "i8[2, 6]" = torch.ops.aten.alias.default(view_8);  view_8 = None
        view_9: "i8[2, 6]" = torch.ops.aten.view.dtype(xs_3, torch.int8);  xs_3 = None
        alias_9: "i8[2, 6]" = torch.ops.aten.alias.default(view_9);  view_9 = None
        add_2: "i8[2, 6]" = torch.ops.aten.add.Tensor(alias_9, 0);  alias_9 = None
        view_10: "u8[2, 6]" = torch.ops.aten.view.dtype(xs_4, torch.uint8);  xs_4 = None
        alias_10: "u8[2, 6]" = torch.ops.aten.alias.default(view_10);  view_10 = None
        add_3: "u8[2, 6]" = torch.ops.aten.add.Tensor(alias_10, 1);  alias_10 = None
        bitwise_or_1: "i32[2, 4]" = torch.ops.aten.bitwise_or.Scalar(xs_5, 1)
        view_11: "f32[2, 4]" = torch.ops.aten.view.dtype(bitwise_or_1, torch.float32);  bitwise_or_1 = None
        alias_11: "f32[2, 4]" = torch.ops.aten.alias.default(view_11);  view_11 = None
        view_12: "f32[2, 4]" = torch.ops.aten.view.dtype(xs_5, torch.float32);  xs_5 = None
        alias_12: "f32[2, 4]" = torch.ops.aten.alias.default(view_12);  view_12 = None
        mul_2: "f32[2, 4]" = torch.ops.aten.mul.Tensor(alias_12, 0);  alias_12 = None
        return (mul, bitwise_and, alias_2, add_1, alias_4, rshift, alias_7, alias_8, add_2, add_3, alias_11, mul_2)
