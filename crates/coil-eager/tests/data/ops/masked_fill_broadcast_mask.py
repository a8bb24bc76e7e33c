class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3, 4]", xs_1: "b8[1, 4]", xs_2: "b8[3, 1]"):
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(2.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[2, 3, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor, xs_0);  xs_1 = scalar_tensor = None
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(-3.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_1: "f32[2, 3, 4]" = torch.ops.aten.where.self(xs_2, scalar_tensor_1, xs_0);  xs_2 = scalar_tensor_1 = xs_0 = None
        return (where, where_1)
