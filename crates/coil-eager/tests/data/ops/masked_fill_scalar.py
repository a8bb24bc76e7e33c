class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]", xs_1: "b8[3, 4]"):
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(-1.5, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[3, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor, xs_0);  scalar_tensor = None
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_1: "f32[3, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor_1, xs_0);  scalar_tensor_1 = None
        scalar_tensor_2: "f32[]" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_2: "f32[3, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor_2, xs_0);  xs_1 = scalar_tensor_2 = xs_0 = None
        return (where, where_1, where_2)
