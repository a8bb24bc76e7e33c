class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3]", xs_1: "i64[4]"):
        new_zeros: "f32[3, 2]" = torch.ops.aten.new_zeros.default(xs_0, [3, 2], pin_memory = False)
        new_ones: "f32[2, 4]" = torch.ops.aten.new_ones.default(xs_0, [2, 4], pin_memory = False)
        new_ones_1: "i64[3]" = torch.ops.aten.new_ones.default(xs_1, [3], pin_memory = False)
        new_zeros_1: "f32[2, 2]" = torch.ops.aten.new_zeros.default(xs_1, [2, 2], dtype = torch.float32, pin_memory = False);  xs_1 = None
        new_full: "f32[2]" = torch.ops.aten.new_full.default(xs_0, [2], -1.5, pin_memory = False)
        new_zeros_2: "f32[3]" = torch.ops.aten.new_zeros.default(xs_0, [3], pin_memory = False)
        select: "f32[3]" = torch.ops.aten.select.int(xs_0, 0, 0);  xs_0 = None
        add: "f32[3]" = torch.ops.aten.add.Tensor(new_zeros_2, select);  new_zeros_2 = select = None
        return (new_zeros, new_ones, new_ones_1, new_zeros_1, new_full, add)
