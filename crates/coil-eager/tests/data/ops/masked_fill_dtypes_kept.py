class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]", xs_1: "b8[2, 4]", xs_2: "b8[2, 4]"):
        scalar_tensor: "i64[]" = torch.ops.aten.scalar_tensor.default(2, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'))
        where: "i64[2, 4]" = torch.ops.aten.where.self(xs_2, scalar_tensor, xs_0);  scalar_tensor = None
        scalar_tensor_1: "i64[]" = torch.ops.aten.scalar_tensor.default(-2, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'))
        where_1: "i64[2, 4]" = torch.ops.aten.where.self(xs_2, scalar_tensor_1, xs_0);  scalar_tensor_1 = xs_0 = None
        scalar_tensor_2: "b8[]" = torch.ops.aten.scalar_tensor.default(True, dtype = torch.bool, layout = torch.strided, device = device(type='cpu'))
        where_2: "b8[2, 4]" = torch.ops.aten.where.self(xs_2, scalar_tensor_2, xs_1);  scalar_tensor_2 = None
        scalar_tensor_3: "b8[]" = torch.ops.aten.scalar_tensor.default(False, dtype = torch.bool, layout = torch.strided, device = device(type='cpu'))
        where_3: "b8[2, 4]" = torch.ops.aten.where.self(xs_2, scalar_tensor_3, xs_1);  xs_2 = scalar_tensor_3 = xs_1 = None
        return (where, where_1, where_2, where_3)
