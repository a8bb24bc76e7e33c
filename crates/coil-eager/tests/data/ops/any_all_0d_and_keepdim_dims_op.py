class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[]", xs_1: "b8[2, 3, 4]"):
        any_1: "b8[]" = torch.ops.aten.any.default(xs_0)
        all_1: "b8[]" = torch.ops.aten.all.default(xs_0);  xs_0 = None
        any_2: "b8[1, 3, 1]" = torch.ops.aten.any.dims(xs_1, [0, 2], True)
        all_2: "b8[3]" = torch.ops.aten.all.dims(xs_1, [-1, 0])
        any_3: "b8[2, 4]" = torch.ops.aten.any.dim(xs_1, -2);  xs_1 = None
        return (any_1, all_1, any_2, all_2, any_3)
