class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "u8[2, 3, 4]", xs_1: "u8[2, 5, 4]", xs_2: "i8[4, 3]"):
        cat: "u8[2, 8, 4]" = torch.ops.aten.cat.default([xs_0, xs_1], 1);  xs_1 = None
        permute: "u8[4, 2, 3]" = torch.ops.aten.permute.default(xs_0, [2, 0, 1]);  xs_0 = None
        clone: "u8[4, 2, 3]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format);  permute = None
        add: "u8[4, 2, 3]" = torch.ops.aten.add.Tensor(clone, 1);  clone = None
        t: "i8[3, 4]" = torch.ops.aten.t.default(xs_2)
        flip: "i8[3, 4]" = torch.ops.aten.flip.default(t, [0]);  t = None
        slice_1: "i8[3, 3]" = torch.ops.aten.slice.Tensor(xs_2, 0, 1, 9223372036854775807)
        slice_2: "i8[3, 2]" = torch.ops.aten.slice.Tensor(slice_1, 1, 0, 9223372036854775807, 2);  slice_1 = None
        mul: "i8[3, 2]" = torch.ops.aten.mul.Tensor(slice_2, 2);  slice_2 = None
        unsqueeze: "i8[1, 4, 3]" = torch.ops.aten.unsqueeze.default(xs_2, 0)
        expand: "i8[2, 4, 3]" = torch.ops.aten.expand.default(unsqueeze, [2, 4, 3]);  unsqueeze = None
        add_1: "i8[2, 4, 3]" = torch.ops.aten.add.Tensor(expand, xs_2);  expand = xs_2 = None
        return (cat, add, flip, mul, add_1)
