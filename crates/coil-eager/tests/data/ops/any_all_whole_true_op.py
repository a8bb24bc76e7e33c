class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[2, 3]"):
        all_1: "b8[]" = torch.ops.aten.all.default(xs_0)
        any_1: "b8[]" = torch.ops.aten.any.default(xs_0)
        bitwise_not: "b8[2, 3]" = torch.ops.aten.bitwise_not.default(xs_0);  xs_0 = None
        any_2: "b8[]" = torch.ops.aten.any.default(bitwise_not);  bitwise_not = None
        return (all_1, any_1, any_2)
