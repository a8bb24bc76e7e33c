class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4]", xs_1: "f32[]"):
        roll: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [1, 2], [1, 1])
        roll_1: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [-4, 3], [-1, 0])
        roll_2: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [0])
        roll_3: "f32[3, 4]" = torch.ops.aten.roll.default(xs_0, [12]);  xs_0 = None
        return (roll, roll_1, roll_2, roll_3)
