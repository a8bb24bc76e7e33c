class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]"):
        full_like: "f32[2, 3]" = torch.ops.aten.full_like.default(xs_0, 3.5, pin_memory = False)
        add: "f32[2, 3]" = torch.ops.aten.add.Tensor(full_like, xs_0);  full_like = None
        zeros_like: "f32[2, 3]" = torch.ops.aten.zeros_like.default(xs_0, pin_memory = False)
        add_1: "f32[2, 3]" = torch.ops.aten.add.Tensor(zeros_like, xs_0);  zeros_like = None
        ones_like: "f32[2, 3]" = torch.ops.aten.ones_like.default(xs_0, pin_memory = False)
        mul: "f32[2, 3]" = torch.ops.aten.mul.Tensor(ones_like, xs_0);  ones_like = None
        full_like_1: "i64[2, 3]" = torch.ops.aten.full_like.default(xs_0, 7, dtype = torch.int64, pin_memory = False)
        ones_like_1: "b8[2, 3]" = torch.ops.aten.ones_like.default(xs_0, dtype = torch.bool, pin_memory = False);  xs_0 = None
        return (add, add_1, mul, full_like_1, ones_like_1)
