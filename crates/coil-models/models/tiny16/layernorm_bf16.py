class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "bf16[64]", p_bias: "bf16[64]", input: "bf16[64, 64]"):
        input_1 = input
        native_layer_norm = torch.ops.aten.native_layer_norm.default(input_1, [64], p_weight, p_bias, 1e-05);  input_1 = p_weight = p_bias = None
        getitem: "bf16[64, 64]" = native_layer_norm[0];  native_layer_norm = None
        return (getitem,)
