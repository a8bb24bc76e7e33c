class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[3, 4, 3, 3]", p_bias: "f32[4]", input: "f32[2, 3, 4, 5]"):
        input_1 = input
        convolution: "f32[2, 4, 6, 7]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [1, 1], [0, 0], [1, 1], True, [0, 0], 1);  input_1 = p_weight = p_bias = None
        return (convolution,)
