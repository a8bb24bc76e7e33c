class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[1, 3]", xs_1: "b8[4]"):
        flip: "f32[1, 3]" = torch.ops.aten.flip.default(xs_0, [0, 1]);  xs_0 = None
        flip_1: "b8[4]" = torch.ops.aten.flip.default(xs_1, [0]);  xs_1 = None
        return (flip, flip_1)
