class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 3, 4]"):
        flip: "f32[2, 3, 4]" = torch.ops.aten.flip.default(xs_0, [0])
        flip_1: "f32[2, 3, 4]" = torch.ops.aten.flip.default(xs_0, [-1])
        flip_2: "f32[2, 3, 4]" = torch.ops.aten.flip.default(xs_0, [0, 2])
        flip_3: "f32[2, 3, 4]" = torch.ops.aten.flip.default(xs_0, [1, 0, 2]);  xs_0 = None
        return (flip, flip_1, flip_2, flip_3)
