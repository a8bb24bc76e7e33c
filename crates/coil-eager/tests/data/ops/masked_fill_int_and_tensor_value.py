class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4]", xs_1: "b8[3, 4]", xs_2: "f32[3, 4]", xs_3: "f32[]"):
        scalar_tensor: "i64[]" = torch.ops.aten.scalar_tensor.default(7, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'))
        where: "i64[3, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor, xs_0);  scalar_tensor = xs_0 = None
        where_1: "f32[3, 4]" = torch.ops.aten.where.self(xs_1, xs_3, xs_2);  xs_1 = xs_3 = xs_2 = None
        return (where, where_1)
