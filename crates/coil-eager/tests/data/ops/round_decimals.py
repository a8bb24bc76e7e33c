class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[32]", xs_1: "f64[32]", xs_2: "bf16[32]"):
        round_1: "f32[32]" = torch.ops.aten.round.decimals(xs_0, decimals = 2)
        round_2: "f32[32]" = torch.ops.aten.round.decimals(xs_0, decimals = -1)
        round_3: "f32[32]" = torch.ops.aten.round.decimals(xs_0, decimals = 0)
        round_4: "f64[32]" = torch.ops.aten.round.decimals(xs_1, decimals = 3);  xs_1 = None
        round_5: "bf16[32]" = torch.ops.aten.round.decimals(xs_2, decimals = 1);  xs_2 = None
        mul: "f32[32]" = torch.ops.aten.mul.Tensor(xs_0, 3);  xs_0 = None
        round_6: "f32[32]" = torch.ops.aten.round.decimals(mul, decimals = 4);  mul = None
        return (round_1, round_2, round_3, round_4, round_5, round_6)
