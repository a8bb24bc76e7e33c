class GraphModule(torch.nn.Module):
    def forward(self, p_fc1_weight: "bf16[64, 32]", p_fc1_bias: "bf16[64]", p_fc2_weight: "bf16[32, 64]", p_fc2_bias: "bf16[32]", x: "bf16[32, 32]"):
        permute: "bf16[32, 64]" = torch.ops.aten.permute.default(p_fc1_weight, [1, 0]);  p_fc1_weight = None
        addmm: "bf16[32, 64]" = torch.ops.aten.addmm.default(p_fc1_bias, x, permute);  p_fc1_bias = x = permute = None
        gelu: "bf16[32, 64]" = torch.ops.aten.gelu.default(addmm);  addmm = None
        permute_1: "bf16[64, 32]" = torch.ops.aten.permute.default(p_fc2_weight, [1, 0]);  p_fc2_weight = None
        addmm_1: "bf16[32, 32]" = torch.ops.aten.addmm.default(p_fc2_bias, gelu, permute_1);  p_fc2_bias = gelu = permute_1 = None
        return (addmm_1,)
