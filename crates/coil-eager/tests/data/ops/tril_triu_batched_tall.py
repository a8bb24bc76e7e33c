class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 6, 3]"):
        arange: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 3]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[6]" = torch.ops.aten.arange.start_step(0, 6, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[6, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[6, 3]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        le: "b8[6, 3]" = torch.ops.aten.le.Scalar(sub, -2);  sub = None
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[2, 6, 3]" = torch.ops.aten.where.self(le, xs_0, scalar_tensor);  le = scalar_tensor = None
        arange_2: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_2: "i64[1, 3]" = torch.ops.aten.unsqueeze.default(arange_2, -2);  arange_2 = None
        arange_3: "i64[6]" = torch.ops.aten.arange.start_step(0, 6, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_3: "i64[6, 1]" = torch.ops.aten.unsqueeze.default(arange_3, -1);  arange_3 = None
        sub_1: "i64[6, 3]" = torch.ops.aten.sub.Tensor(unsqueeze_2, unsqueeze_3);  unsqueeze_2 = unsqueeze_3 = None
        ge: "b8[6, 3]" = torch.ops.aten.ge.Scalar(sub_1, 2);  sub_1 = None
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_1: "f32[2, 6, 3]" = torch.ops.aten.where.self(ge, xs_0, scalar_tensor_1);  ge = scalar_tensor_1 = None
        arange_4: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_4: "i64[1, 3]" = torch.ops.aten.unsqueeze.default(arange_4, -2);  arange_4 = None
        arange_5: "i64[6]" = torch.ops.aten.arange.start_step(0, 6, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_5: "i64[6, 1]" = torch.ops.aten.unsqueeze.default(arange_5, -1);  arange_5 = None
        sub_2: "i64[6, 3]" = torch.ops.aten.sub.Tensor(unsqueeze_4, unsqueeze_5);  unsqueeze_4 = unsqueeze_5 = None
        le_1: "b8[6, 3]" = torch.ops.aten.le.Scalar(sub_2, 5);  sub_2 = None
        scalar_tensor_2: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_2: "f32[2, 6, 3]" = torch.ops.aten.where.self(le_1, xs_0, scalar_tensor_2);  le_1 = scalar_tensor_2 = None
        arange_6: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_6: "i64[1, 3]" = torch.ops.aten.unsqueeze.default(arange_6, -2);  arange_6 = None
        arange_7: "i64[6]" = torch.ops.aten.arange.start_step(0, 6, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_7: "i64[6, 1]" = torch.ops.aten.unsqueeze.default(arange_7, -1);  arange_7 = None
        sub_3: "i64[6, 3]" = torch.ops.aten.sub.Tensor(unsqueeze_6, unsqueeze_7);  unsqueeze_6 = unsqueeze_7 = None
        ge_1: "b8[6, 3]" = torch.ops.aten.ge.Scalar(sub_3, -5);  sub_3 = None
        scalar_tensor_3: "f32[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_3: "f32[2, 6, 3]" = torch.ops.aten.where.self(ge_1, xs_0, scalar_tensor_3);  ge_1 = xs_0 = scalar_tensor_3 = None
        return (where, where_1, where_2, where_3)
