class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[4, 5]", xs_1: "bf16[4, 5]"):
        floor: "i64[4, 5]" = torch.ops.aten.floor.default(xs_0)
        round_1: "i64[4, 5]" = torch.ops.aten.round.default(xs_0);  xs_0 = None
        ceil: "bf16[4, 5]" = torch.ops.aten.ceil.default(xs_1)
        trunc: "bf16[4, 5]" = torch.ops.aten.trunc.default(xs_1)
        round_2: "bf16[4, 5]" = torch.ops.aten.round.default(xs_1);  xs_1 = None
        mul: "bf16[4, 5]" = torch.ops.aten.mul.Tensor(round_2, 2);  round_2 = None
        return (floor, round_1, ceil, trunc, mul)
