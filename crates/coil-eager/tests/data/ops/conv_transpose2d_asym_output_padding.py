class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[2, 3, 3, 2]", p_bias: "f32[3]", input: "f32[1, 2, 3, 4]"):
        input_1 = input
        convolution: "f32[1, 3, 9, 9]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [3, 2], [1, 0], [1, 1], True, [2, 1], 1);  input_1 = p_weight = p_bias = None
        return (convolution,)
