class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 2]"):
        full_like: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, 0, pin_memory = False, memory_format = torch.preserve_format)
        full_like_1: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, 1, pin_memory = False, memory_format = torch.preserve_format)
        add: "i64[3, 2]" = torch.ops.aten.add.Tensor(full_like_1, xs_0);  full_like_1 = None
        full_like_2: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, -4, pin_memory = False)
        full_like_3: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, 2.7, pin_memory = False);  xs_0 = None
        return (full_like, add, full_like_2, full_like_3)
