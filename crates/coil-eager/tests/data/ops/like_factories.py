class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]"):
        full_like: "f32[2, 3]" = torch.ops.aten.full_like.default(xs_0, 3.5, pin_memory = False)
        add: "f32[2, 3]" = torch.ops.aten.add.Tensor(full_like, xs_0);  full_like = None
        full_like_1: "f32[2, 3]" = torch.ops.aten.full_like.default(xs_0, 0, pin_memory = False, memory_format = torch.preserve_format)
        add_1: "f32[2, 3]" = torch.ops.aten.add.Tensor(full_like_1, xs_0);  full_like_1 = None
        full_like_2: "f32[2, 3]" = torch.ops.aten.full_like.default(xs_0, 1, pin_memory = False, memory_format = torch.preserve_format)
        mul: "f32[2, 3]" = torch.ops.aten.mul.Tensor(full_like_2, xs_0);  full_like_2 = None
        full_like_3: "i64[2, 3]" = torch.ops.aten.full_like.default(xs_0, 7, dtype = torch.int64, pin_memory = False)
        full_like_4: "b8[2, 3]" = torch.ops.aten.full_like.default(xs_0, True, dtype = torch.bool, pin_memory = False, memory_format = torch.preserve_format);  xs_0 = None
        return (add, add_1, mul, full_like_3, full_like_4)
