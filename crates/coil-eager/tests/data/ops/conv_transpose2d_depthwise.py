class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[3, 1, 3, 3]", p_bias: "f32[3]", input: "f32[1, 3, 4, 3]"):
        input_1 = input
        convolution: "f32[1, 3, 8, 6]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [2, 2], [1, 1], [1, 1], True, [1, 1], 3);  input_1 = p_weight = p_bias = None
        return (convolution,)
