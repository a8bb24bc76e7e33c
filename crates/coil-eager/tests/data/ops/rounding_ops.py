class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        floor: "f32[6, 8]" = torch.ops.aten.floor.default(xs_0)
        ceil: "f32[6, 8]" = torch.ops.aten.ceil.default(xs_0)
        round_1: "f32[6, 8]" = torch.ops.aten.round.default(xs_0)
        trunc: "f32[6, 8]" = torch.ops.aten.trunc.default(xs_0);  xs_0 = None
        return (floor, ceil, round_1, trunc)
