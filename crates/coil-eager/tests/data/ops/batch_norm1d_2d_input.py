class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[5]", p_bias: "f32[5]", b_running_mean: "f32[5]", b_running_var: "f32[5]", b_num_batches_tracked: "i64[]", input: "f32[4, 5]"):
        input_1 = input
        _native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training.default(input_1, p_weight, p_bias, b_running_mean, b_running_var, 0.1, 1e-05);  input_1 = p_weight = p_bias = b_running_mean = b_running_var = None
        getitem: "f32[4, 5]" = _native_batch_norm_legit_no_training[0];  _native_batch_norm_legit_no_training = None
        return (getitem,)
