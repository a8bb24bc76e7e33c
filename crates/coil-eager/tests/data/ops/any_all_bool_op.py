class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[3, 4, 2]"):
        any_1: "b8[]" = torch.ops.aten.any.default(xs_0)
        all_1: "b8[]" = torch.ops.aten.all.default(xs_0)
        any_2: "b8[3, 2]" = torch.ops.aten.any.dim(xs_0, 1)
        all_2: "b8[3, 4]" = torch.ops.aten.all.dim(xs_0, -1)
        any_3: "b8[1, 4, 2]" = torch.ops.aten.any.dim(xs_0, 0, True)
        all_3: "b8[4]" = torch.ops.aten.all.dims(xs_0, [0, 2]);  xs_0 = None
        return (any_1, all_1, any_2, all_2, any_3, all_3)
