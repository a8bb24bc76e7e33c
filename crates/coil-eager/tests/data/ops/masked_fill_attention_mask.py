class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 4, 4]"):
        full: "b8[4, 4]" = torch.ops.aten.full.default([4, 4], True, dtype = torch.bool, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        arange: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 4]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[4]" = torch.ops.aten.arange.start_step(0, 4, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[4, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[4, 4]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        ge: "b8[4, 4]" = torch.ops.aten.ge.Scalar(sub, 1);  sub = None
        logical_and: "b8[4, 4]" = torch.ops.aten.logical_and.default(ge, full);  ge = full = None
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[2, 4, 4]" = torch.ops.aten.where.self(logical_and, scalar_tensor, xs_0);  logical_and = scalar_tensor = xs_0 = None
        _softmax: "f32[2, 4, 4]" = torch.ops.aten._softmax.default(where, -1, False);  where = None
        return (_softmax,)
