class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[3, 2, 4]", p_bias: "f32[2]", input: "f32[2, 3, 5]"):
        input_1 = input
        convolution: "f32[2, 2, 16]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [3], [1], [1], True, [2], 1);  input_1 = p_weight = p_bias = None
        return (convolution,)
