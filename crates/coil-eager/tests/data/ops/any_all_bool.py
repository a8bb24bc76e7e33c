class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[3, 4, 2]"):
        any_1: "b8[]" = torch.ops.aten.any.default(xs_0)
        logical_not: "b8[3, 4, 2]" = torch.ops.aten.logical_not.default(xs_0)
        any_2: "b8[]" = torch.ops.aten.any.dims(logical_not);  logical_not = None
        logical_not_1: "b8[]" = torch.ops.aten.logical_not.default(any_2);  any_2 = None
        any_3: "b8[3, 2]" = torch.ops.aten.any.dim(xs_0, 1)
        logical_not_2: "b8[3, 4, 2]" = torch.ops.aten.logical_not.default(xs_0)
        any_4: "b8[3, 4]" = torch.ops.aten.any.dim(logical_not_2, -1);  logical_not_2 = None
        logical_not_3: "b8[3, 4]" = torch.ops.aten.logical_not.default(any_4);  any_4 = None
        any_5: "b8[1, 4, 2]" = torch.ops.aten.any.dim(xs_0, 0, True)
        logical_not_4: "b8[3, 4, 2]" = torch.ops.aten.logical_not.default(xs_0);  xs_0 = None
        any_6: "b8[4]" = torch.ops.aten.any.dims(logical_not_4, [0, 2]);  logical_not_4 = None
        logical_not_5: "b8[4]" = torch.ops.aten.logical_not.default(any_6);  any_6 = None
        return (any_1, logical_not_1, any_3, logical_not_3, any_5, logical_not_5)
