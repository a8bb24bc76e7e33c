class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[4, 3, 3, 2]", p_bias: "f32[4]", input: "f32[2, 3, 9, 8]"):
        input_1 = input
        convolution: "f32[2, 4, 4, 9]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [2, 1], [1, 2], [2, 3], False, [0, 0], 1);  input_1 = p_weight = p_bias = None
        return (convolution,)
