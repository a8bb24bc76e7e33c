class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[1, 4, 8, 8]", w: "f32[4, 4, 3, 3]"):
        conv: "f32[1, 4, 8, 8]" = torch.ops.aten.convolution.default(x, w, None, [1, 1], [1, 1], [1, 9223372036854775807], False, [0, 0], 1)
        return (conv,)
