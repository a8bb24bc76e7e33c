class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, 3]"):
        roll: "f32[4, 3]" = torch.ops.aten.roll.default(x, [-9223372036854775808, 9223372036854775807], [0, 0])
        return (roll,)
