class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]", xs_1: "i64[4]"):
        full: "f32[3, 2]" = torch.ops.aten.full.default([3, 2], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_1: "f32[2, 4]" = torch.ops.aten.full.default([2, 4], 1, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_2: "i64[3]" = torch.ops.aten.full.default([3], 1, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_3: "f32[2, 2]" = torch.ops.aten.full.default([2, 2], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_4: "f32[2]" = torch.ops.aten.full.default([2], -1.5, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_5: "f32[3]" = torch.ops.aten.full.default([3], 0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        select: "f32[3]" = torch.ops.aten.select.int(xs_0, 0, 0);  xs_0 = None
        add: "f32[3]" = torch.ops.aten.add.Tensor(full_5, select);  full_5 = select = None
        return (full, full_1, full_2, full_3, full_4, add)
