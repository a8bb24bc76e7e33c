class GraphModule(torch.nn.Module):
    def forward(self, p_0_weight: "f32[4, 3, 3, 3]", p_1_weight: "f32[4]", p_1_bias: "f32[4]", b_1_running_mean: "f32[4]", b_1_running_var: "f32[4]", b_1_num_batches_tracked: "i64[]", input: "f32[2, 3, 5, 5]"):
        input_1 = input
        convolution: "f32[2, 4, 5, 5]" = torch.ops.aten.convolution.default(input_1, p_0_weight, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  input_1 = p_0_weight = None
        _native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training.default(convolution, p_1_weight, p_1_bias, b_1_running_mean, b_1_running_var, 0.1, 1e-05);  convolution = p_1_weight = p_1_bias = b_1_running_mean = b_1_running_var = None
        getitem: "f32[2, 4, 5, 5]" = _native_batch_norm_legit_no_training[0];  _native_batch_norm_legit_no_training = None
        relu: "f32[2, 4, 5, 5]" = torch.ops.aten.relu.default(getitem);  getitem = None
        return (relu,)
