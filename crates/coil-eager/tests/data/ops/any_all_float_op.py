class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]"):
        any_1: "b8[]" = torch.ops.aten.any.default(xs_0)
        all_1: "b8[]" = torch.ops.aten.all.default(xs_0)
        any_2: "b8[3]" = torch.ops.aten.any.dim(xs_0, -1)
        all_2: "b8[4]" = torch.ops.aten.all.dim(xs_0, 0)
        all_3: "b8[3, 1]" = torch.ops.aten.all.dim(xs_0, 1, True);  xs_0 = None
        return (any_1, all_1, any_2, all_2, all_3)
