class GraphModule(torch.nn.Module):
    def forward(self, p_0_weight: "f32[3, 2, 2, 3, 2]", p_0_bias: "f32[3]", p_1_weight: "f32[3]", p_1_bias: "f32[3]", b_1_running_mean: "f32[3]", b_1_running_var: "f32[3]", b_1_num_batches_tracked: "i64[]", input: "f32[1, 2, 3, 5, 4]"):
        input_1 = input
        convolution: "f32[1, 3, 4, 2, 5]" = torch.ops.aten.convolution.default(input_1, p_0_weight, p_0_bias, [1, 2, 1], [1, 0, 1], [1, 1, 1], False, [0, 0, 0], 1);  input_1 = p_0_weight = p_0_bias = None
        _native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training.default(convolution, p_1_weight, p_1_bias, b_1_running_mean, b_1_running_var, 0.1, 1e-05);  convolution = p_1_weight = p_1_bias = b_1_running_mean = b_1_running_var = None
        getitem: "f32[1, 3, 4, 2, 5]" = _native_batch_norm_legit_no_training[0];  _native_batch_norm_legit_no_training = None
        return (getitem,)
