class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "bf16[6, 8]", xs_1: "i64[2]"):
        hardtanh: "bf16[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, -2.0, 2.0)
        cumsum: "bf16[6, 8]" = torch.ops.aten.cumsum.default(xs_0, 0)
        index: "bf16[2, 8]" = torch.ops.aten.index.Tensor(xs_0, [xs_1])
        arange: "i64[8]" = torch.ops.aten.arange.start_step(0, 8, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 8]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[6]" = torch.ops.aten.arange.start_step(0, 6, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[6, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[6, 8]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        le: "b8[6, 8]" = torch.ops.aten.le.Scalar(sub, 1);  sub = None
        scalar_tensor: "bf16[]" = torch.ops.aten.scalar_tensor.default(0, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cpu'))
        where: "bf16[6, 8]" = torch.ops.aten.where.self(le, xs_0, scalar_tensor);  le = scalar_tensor = None
        unsqueeze_2: "bf16[1, 6, 8]" = torch.ops.aten.unsqueeze.default(xs_0, 0)
        avg_pool2d: "bf16[1, 6, 8]" = torch.ops.aten.avg_pool2d.default(unsqueeze_2, [3, 3], [1, 1], [1, 1]);  unsqueeze_2 = None
        unsqueeze_3: "bf16[1, 6, 8]" = torch.ops.aten.unsqueeze.default(xs_0, 0)
        _adaptive_avg_pool2d: "bf16[1, 3, 3]" = torch.ops.aten._adaptive_avg_pool2d.default(unsqueeze_3, [3, 3]);  unsqueeze_3 = None
        unsqueeze_4: "i64[1, 2]" = torch.ops.aten.unsqueeze.default(xs_1, 0);  xs_1 = None
        expand: "i64[6, 2]" = torch.ops.aten.expand.default(unsqueeze_4, [6, 2]);  unsqueeze_4 = None
        gather: "bf16[6, 2]" = torch.ops.aten.gather.default(xs_0, 1, expand);  xs_0 = expand = None
        return (hardtanh, cumsum, index, where, avg_pool2d, _adaptive_avg_pool2d, gather)
