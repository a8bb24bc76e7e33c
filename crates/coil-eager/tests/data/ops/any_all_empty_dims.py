class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 2]", xs_1: "b8[2, 3]"):
        any_1: "b8[2, 2]" = torch.ops.aten.any.dims(xs_0, [])
        logical_not: "b8[2, 2]" = torch.ops.aten.logical_not.default(xs_0);  xs_0 = None
        any_2: "b8[2, 2]" = torch.ops.aten.any.dims(logical_not, []);  logical_not = None
        logical_not_1: "b8[2, 2]" = torch.ops.aten.logical_not.default(any_2);  any_2 = None
        any_3: "b8[2, 3]" = torch.ops.aten.any.dims(xs_1, [])
        logical_not_2: "b8[2, 3]" = torch.ops.aten.logical_not.default(xs_1);  xs_1 = None
        any_4: "b8[2, 3]" = torch.ops.aten.any.dims(logical_not_2, [], True);  logical_not_2 = None
        logical_not_3: "b8[2, 3]" = torch.ops.aten.logical_not.default(any_4);  any_4 = None
        return (any_1, logical_not_1, any_3, logical_not_3)
