class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[3, 2, 4]", p_bias: "f32[3]", input: "f32[2, 2, 7]"):
        input_1 = input
        constant_pad_nd: "f32[2, 2, 8]" = torch.ops.aten.constant_pad_nd.default(input_1, [0, 1]);  input_1 = None
        convolution: "f32[2, 3, 7]" = torch.ops.aten.convolution.default(constant_pad_nd, p_weight, p_bias, [1], [1], [1], False, [0], 1);  constant_pad_nd = p_weight = p_bias = None
        return (convolution,)
