class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[6, 1, 5]", p_bias: "f32[6]", input: "f32[2, 3, 8]"):
        input_1 = input
        convolution: "f32[2, 6, 8]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [1], [2], [1], False, [0], 3);  input_1 = p_weight = p_bias = None
        return (convolution,)
