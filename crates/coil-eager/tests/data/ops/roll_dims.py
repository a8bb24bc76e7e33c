class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 4, 5]"):
        roll: "f32[3, 4, 5]" = torch.ops.aten.roll.default(xs_0, [1], [0])
        roll_1: "f32[3, 4, 5]" = torch.ops.aten.roll.default(xs_0, [-2], [-1])
        roll_2: "f32[3, 4, 5]" = torch.ops.aten.roll.default(xs_0, [1, -3], [0, 2])
        roll_3: "f32[3, 4, 5]" = torch.ops.aten.roll.default(xs_0, [7], [1])
        roll_4: "f32[3, 4, 5]" = torch.ops.aten.roll.default(xs_0, [-9], [2]);  xs_0 = None
        return (roll, roll_1, roll_2, roll_3, roll_4)
