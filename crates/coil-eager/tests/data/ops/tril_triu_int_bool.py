class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 3]", xs_1: "b8[2, 3, 4]"):
        arange: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 3]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[3, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[3, 3]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        ge: "b8[3, 3]" = torch.ops.aten.ge.Scalar(sub, -1);  sub = None
        scalar_tensor: "i64[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'))
        where: "i64[3, 3]" = torch.ops.aten.where.self(ge, xs_0, scalar_tensor);  ge = xs_0 = scalar_tensor = None
        arange_2: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_2: "i64[1, 4]" = torch.ops.aten.unsqueeze.default(arange_2, -2);  arange_2 = None
        arange_3: "i64[3]" = torch.ops.aten.arange.start_step(0, 3, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_3: "i64[3, 1]" = torch.ops.aten.unsqueeze.default(arange_3, -1);  arange_3 = None
        sub_1: "i64[3, 4]" = torch.ops.aten.sub.Tensor(unsqueeze_2, unsqueeze_3);  unsqueeze_2 = unsqueeze_3 = None
        le: "b8[3, 4]" = torch.ops.aten.le.Scalar(sub_1, 1);  sub_1 = None
        logical_and: "b8[2, 3, 4]" = torch.ops.aten.logical_and.default(le, xs_1);  le = xs_1 = None
        return (where, logical_and)
