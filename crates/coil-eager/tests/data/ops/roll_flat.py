class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]"):
        roll: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [2])
        roll_1: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [-5]);  xs_0 = None
        return (roll, roll_1)
