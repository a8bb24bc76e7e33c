class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]"):
        permute: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        full_like: "f32[3, 2]" = torch.ops.aten.full_like.default(permute, 0, pin_memory = False, memory_format = torch.preserve_format);  permute = None
        permute_1: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        add: "f32[3, 2]" = torch.ops.aten.add.Tensor(full_like, permute_1);  full_like = permute_1 = None
        permute_2: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        full_like_1: "b8[3, 2]" = torch.ops.aten.full_like.default(permute_2, True, dtype = torch.bool, pin_memory = False);  permute_2 = None
        full: "f32[2, 2]" = torch.ops.aten.full.default([2, 2], 3, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_1: "i64[2]" = torch.ops.aten.full.default([2], 2.5, dtype = torch.int64, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        full_like_2: "f64[2, 3]" = torch.ops.aten.full_like.default(xs_0, 1, dtype = torch.float64, pin_memory = False, memory_format = torch.preserve_format);  xs_0 = None
        return (add, full_like_1, full, full_1, full_like_2)
