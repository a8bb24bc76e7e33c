class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 4, 8, 8]", w: "f32[4, 4, 3, 3]"):
        conv: "f32[1, 4, 6, 6]" = torch.ops.aten.convolution.default(x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 4611686018427387904)
        return (conv,)
