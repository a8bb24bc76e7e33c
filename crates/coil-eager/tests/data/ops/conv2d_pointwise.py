class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[3, 5, 1, 1]", p_bias: "f32[3]", input: "f32[2, 5, 4, 3]"):
        input_1 = input
        convolution: "f32[2, 3, 4, 3]" = torch.ops.aten.convolution.default(input_1, p_weight, p_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  input_1 = p_weight = p_bias = None
        return (convolution,)
