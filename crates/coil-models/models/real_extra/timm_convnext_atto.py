class GraphModule(torch.nn.Module):
    def forward(self, p_stem_0_weight: "f32[16, 3, 4, 4]", p_stem_0_bias: "f32[16]", p_stem_1_weight: "f32[16]", p_stem_1_bias: "f32[16]", p_stages_0_blocks_0_gamma: "f32[16]", p_stages_0_blocks_0_conv_dw_weight: "f32[16, 1, 7, 7]", p_stages_0_blocks_0_conv_dw_bias: "f32[16]", p_stages_0_blocks_0_norm_weight: "f32[16]", p_stages_0_blocks_0_norm_bias: "f32[16]", p_stages_0_blocks_0_mlp_fc1_weight: "f32[64, 16, 1, 1]", p_stages_0_blocks_0_mlp_fc1_bias: "f32[64]", p_stages_0_blocks_0_mlp_fc2_weight: "f32[16, 64, 1, 1]", p_stages_0_blocks_0_mlp_fc2_bias: "f32[16]", p_stages_1_downsample_0_weight: "f32[16]", p_stages_1_downsample_0_bias: "f32[16]", p_stages_1_downsample_1_weight: "f32[32, 16, 2, 2]", p_stages_1_downsample_1_bias: "f32[32]", p_stages_1_blocks_0_gamma: "f32[32]", p_stages_1_blocks_0_conv_dw_weight: "f32[32, 1, 7, 7]", p_stages_1_blocks_0_conv_dw_bias: "f32[32]", p_stages_1_blocks_0_norm_weight: "f32[32]", p_stages_1_blocks_0_norm_bias: "f32[32]", p_stages_1_blocks_0_mlp_fc1_weight: "f32[128, 32, 1, 1]", p_stages_1_blocks_0_mlp_fc1_bias: "f32[128]", p_stages_1_blocks_0_mlp_fc2_weight: "f32[32, 128, 1, 1]", p_stages_1_blocks_0_mlp_fc2_bias: "f32[32]", p_stages_2_downsample_0_weight: "f32[32]", p_stages_2_downsample_0_bias: "f32[32]", p_stages_2_downsample_1_weight: "f32[64, 32, 2, 2]", p_stages_2_downsample_1_bias: "f32[64]", p_stages_2_blocks_0_gamma: "f32[64]", p_stages_2_blocks_0_conv_dw_weight: "f32[64, 1, 7, 7]", p_stages_2_blocks_0_conv_dw_bias: "f32[64]", p_stages_2_blocks_0_norm_weight: "f32[64]", p_stages_2_blocks_0_norm_bias: "f32[64]", p_stages_2_blocks_0_mlp_fc1_weight: "f32[256, 64, 1, 1]", p_stages_2_blocks_0_mlp_fc1_bias: "f32[256]", p_stages_2_blocks_0_mlp_fc2_weight: "f32[64, 256, 1, 1]", p_stages_2_blocks_0_mlp_fc2_bias: "f32[64]", p_stages_2_blocks_1_gamma: "f32[64]", p_stages_2_blocks_1_conv_dw_weight: "f32[64, 1, 7, 7]", p_stages_2_blocks_1_conv_dw_bias: "f32[64]", p_stages_2_blocks_1_norm_weight: "f32[64]", p_stages_2_blocks_1_norm_bias: "f32[64]", p_stages_2_blocks_1_mlp_fc1_weight: "f32[256, 64, 1, 1]", p_stages_2_blocks_1_mlp_fc1_bias: "f32[256]", p_stages_2_blocks_1_mlp_fc2_weight: "f32[64, 256, 1, 1]", p_stages_2_blocks_1_mlp_fc2_bias: "f32[64]", p_stages_3_downsample_0_weight: "f32[64]", p_stages_3_downsample_0_bias: "f32[64]", p_stages_3_downsample_1_weight: "f32[128, 64, 2, 2]", p_stages_3_downsample_1_bias: "f32[128]", p_stages_3_blocks_0_gamma: "f32[128]", p_stages_3_blocks_0_conv_dw_weight: "f32[128, 1, 7, 7]", p_stages_3_blocks_0_conv_dw_bias: "f32[128]", p_stages_3_blocks_0_norm_weight: "f32[128]", p_stages_3_blocks_0_norm_bias: "f32[128]", p_stages_3_blocks_0_mlp_fc1_weight: "f32[512, 128, 1, 1]", p_stages_3_blocks_0_mlp_fc1_bias: "f32[512]", p_stages_3_blocks_0_mlp_fc2_weight: "f32[128, 512, 1, 1]", p_stages_3_blocks_0_mlp_fc2_bias: "f32[128]", p_head_norm_weight: "f32[128]", p_head_norm_bias: "f32[128]", p_head_fc_weight: "f32[10, 128]", p_head_fc_bias: "f32[10]", x: "f32[2, 3, 64, 64]"):
        convolution: "f32[2, 16, 16, 16]" = torch.ops.aten.convolution.default(x, p_stem_0_weight, p_stem_0_bias, [4, 4], [0, 0], [1, 1], False, [0, 0], 1);  x = p_stem_0_weight = p_stem_0_bias = None
        permute: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(convolution, [0, 2, 3, 1]);  convolution = None
        native_layer_norm = torch.ops.aten.native_layer_norm.default(permute, [16], p_stem_1_weight, p_stem_1_bias, 1e-06);  permute = p_stem_1_weight = p_stem_1_bias = None
        getitem: "f32[2, 16, 16, 16]" = native_layer_norm[0];  native_layer_norm = None
        permute_1: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(getitem, [0, 3, 1, 2]);  getitem = None
        convolution_1: "f32[2, 16, 16, 16]" = torch.ops.aten.convolution.default(permute_1, p_stages_0_blocks_0_conv_dw_weight, p_stages_0_blocks_0_conv_dw_bias, [1, 1], [3, 3], [1, 1], False, [0, 0], 16);  p_stages_0_blocks_0_conv_dw_weight = p_stages_0_blocks_0_conv_dw_bias = None
        permute_2: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(convolution_1, [0, 2, 3, 1]);  convolution_1 = None
        native_layer_norm_1 = torch.ops.aten.native_layer_norm.default(permute_2, [16], p_stages_0_blocks_0_norm_weight, p_stages_0_blocks_0_norm_bias, 1e-06);  permute_2 = p_stages_0_blocks_0_norm_weight = p_stages_0_blocks_0_norm_bias = None
        getitem_3: "f32[2, 16, 16, 16]" = native_layer_norm_1[0];  native_layer_norm_1 = None
        permute_3: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(getitem_3, [0, 3, 1, 2]);  getitem_3 = None
        convolution_2: "f32[2, 64, 16, 16]" = torch.ops.aten.convolution.default(permute_3, p_stages_0_blocks_0_mlp_fc1_weight, p_stages_0_blocks_0_mlp_fc1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute_3 = p_stages_0_blocks_0_mlp_fc1_weight = p_stages_0_blocks_0_mlp_fc1_bias = None
        gelu: "f32[2, 64, 16, 16]" = torch.ops.aten.gelu.default(convolution_2);  convolution_2 = None
        convolution_3: "f32[2, 16, 16, 16]" = torch.ops.aten.convolution.default(gelu, p_stages_0_blocks_0_mlp_fc2_weight, p_stages_0_blocks_0_mlp_fc2_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  gelu = p_stages_0_blocks_0_mlp_fc2_weight = p_stages_0_blocks_0_mlp_fc2_bias = None
        view: "f32[1, 16, 1, 1]" = torch.ops.aten.view.default(p_stages_0_blocks_0_gamma, [1, -1, 1, 1]);  p_stages_0_blocks_0_gamma = None
        mul: "f32[2, 16, 16, 16]" = torch.ops.aten.mul.Tensor(convolution_3, view);  convolution_3 = view = None
        add: "f32[2, 16, 16, 16]" = torch.ops.aten.add.Tensor(mul, permute_1);  mul = permute_1 = None
        permute_4: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(add, [0, 2, 3, 1]);  add = None
        native_layer_norm_2 = torch.ops.aten.native_layer_norm.default(permute_4, [16], p_stages_1_downsample_0_weight, p_stages_1_downsample_0_bias, 1e-06);  permute_4 = p_stages_1_downsample_0_weight = p_stages_1_downsample_0_bias = None
        getitem_6: "f32[2, 16, 16, 16]" = native_layer_norm_2[0];  native_layer_norm_2 = None
        permute_5: "f32[2, 16, 16, 16]" = torch.ops.aten.permute.default(getitem_6, [0, 3, 1, 2]);  getitem_6 = None
        convolution_4: "f32[2, 32, 8, 8]" = torch.ops.aten.convolution.default(permute_5, p_stages_1_downsample_1_weight, p_stages_1_downsample_1_bias, [2, 2], [0, 0], [1, 1], False, [0, 0], 1);  permute_5 = p_stages_1_downsample_1_weight = p_stages_1_downsample_1_bias = None
        convolution_5: "f32[2, 32, 8, 8]" = torch.ops.aten.convolution.default(convolution_4, p_stages_1_blocks_0_conv_dw_weight, p_stages_1_blocks_0_conv_dw_bias, [1, 1], [3, 3], [1, 1], False, [0, 0], 32);  p_stages_1_blocks_0_conv_dw_weight = p_stages_1_blocks_0_conv_dw_bias = None
        permute_6: "f32[2, 8, 8, 32]" = torch.ops.aten.permute.default(convolution_5, [0, 2, 3, 1]);  convolution_5 = None
        native_layer_norm_3 = torch.ops.aten.native_layer_norm.default(permute_6, [32], p_stages_1_blocks_0_norm_weight, p_stages_1_blocks_0_norm_bias, 1e-06);  permute_6 = p_stages_1_blocks_0_norm_weight = p_stages_1_blocks_0_norm_bias = None
        getitem_9: "f32[2, 8, 8, 32]" = native_layer_norm_3[0];  native_layer_norm_3 = None
        permute_7: "f32[2, 32, 8, 8]" = torch.ops.aten.permute.default(getitem_9, [0, 3, 1, 2]);  getitem_9 = None
        convolution_6: "f32[2, 128, 8, 8]" = torch.ops.aten.convolution.default(permute_7, p_stages_1_blocks_0_mlp_fc1_weight, p_stages_1_blocks_0_mlp_fc1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute_7 = p_stages_1_blocks_0_mlp_fc1_weight = p_stages_1_blocks_0_mlp_fc1_bias = None
        gelu_1: "f32[2, 128, 8, 8]" = torch.ops.aten.gelu.default(convolution_6);  convolution_6 = None
        convolution_7: "f32[2, 32, 8, 8]" = torch.ops.aten.convolution.default(gelu_1, p_stages_1_blocks_0_mlp_fc2_weight, p_stages_1_blocks_0_mlp_fc2_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  gelu_1 = p_stages_1_blocks_0_mlp_fc2_weight = p_stages_1_blocks_0_mlp_fc2_bias = None
        view_1: "f32[1, 32, 1, 1]" = torch.ops.aten.view.default(p_stages_1_blocks_0_gamma, [1, -1, 1, 1]);  p_stages_1_blocks_0_gamma = None
        mul_1: "f32[2, 32, 8, 8]" = torch.ops.aten.mul.Tensor(convolution_7, view_1);  convolution_7 = view_1 = None
        add_1: "f32[2, 32, 8, 8]" = torch.ops.aten.add.Tensor(mul_1, convolution_4);  mul_1 = convolution_4 = None
        permute_8: "f32[2, 8, 8, 32]" = torch.ops.aten.permute.default(add_1, [0, 2, 3, 1]);  add_1 = None
        native_layer_norm_4 = torch.ops.aten.native_layer_norm.default(permute_8, [32], p_stages_2_downsample_0_weight, p_stages_2_downsample_0_bias, 1e-06);  permute_8 = p_stages_2_downsample_0_weight = p_stages_2_downsample_0_bias = None
        getitem_12: "f32[2, 8, 8, 32]" = native_layer_norm_4[0];  native_layer_norm_4 = None
        permute_9: "f32[2, 32, 8, 8]" = torch.ops.aten.permute.default(getitem_12, [0, 3, 1, 2]);  getitem_12 = None
        convolution_8: "f32[2, 64, 4, 4]" = torch.ops.aten.convolution.default(permute_9, p_stages_2_downsample_1_weight, p_stages_2_downsample_1_bias, [2, 2], [0, 0], [1, 1], False, [0, 0], 1);  permute_9 = p_stages_2_downsample_1_weight = p_stages_2_downsample_1_bias = None
        convolution_9: "f32[2, 64, 4, 4]" = torch.ops.aten.convolution.default(convolution_8, p_stages_2_blocks_0_conv_dw_weight, p_stages_2_blocks_0_conv_dw_bias, [1, 1], [3, 3], [1, 1], False, [0, 0], 64);  p_stages_2_blocks_0_conv_dw_weight = p_stages_2_blocks_0_conv_dw_bias = None
        permute_10: "f32[2, 4, 4, 64]" = torch.ops.aten.permute.default(convolution_9, [0, 2, 3, 1]);  convolution_9 = None
        native_layer_norm_5 = torch.ops.aten.native_layer_norm.default(permute_10, [64], p_stages_2_blocks_0_norm_weight, p_stages_2_blocks_0_norm_bias, 1e-06);  permute_10 = p_stages_2_blocks_0_norm_weight = p_stages_2_blocks_0_norm_bias = None
        getitem_15: "f32[2, 4, 4, 64]" = native_layer_norm_5[0];  native_layer_norm_5 = None
        permute_11: "f32[2, 64, 4, 4]" = torch.ops.aten.permute.default(getitem_15, [0, 3, 1, 2]);  getitem_15 = None
        convolution_10: "f32[2, 256, 4, 4]" = torch.ops.aten.convolution.default(permute_11, p_stages_2_blocks_0_mlp_fc1_weight, p_stages_2_blocks_0_mlp_fc1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute_11 = p_stages_2_blocks_0_mlp_fc1_weight = p_stages_2_blocks_0_mlp_fc1_bias = None
        gelu_2: "f32[2, 256, 4, 4]" = torch.ops.aten.gelu.default(convolution_10);  convolution_10 = None
        convolution_11: "f32[2, 64, 4, 4]" = torch.ops.aten.convolution.default(gelu_2, p_stages_2_blocks_0_mlp_fc2_weight, p_stages_2_blocks_0_mlp_fc2_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  gelu_2 = p_stages_2_blocks_0_mlp_fc2_weight = p_stages_2_blocks_0_mlp_fc2_bias = None
        view_2: "f32[1, 64, 1, 1]" = torch.ops.aten.view.default(p_stages_2_blocks_0_gamma, [1, -1, 1, 1]);  p_stages_2_blocks_0_gamma = None
        mul_2: "f32[2, 64, 4, 4]" = torch.ops.aten.mul.Tensor(convolution_11, view_2);  convolution_11 = view_2 = None
        add_2: "f32[2, 64, 4, 4]" = torch.ops.aten.add.Tensor(mul_2, convolution_8);  mul_2 = convolution_8 = None
        convolution_12: "f32[2, 64, 4, 4]" = torch.ops.aten.convolution.default(add_2, p_stages_2_blocks_1_conv_dw_weight, p_stages_2_blocks_1_conv_dw_bias, [1, 1], [3, 3], [1, 1], False, [0, 0], 64);  p_stages_2_blocks_1_conv_dw_weight = p_stages_2_blocks_1_conv_dw_bias = None
        permute_12: "f32[2, 4, 4, 64]" = torch.ops.aten.permute.default(convolution_12, [0, 2, 3, 1]);  convolution_12 = None
        native_layer_norm_6 = torch.ops.aten.native_layer_norm.default(permute_12, [64], p_stages_2_blocks_1_norm_weight, p_stages_2_blocks_1_norm_bias, 1e-06);  permute_12 = p_stages_2_blocks_1_norm_weight = p_stages_2_blocks_1_norm_bias = None
        getitem_18: "f32[2, 4, 4, 64]" = native_layer_norm_6[0];  native_layer_norm_6 = None
        permute_13: "f32[2, 64, 4, 4]" = torch.ops.aten.permute.default(getitem_18, [0, 3, 1, 2]);  getitem_18 = None
        convolution_13: "f32[2, 256, 4, 4]" = torch.ops.aten.convolution.default(permute_13, p_stages_2_blocks_1_mlp_fc1_weight, p_stages_2_blocks_1_mlp_fc1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute_13 = p_stages_2_blocks_1_mlp_fc1_weight = p_stages_2_blocks_1_mlp_fc1_bias = None
        gelu_3: "f32[2, 256, 4, 4]" = torch.ops.aten.gelu.default(convolution_13);  convolution_13 = None
        convolution_14: "f32[2, 64, 4, 4]" = torch.ops.aten.convolution.default(gelu_3, p_stages_2_blocks_1_mlp_fc2_weight, p_stages_2_blocks_1_mlp_fc2_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  gelu_3 = p_stages_2_blocks_1_mlp_fc2_weight = p_stages_2_blocks_1_mlp_fc2_bias = None
        view_3: "f32[1, 64, 1, 1]" = torch.ops.aten.view.default(p_stages_2_blocks_1_gamma, [1, -1, 1, 1]);  p_stages_2_blocks_1_gamma = None
        mul_3: "f32[2, 64, 4, 4]" = torch.ops.aten.mul.Tensor(convolution_14, view_3);  convolution_14 = view_3 = None
        add_3: "f32[2, 64, 4, 4]" = torch.ops.aten.add.Tensor(mul_3, add_2);  mul_3 = add_2 = None
        permute_14: "f32[2, 4, 4, 64]" = torch.ops.aten.permute.default(add_3, [0, 2, 3, 1]);  add_3 = None
        native_layer_norm_7 = torch.ops.aten.native_layer_norm.default(permute_14, [64], p_stages_3_downsample_0_weight, p_stages_3_downsample_0_bias, 1e-06);  permute_14 = p_stages_3_downsample_0_weight = p_stages_3_downsample_0_bias = None
        getitem_21: "f32[2, 4, 4, 64]" = native_layer_norm_7[0];  native_layer_norm_7 = None
        permute_15: "f32[2, 64, 4, 4]" = torch.ops.aten.permute.default(getitem_21, [0, 3, 1, 2]);  getitem_21 = None
        convolution_15: "f32[2, 128, 2, 2]" = torch.ops.aten.convolution.default(permute_15, p_stages_3_downsample_1_weight, p_stages_3_downsample_1_bias, [2, 2], [0, 0], [1, 1], False, [0, 0], 1);  permute_15 = p_stages_3_downsample_1_weight = p_stages_3_downsample_1_bias = None
        convolution_16: "f32[2, 128, 2, 2]" = torch.ops.aten.convolution.default(convolution_15, p_stages_3_blocks_0_conv_dw_weight, p_stages_3_blocks_0_conv_dw_bias, [1, 1], [3, 3], [1, 1], False, [0, 0], 128);  p_stages_3_blocks_0_conv_dw_weight = p_stages_3_blocks_0_conv_dw_bias = None
        permute_16: "f32[2, 2, 2, 128]" = torch.ops.aten.permute.default(convolution_16, [0, 2, 3, 1]);  convolution_16 = None
        native_layer_norm_8 = torch.ops.aten.native_layer_norm.default(permute_16, [128], p_stages_3_blocks_0_norm_weight, p_stages_3_blocks_0_norm_bias, 1e-06);  permute_16 = p_stages_3_blocks_0_norm_weight = p_stages_3_blocks_0_norm_bias = None
        getitem_24: "f32[2, 2, 2, 128]" = native_layer_norm_8[0];  native_layer_norm_8 = None
        permute_17: "f32[2, 128, 2, 2]" = torch.ops.aten.permute.default(getitem_24, [0, 3, 1, 2]);  getitem_24 = None
        convolution_17: "f32[2, 512, 2, 2]" = torch.ops.aten.convolution.default(permute_17, p_stages_3_blocks_0_mlp_fc1_weight, p_stages_3_blocks_0_mlp_fc1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute_17 = p_stages_3_blocks_0_mlp_fc1_weight = p_stages_3_blocks_0_mlp_fc1_bias = None
        gelu_4: "f32[2, 512, 2, 2]" = torch.ops.aten.gelu.default(convolution_17);  convolution_17 = None
        convolution_18: "f32[2, 128, 2, 2]" = torch.ops.aten.convolution.default(gelu_4, p_stages_3_blocks_0_mlp_fc2_weight, p_stages_3_blocks_0_mlp_fc2_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  gelu_4 = p_stages_3_blocks_0_mlp_fc2_weight = p_stages_3_blocks_0_mlp_fc2_bias = None
        view_4: "f32[1, 128, 1, 1]" = torch.ops.aten.view.default(p_stages_3_blocks_0_gamma, [1, -1, 1, 1]);  p_stages_3_blocks_0_gamma = None
        mul_4: "f32[2, 128, 2, 2]" = torch.ops.aten.mul.Tensor(convolution_18, view_4);  convolution_18 = view_4 = None
        add_4: "f32[2, 128, 2, 2]" = torch.ops.aten.add.Tensor(mul_4, convolution_15);  mul_4 = convolution_15 = None
        mean: "f32[2, 128, 1, 1]" = torch.ops.aten.mean.dim(add_4, [-1, -2], True);  add_4 = None
        as_strided: "f32[2, 128, 1, 1]" = torch.ops.aten.as_strided.default(mean, [2, 128, 1, 1], [128, 1, 128, 128]);  mean = None
        permute_18: "f32[2, 1, 1, 128]" = torch.ops.aten.permute.default(as_strided, [0, 2, 3, 1]);  as_strided = None
        native_layer_norm_9 = torch.ops.aten.native_layer_norm.default(permute_18, [128], p_head_norm_weight, p_head_norm_bias, 1e-06);  permute_18 = p_head_norm_weight = p_head_norm_bias = None
        getitem_27: "f32[2, 1, 1, 128]" = native_layer_norm_9[0];  native_layer_norm_9 = None
        permute_19: "f32[2, 128, 1, 1]" = torch.ops.aten.permute.default(getitem_27, [0, 3, 1, 2]);  getitem_27 = None
        view_5: "f32[2, 128]" = torch.ops.aten.view.default(permute_19, [2, 128]);  permute_19 = None
        permute_20: "f32[128, 10]" = torch.ops.aten.permute.default(p_head_fc_weight, [1, 0]);  p_head_fc_weight = None
        addmm: "f32[2, 10]" = torch.ops.aten.addmm.default(p_head_fc_bias, view_5, permute_20);  p_head_fc_bias = view_5 = permute_20 = None
        return (addmm,)
