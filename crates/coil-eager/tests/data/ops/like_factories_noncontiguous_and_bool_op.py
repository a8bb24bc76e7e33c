class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]"):
        permute: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        zeros_like: "f32[3, 2]" = torch.ops.aten.zeros_like.default(permute, pin_memory = False);  permute = None
        permute_1: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        add: "f32[3, 2]" = torch.ops.aten.add.Tensor(zeros_like, permute_1);  zeros_like = permute_1 = None
        permute_2: "f32[3, 2]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        full_like: "b8[3, 2]" = torch.ops.aten.full_like.default(permute_2, True, dtype = torch.bool, pin_memory = False);  permute_2 = None
        new_full: "f32[2, 2]" = torch.ops.aten.new_full.default(xs_0, [2, 2], 3, pin_memory = False)
        new_full_1: "i64[2]" = torch.ops.aten.new_full.default(xs_0, [2], 2.5, dtype = torch.int64, pin_memory = False)
        ones_like: "f64[2, 3]" = torch.ops.aten.ones_like.default(xs_0, dtype = torch.float64, pin_memory = False);  xs_0 = None
        return (add, full_like, new_full, new_full_1, ones_like)
