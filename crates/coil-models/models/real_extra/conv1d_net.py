class GraphModule(torch.nn.Module):
    def forward(self, p_0_weight: "f32[16, 8, 3]", p_0_bias: "f32[16]", p_1_weight: "f32[16]", p_1_bias: "f32[16]", p_3_weight: "f32[16, 4, 3]", p_3_bias: "f32[16]", p_7_weight: "f32[10, 16]", p_7_bias: "f32[10]", b_1_running_mean: "f32[16]", b_1_running_var: "f32[16]", b_1_num_batches_tracked: "i64[]", input: "f32[4, 8, 32]"):
        input_1 = input
        convolution: "f32[4, 16, 32]" = torch.ops.aten.convolution.default(input_1, p_0_weight, p_0_bias, [1], [1], [1], False, [0], 1);  input_1 = p_0_weight = p_0_bias = None
        _native_batch_norm_legit_no_training = torch.ops.aten._native_batch_norm_legit_no_training.default(convolution, p_1_weight, p_1_bias, b_1_running_mean, b_1_running_var, 0.1, 1e-05);  convolution = p_1_weight = p_1_bias = b_1_running_mean = b_1_running_var = None
        getitem: "f32[4, 16, 32]" = _native_batch_norm_legit_no_training[0];  _native_batch_norm_legit_no_training = None
        relu: "f32[4, 16, 32]" = torch.ops.aten.relu.default(getitem);  getitem = None
        convolution_1: "f32[4, 16, 16]" = torch.ops.aten.convolution.default(relu, p_3_weight, p_3_bias, [2], [2], [2], False, [0], 4);  relu = p_3_weight = p_3_bias = None
        unsqueeze: "f32[4, 16, 1, 16]" = torch.ops.aten.unsqueeze.default(convolution_1, -2);  convolution_1 = None
        avg_pool2d: "f32[4, 16, 1, 8]" = torch.ops.aten.avg_pool2d.default(unsqueeze, [1, 2], [1, 2]);  unsqueeze = None
        squeeze: "f32[4, 16, 8]" = torch.ops.aten.squeeze.dims(avg_pool2d, [-2]);  avg_pool2d = None
        unsqueeze_1: "f32[4, 16, 1, 8]" = torch.ops.aten.unsqueeze.default(squeeze, -2);  squeeze = None
        mean: "f32[4, 16, 1, 1]" = torch.ops.aten.mean.dim(unsqueeze_1, [-1, -2], True);  unsqueeze_1 = None
        squeeze_1: "f32[4, 16, 1]" = torch.ops.aten.squeeze.dims(mean, [-2]);  mean = None
        view: "f32[4, 16]" = torch.ops.aten.view.default(squeeze_1, [4, 16]);  squeeze_1 = None
        permute: "f32[16, 10]" = torch.ops.aten.permute.default(p_7_weight, [1, 0]);  p_7_weight = None
        addmm: "f32[4, 10]" = torch.ops.aten.addmm.default(p_7_bias, view, permute);  p_7_bias = view = permute = None
        return (addmm,)
