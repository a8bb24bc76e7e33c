class GraphModule(torch.nn.Module):
    def forward(self, p_features_0_weight: "f32[64, 3, 3, 3]", p_features_0_bias: "f32[64]", p_features_3_squeeze_weight: "f32[16, 64, 1, 1]", p_features_3_squeeze_bias: "f32[16]", p_features_3_expand1x1_weight: "f32[64, 16, 1, 1]", p_features_3_expand1x1_bias: "f32[64]", p_features_3_expand3x3_weight: "f32[64, 16, 3, 3]", p_features_3_expand3x3_bias: "f32[64]", p_features_4_squeeze_weight: "f32[16, 128, 1, 1]", p_features_4_squeeze_bias: "f32[16]", p_features_4_expand1x1_weight: "f32[64, 16, 1, 1]", p_features_4_expand1x1_bias: "f32[64]", p_features_4_expand3x3_weight: "f32[64, 16, 3, 3]", p_features_4_expand3x3_bias: "f32[64]", p_features_6_squeeze_weight: "f32[32, 128, 1, 1]", p_features_6_squeeze_bias: "f32[32]", p_features_6_expand1x1_weight: "f32[128, 32, 1, 1]", p_features_6_expand1x1_bias: "f32[128]", p_features_6_expand3x3_weight: "f32[128, 32, 3, 3]", p_features_6_expand3x3_bias: "f32[128]", p_features_7_squeeze_weight: "f32[32, 256, 1, 1]", p_features_7_squeeze_bias: "f32[32]", p_features_7_expand1x1_weight: "f32[128, 32, 1, 1]", p_features_7_expand1x1_bias: "f32[128]", p_features_7_expand3x3_weight: "f32[128, 32, 3, 3]", p_features_7_expand3x3_bias: "f32[128]", p_features_9_squeeze_weight: "f32[48, 256, 1, 1]", p_features_9_squeeze_bias: "f32[48]", p_features_9_expand1x1_weight: "f32[192, 48, 1, 1]", p_features_9_expand1x1_bias: "f32[192]", p_features_9_expand3x3_weight: "f32[192, 48, 3, 3]", p_features_9_expand3x3_bias: "f32[192]", p_features_10_squeeze_weight: "f32[48, 384, 1, 1]", p_features_10_squeeze_bias: "f32[48]", p_features_10_expand1x1_weight: "f32[192, 48, 1, 1]", p_features_10_expand1x1_bias: "f32[192]", p_features_10_expand3x3_weight: "f32[192, 48, 3, 3]", p_features_10_expand3x3_bias: "f32[192]", p_features_11_squeeze_weight: "f32[64, 384, 1, 1]", p_features_11_squeeze_bias: "f32[64]", p_features_11_expand1x1_weight: "f32[256, 64, 1, 1]", p_features_11_expand1x1_bias: "f32[256]", p_features_11_expand3x3_weight: "f32[256, 64, 3, 3]", p_features_11_expand3x3_bias: "f32[256]", p_features_12_squeeze_weight: "f32[64, 512, 1, 1]", p_features_12_squeeze_bias: "f32[64]", p_features_12_expand1x1_weight: "f32[256, 64, 1, 1]", p_features_12_expand1x1_bias: "f32[256]", p_features_12_expand3x3_weight: "f32[256, 64, 3, 3]", p_features_12_expand3x3_bias: "f32[256]", p_classifier_1_weight: "f32[10, 512, 1, 1]", p_classifier_1_bias: "f32[10]", x: "f32[1, 3, 64, 64]"):
        convolution: "f32[1, 64, 31, 31]" = torch.ops.aten.convolution.default(x, p_features_0_weight, p_features_0_bias, [2, 2], [0, 0], [1, 1], False, [0, 0], 1);  x = p_features_0_weight = p_features_0_bias = None
        relu: "f32[1, 64, 31, 31]" = torch.ops.aten.relu.default(convolution);  convolution = None
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(relu, [3, 3], [2, 2], [0, 0], [1, 1], True);  relu = None
        getitem: "f32[1, 64, 15, 15]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        convolution_1: "f32[1, 16, 15, 15]" = torch.ops.aten.convolution.default(getitem, p_features_3_squeeze_weight, p_features_3_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  getitem = p_features_3_squeeze_weight = p_features_3_squeeze_bias = None
        relu_1: "f32[1, 16, 15, 15]" = torch.ops.aten.relu.default(convolution_1);  convolution_1 = None
        convolution_2: "f32[1, 64, 15, 15]" = torch.ops.aten.convolution.default(relu_1, p_features_3_expand1x1_weight, p_features_3_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_3_expand1x1_weight = p_features_3_expand1x1_bias = None
        relu_2: "f32[1, 64, 15, 15]" = torch.ops.aten.relu.default(convolution_2);  convolution_2 = None
        convolution_3: "f32[1, 64, 15, 15]" = torch.ops.aten.convolution.default(relu_1, p_features_3_expand3x3_weight, p_features_3_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_1 = p_features_3_expand3x3_weight = p_features_3_expand3x3_bias = None
        relu_3: "f32[1, 64, 15, 15]" = torch.ops.aten.relu.default(convolution_3);  convolution_3 = None
        cat: "f32[1, 128, 15, 15]" = torch.ops.aten.cat.default([relu_2, relu_3], 1);  relu_2 = relu_3 = None
        convolution_4: "f32[1, 16, 15, 15]" = torch.ops.aten.convolution.default(cat, p_features_4_squeeze_weight, p_features_4_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat = p_features_4_squeeze_weight = p_features_4_squeeze_bias = None
        relu_4: "f32[1, 16, 15, 15]" = torch.ops.aten.relu.default(convolution_4);  convolution_4 = None
        convolution_5: "f32[1, 64, 15, 15]" = torch.ops.aten.convolution.default(relu_4, p_features_4_expand1x1_weight, p_features_4_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_4_expand1x1_weight = p_features_4_expand1x1_bias = None
        relu_5: "f32[1, 64, 15, 15]" = torch.ops.aten.relu.default(convolution_5);  convolution_5 = None
        convolution_6: "f32[1, 64, 15, 15]" = torch.ops.aten.convolution.default(relu_4, p_features_4_expand3x3_weight, p_features_4_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_4 = p_features_4_expand3x3_weight = p_features_4_expand3x3_bias = None
        relu_6: "f32[1, 64, 15, 15]" = torch.ops.aten.relu.default(convolution_6);  convolution_6 = None
        cat_1: "f32[1, 128, 15, 15]" = torch.ops.aten.cat.default([relu_5, relu_6], 1);  relu_5 = relu_6 = None
        max_pool2d_with_indices_1 = torch.ops.aten.max_pool2d_with_indices.default(cat_1, [3, 3], [2, 2], [0, 0], [1, 1], True);  cat_1 = None
        getitem_2: "f32[1, 128, 7, 7]" = max_pool2d_with_indices_1[0];  max_pool2d_with_indices_1 = None
        convolution_7: "f32[1, 32, 7, 7]" = torch.ops.aten.convolution.default(getitem_2, p_features_6_squeeze_weight, p_features_6_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  getitem_2 = p_features_6_squeeze_weight = p_features_6_squeeze_bias = None
        relu_7: "f32[1, 32, 7, 7]" = torch.ops.aten.relu.default(convolution_7);  convolution_7 = None
        convolution_8: "f32[1, 128, 7, 7]" = torch.ops.aten.convolution.default(relu_7, p_features_6_expand1x1_weight, p_features_6_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_6_expand1x1_weight = p_features_6_expand1x1_bias = None
        relu_8: "f32[1, 128, 7, 7]" = torch.ops.aten.relu.default(convolution_8);  convolution_8 = None
        convolution_9: "f32[1, 128, 7, 7]" = torch.ops.aten.convolution.default(relu_7, p_features_6_expand3x3_weight, p_features_6_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_7 = p_features_6_expand3x3_weight = p_features_6_expand3x3_bias = None
        relu_9: "f32[1, 128, 7, 7]" = torch.ops.aten.relu.default(convolution_9);  convolution_9 = None
        cat_2: "f32[1, 256, 7, 7]" = torch.ops.aten.cat.default([relu_8, relu_9], 1);  relu_8 = relu_9 = None
        convolution_10: "f32[1, 32, 7, 7]" = torch.ops.aten.convolution.default(cat_2, p_features_7_squeeze_weight, p_features_7_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat_2 = p_features_7_squeeze_weight = p_features_7_squeeze_bias = None
        relu_10: "f32[1, 32, 7, 7]" = torch.ops.aten.relu.default(convolution_10);  convolution_10 = None
        convolution_11: "f32[1, 128, 7, 7]" = torch.ops.aten.convolution.default(relu_10, p_features_7_expand1x1_weight, p_features_7_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_7_expand1x1_weight = p_features_7_expand1x1_bias = None
        relu_11: "f32[1, 128, 7, 7]" = torch.ops.aten.relu.default(convolution_11);  convolution_11 = None
        convolution_12: "f32[1, 128, 7, 7]" = torch.ops.aten.convolution.default(relu_10, p_features_7_expand3x3_weight, p_features_7_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_10 = p_features_7_expand3x3_weight = p_features_7_expand3x3_bias = None
        relu_12: "f32[1, 128, 7, 7]" = torch.ops.aten.relu.default(convolution_12);  convolution_12 = None
        cat_3: "f32[1, 256, 7, 7]" = torch.ops.aten.cat.default([relu_11, relu_12], 1);  relu_11 = relu_12 = None
        max_pool2d_with_indices_2 = torch.ops.aten.max_pool2d_with_indices.default(cat_3, [3, 3], [2, 2], [0, 0], [1, 1], True);  cat_3 = None
        getitem_4: "f32[1, 256, 3, 3]" = max_pool2d_with_indices_2[0];  max_pool2d_with_indices_2 = None
        convolution_13: "f32[1, 48, 3, 3]" = torch.ops.aten.convolution.default(getitem_4, p_features_9_squeeze_weight, p_features_9_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  getitem_4 = p_features_9_squeeze_weight = p_features_9_squeeze_bias = None
        relu_13: "f32[1, 48, 3, 3]" = torch.ops.aten.relu.default(convolution_13);  convolution_13 = None
        convolution_14: "f32[1, 192, 3, 3]" = torch.ops.aten.convolution.default(relu_13, p_features_9_expand1x1_weight, p_features_9_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_9_expand1x1_weight = p_features_9_expand1x1_bias = None
        relu_14: "f32[1, 192, 3, 3]" = torch.ops.aten.relu.default(convolution_14);  convolution_14 = None
        convolution_15: "f32[1, 192, 3, 3]" = torch.ops.aten.convolution.default(relu_13, p_features_9_expand3x3_weight, p_features_9_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_13 = p_features_9_expand3x3_weight = p_features_9_expand3x3_bias = None
        relu_15: "f32[1, 192, 3, 3]" = torch.ops.aten.relu.default(convolution_15);  convolution_15 = None
        cat_4: "f32[1, 384, 3, 3]" = torch.ops.aten.cat.default([relu_14, relu_15], 1);  relu_14 = relu_15 = None
        convolution_16: "f32[1, 48, 3, 3]" = torch.ops.aten.convolution.default(cat_4, p_features_10_squeeze_weight, p_features_10_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat_4 = p_features_10_squeeze_weight = p_features_10_squeeze_bias = None
        relu_16: "f32[1, 48, 3, 3]" = torch.ops.aten.relu.default(convolution_16);  convolution_16 = None
        convolution_17: "f32[1, 192, 3, 3]" = torch.ops.aten.convolution.default(relu_16, p_features_10_expand1x1_weight, p_features_10_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_10_expand1x1_weight = p_features_10_expand1x1_bias = None
        relu_17: "f32[1, 192, 3, 3]" = torch.ops.aten.relu.default(convolution_17);  convolution_17 = None
        convolution_18: "f32[1, 192, 3, 3]" = torch.ops.aten.convolution.default(relu_16, p_features_10_expand3x3_weight, p_features_10_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_16 = p_features_10_expand3x3_weight = p_features_10_expand3x3_bias = None
        relu_18: "f32[1, 192, 3, 3]" = torch.ops.aten.relu.default(convolution_18);  convolution_18 = None
        cat_5: "f32[1, 384, 3, 3]" = torch.ops.aten.cat.default([relu_17, relu_18], 1);  relu_17 = relu_18 = None
        convolution_19: "f32[1, 64, 3, 3]" = torch.ops.aten.convolution.default(cat_5, p_features_11_squeeze_weight, p_features_11_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat_5 = p_features_11_squeeze_weight = p_features_11_squeeze_bias = None
        relu_19: "f32[1, 64, 3, 3]" = torch.ops.aten.relu.default(convolution_19);  convolution_19 = None
        convolution_20: "f32[1, 256, 3, 3]" = torch.ops.aten.convolution.default(relu_19, p_features_11_expand1x1_weight, p_features_11_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_11_expand1x1_weight = p_features_11_expand1x1_bias = None
        relu_20: "f32[1, 256, 3, 3]" = torch.ops.aten.relu.default(convolution_20);  convolution_20 = None
        convolution_21: "f32[1, 256, 3, 3]" = torch.ops.aten.convolution.default(relu_19, p_features_11_expand3x3_weight, p_features_11_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_19 = p_features_11_expand3x3_weight = p_features_11_expand3x3_bias = None
        relu_21: "f32[1, 256, 3, 3]" = torch.ops.aten.relu.default(convolution_21);  convolution_21 = None
        cat_6: "f32[1, 512, 3, 3]" = torch.ops.aten.cat.default([relu_20, relu_21], 1);  relu_20 = relu_21 = None
        convolution_22: "f32[1, 64, 3, 3]" = torch.ops.aten.convolution.default(cat_6, p_features_12_squeeze_weight, p_features_12_squeeze_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat_6 = p_features_12_squeeze_weight = p_features_12_squeeze_bias = None
        relu_22: "f32[1, 64, 3, 3]" = torch.ops.aten.relu.default(convolution_22);  convolution_22 = None
        convolution_23: "f32[1, 256, 3, 3]" = torch.ops.aten.convolution.default(relu_22, p_features_12_expand1x1_weight, p_features_12_expand1x1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  p_features_12_expand1x1_weight = p_features_12_expand1x1_bias = None
        relu_23: "f32[1, 256, 3, 3]" = torch.ops.aten.relu.default(convolution_23);  convolution_23 = None
        convolution_24: "f32[1, 256, 3, 3]" = torch.ops.aten.convolution.default(relu_22, p_features_12_expand3x3_weight, p_features_12_expand3x3_bias, [1, 1], [1, 1], [1, 1], False, [0, 0], 1);  relu_22 = p_features_12_expand3x3_weight = p_features_12_expand3x3_bias = None
        relu_24: "f32[1, 256, 3, 3]" = torch.ops.aten.relu.default(convolution_24);  convolution_24 = None
        cat_7: "f32[1, 512, 3, 3]" = torch.ops.aten.cat.default([relu_23, relu_24], 1);  relu_23 = relu_24 = None
        convolution_25: "f32[1, 10, 3, 3]" = torch.ops.aten.convolution.default(cat_7, p_classifier_1_weight, p_classifier_1_bias, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  cat_7 = p_classifier_1_weight = p_classifier_1_bias = None
        relu_25: "f32[1, 10, 3, 3]" = torch.ops.aten.relu.default(convolution_25);  convolution_25 = None
        mean: "f32[1, 10, 1, 1]" = torch.ops.aten.mean.dim(relu_25, [-1, -2], True);  relu_25 = None
        view: "f32[1, 10]" = torch.ops.aten.view.default(mean, [1, 10]);  mean = None
        return (view,)
