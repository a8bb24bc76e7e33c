class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 2]"):
        zeros_like: "i64[3, 2]" = torch.ops.aten.zeros_like.default(xs_0, pin_memory = False)
        ones_like: "i64[3, 2]" = torch.ops.aten.ones_like.default(xs_0, pin_memory = False)
        add: "i64[3, 2]" = torch.ops.aten.add.Tensor(ones_like, xs_0);  ones_like = None
        full_like: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, -4, pin_memory = False)
        full_like_1: "i64[3, 2]" = torch.ops.aten.full_like.default(xs_0, 2.7, pin_memory = False);  xs_0 = None
        return (zeros_like, add, full_like, full_like_1)
