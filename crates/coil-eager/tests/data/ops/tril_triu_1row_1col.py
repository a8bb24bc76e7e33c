class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[1, 5]", xs_1: "f32[4, 1]"):
        arange: "i64[5]" = torch.ops.aten.arange.start_step(0, 5, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 5]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[1, 5]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        le: "b8[1, 5]" = torch.ops.aten.le.Scalar(sub, 0);  sub = None
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[1, 5]" = torch.ops.aten.where.self(le, xs_0, scalar_tensor);  le = scalar_tensor = None
        arange_2: "i64[5]" = torch.ops.aten.arange.start_step(0, 5, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_2: "i64[1, 5]" = torch.ops.aten.unsqueeze.default(arange_2, -2);  arange_2 = None
        arange_3: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_3: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_3, -1);  arange_3 = None
        sub_1: "i64[1, 5]" = torch.ops.aten.sub.Tensor(unsqueeze_2, unsqueeze_3);  unsqueeze_2 = unsqueeze_3 = None
        ge: "b8[1, 5]" = torch.ops.aten.ge.Scalar(sub_1, 1);  sub_1 = None
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_1: "f32[1, 5]" = torch.ops.aten.where.self(ge, xs_0, scalar_tensor_1);  ge = scalar_tensor_1 = None
        arange_4: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_4: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_4, -2);  arange_4 = None
        arange_5: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_5: "i64[4, 1]" = torch.ops.aten.unsqueeze.default(arange_5, -1);  arange_5 = None
        sub_2: "i64[4, 1]" = torch.ops.aten.sub.Tensor(unsqueeze_4, unsqueeze_5);  unsqueeze_4 = unsqueeze_5 = None
        le_1: "b8[4, 1]" = torch.ops.aten.le.Scalar(sub_2, -1);  sub_2 = None
        scalar_tensor_2: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_2: "f32[4, 1]" = torch.ops.aten.where.self(le_1, xs_1, scalar_tensor_2);  le_1 = scalar_tensor_2 = None
        arange_6: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_6: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_6, -2);  arange_6 = None
        arange_7: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_7: "i64[4, 1]" = torch.ops.aten.unsqueeze.default(arange_7, -1);  arange_7 = None
        sub_3: "i64[4, 1]" = torch.ops.aten.sub.Tensor(unsqueeze_6, unsqueeze_7);  unsqueeze_6 = unsqueeze_7 = None
        ge_1: "b8[4, 1]" = torch.ops.aten.ge.Scalar(sub_3, 0);  sub_3 = None
        scalar_tensor_3: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_3: "f32[4, 1]" = torch.ops.aten.where.self(ge_1, xs_1, scalar_tensor_3);  ge_1 = scalar_tensor_3 = None
        arange_8: "i64[5]" = torch.ops.aten.arange.start_step(0, 5, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_8: "i64[1, 5]" = torch.ops.aten.unsqueeze.default(arange_8, -2);  arange_8 = None
        arange_9: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_9: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_9, -1);  arange_9 = None
        sub_4: "i64[1, 5]" = torch.ops.aten.sub.Tensor(unsqueeze_8, unsqueeze_9);  unsqueeze_8 = unsqueeze_9 = None
        ge_2: "b8[1, 5]" = torch.ops.aten.ge.Scalar(sub_4, -3);  sub_4 = None
        scalar_tensor_4: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_4: "f32[1, 5]" = torch.ops.aten.where.self(ge_2, xs_0, scalar_tensor_4);  ge_2 = xs_0 = scalar_tensor_4 = None
        arange_10: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_10: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_10, -2);  arange_10 = None
        arange_11: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_11: "i64[4, 1]" = torch.ops.aten.unsqueeze.default(arange_11, -1);  arange_11 = None
        sub_5: "i64[4, 1]" = torch.ops.aten.sub.Tensor(unsqueeze_10, unsqueeze_11);  unsqueeze_10 = unsqueeze_11 = None
        le_2: "b8[4, 1]" = torch.ops.aten.le.Scalar(sub_5, 2);  sub_5 = None
        scalar_tensor_5: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_5: "f32[4, 1]" = torch.ops.aten.where.self(le_2, xs_1, scalar_tensor_5);  le_2 = xs_1 = scalar_tensor_5 = None
        return (where, where_1, where_2, where_3, where_4, where_5)
