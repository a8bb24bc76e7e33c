class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[2, 3]"):
        logical_not: "b8[2, 3]" = torch.ops.aten.logical_not.default(xs_0)
        any_1: "b8[]" = torch.ops.aten.any.dims(logical_not);  logical_not = None
        logical_not_1: "b8[]" = torch.ops.aten.logical_not.default(any_1);  any_1 = None
        any_2: "b8[]" = torch.ops.aten.any.default(xs_0)
        bitwise_not: "b8[2, 3]" = torch.ops.aten.bitwise_not.default(xs_0);  xs_0 = None
        any_3: "b8[]" = torch.ops.aten.any.default(bitwise_not);  bitwise_not = None
        return (logical_not_1, any_2, any_3)
