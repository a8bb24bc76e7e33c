class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]", xs_1: "b8[2, 4]"):
        scalar_tensor: "i64[]" = torch.ops.aten.scalar_tensor.default(2305843009213693953, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'))
        where: "i64[2, 4]" = torch.ops.aten.where.self(xs_1, scalar_tensor, xs_0);  xs_1 = scalar_tensor = xs_0 = None
        return (where,)
