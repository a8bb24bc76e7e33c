class GraphModule(torch.nn.Module):
    def forward(self, p_ln1_weight: "bf16[32]", p_ln1_bias: "bf16[32]", p_qkv_weight: "bf16[96, 32]", p_qkv_bias: "bf16[96]", p_proj_weight: "bf16[32, 32]", p_proj_bias: "bf16[32]", p_ln2_weight: "bf16[32]", p_ln2_bias: "bf16[32]", p_fc_weight: "bf16[128, 32]", p_fc_bias: "bf16[128]", p_out_weight: "bf16[32, 128]", p_out_bias: "bf16[32]", x: "bf16[2, 16, 32]"):
        native_layer_norm = torch.ops.aten.native_layer_norm.default(x, [32], p_ln1_weight, p_ln1_bias, 1e-05);  p_ln1_weight = p_ln1_bias = None
        getitem: "bf16[2, 16, 32]" = native_layer_norm[0];  native_layer_norm = None
        view: "bf16[32, 32]" = torch.ops.aten.view.default(getitem, [32, 32]);  getitem = None
        permute: "bf16[32, 96]" = torch.ops.aten.permute.default(p_qkv_weight, [1, 0]);  p_qkv_weight = None
        addmm: "bf16[32, 96]" = torch.ops.aten.addmm.default(p_qkv_bias, view, permute);  p_qkv_bias = view = permute = None
        view_1: "bf16[2, 16, 96]" = torch.ops.aten.view.default(addmm, [2, 16, 96]);  addmm = None
        split_with_sizes = torch.ops.aten.split_with_sizes.default(view_1, [32, 32, 32], -1);  view_1 = None
        getitem_3: "bf16[2, 16, 32]" = split_with_sizes[0]
        getitem_4: "bf16[2, 16, 32]" = split_with_sizes[1]
        getitem_5: "bf16[2, 16, 32]" = split_with_sizes[2];  split_with_sizes = None
        view_2: "bf16[2, 16, 2, 16]" = torch.ops.aten.view.default(getitem_3, [2, 16, 2, 16]);  getitem_3 = None
        permute_1: "bf16[2, 2, 16, 16]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None
        view_3: "bf16[2, 16, 2, 16]" = torch.ops.aten.view.default(getitem_4, [2, 16, 2, 16]);  getitem_4 = None
        permute_2: "bf16[2, 2, 16, 16]" = torch.ops.aten.permute.default(view_3, [0, 2, 1, 3]);  view_3 = None
        view_4: "bf16[2, 16, 2, 16]" = torch.ops.aten.view.default(getitem_5, [2, 16, 2, 16]);  getitem_5 = None
        permute_3: "bf16[2, 2, 16, 16]" = torch.ops.aten.permute.default(view_4, [0, 2, 1, 3]);  view_4 = None
        permute_4: "bf16[2, 2, 16, 16]" = torch.ops.aten.permute.default(permute_2, [0, 1, 3, 2]);  permute_2 = None
        expand: "bf16[2, 2, 16, 16]" = torch.ops.aten.expand.default(permute_1, [2, 2, 16, 16]);  permute_1 = None
        clone: "bf16[2, 2, 16, 16]" = torch.ops.aten.clone.default(expand, memory_format = torch.contiguous_format);  expand = None
        view_5: "bf16[4, 16, 16]" = torch.ops.aten.view.default(clone, [4, 16, 16]);  clone = None
        expand_1: "bf16[2, 2, 16, 16]" = torch.ops.aten.expand.default(permute_4, [2, 2, 16, 16]);  permute_4 = None
        clone_1: "bf16[2, 2, 16, 16]" = torch.ops.aten.clone.default(expand_1, memory_format = torch.contiguous_format);  expand_1 = None
        view_6: "bf16[4, 16, 16]" = torch.ops.aten.view.default(clone_1, [4, 16, 16]);  clone_1 = None
        bmm: "bf16[4, 16, 16]" = torch.ops.aten.bmm.default(view_5, view_6);  view_5 = view_6 = None
        view_7: "bf16[2, 2, 16, 16]" = torch.ops.aten.view.default(bmm, [2, 2, 16, 16]);  bmm = None
        div: "bf16[2, 2, 16, 16]" = torch.ops.aten.div.Tensor(view_7, 4.0);  view_7 = None
        full: "b8[16, 16]" = torch.ops.aten.full.default([16, 16], True, dtype = torch.bool, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        arange: "i64[16]" = torch.ops.aten.arange.start_step(0, 16, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze: "i64[1, 16]" = torch.ops.aten.unsqueeze.default(arange, -2);  arange = None
        arange_1: "i64[16]" = torch.ops.aten.arange.start_step(0, 16, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        unsqueeze_1: "i64[16, 1]" = torch.ops.aten.unsqueeze.default(arange_1, -1);  arange_1 = None
        sub: "i64[16, 16]" = torch.ops.aten.sub.Tensor(unsqueeze, unsqueeze_1);  unsqueeze = unsqueeze_1 = None
        le: "b8[16, 16]" = torch.ops.aten.le.Scalar(sub, 0);  sub = None
        logical_and: "b8[16, 16]" = torch.ops.aten.logical_and.default(le, full);  le = full = None
        bitwise_not: "b8[16, 16]" = torch.ops.aten.bitwise_not.default(logical_and);  logical_and = None
        scalar_tensor: "bf16[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.bfloat16, layout = torch.strided, device = device(type='cpu'))
        where: "bf16[2, 2, 16, 16]" = torch.ops.aten.where.self(bitwise_not, scalar_tensor, div);  bitwise_not = scalar_tensor = div = None
        _softmax: "bf16[2, 2, 16, 16]" = torch.ops.aten._softmax.default(where, -1, False);  where = None
        expand_2: "bf16[2, 2, 16, 16]" = torch.ops.aten.expand.default(_softmax, [2, 2, 16, 16]);  _softmax = None
        view_8: "bf16[4, 16, 16]" = torch.ops.aten.view.default(expand_2, [4, 16, 16]);  expand_2 = None
        expand_3: "bf16[2, 2, 16, 16]" = torch.ops.aten.expand.default(permute_3, [2, 2, 16, 16]);  permute_3 = None
        clone_2: "bf16[2, 2, 16, 16]" = torch.ops.aten.clone.default(expand_3, memory_format = torch.contiguous_format);  expand_3 = None
        view_9: "bf16[4, 16, 16]" = torch.ops.aten.view.default(clone_2, [4, 16, 16]);  clone_2 = None
        bmm_1: "bf16[4, 16, 16]" = torch.ops.aten.bmm.default(view_8, view_9);  view_8 = view_9 = None
        view_10: "bf16[2, 2, 16, 16]" = torch.ops.aten.view.default(bmm_1, [2, 2, 16, 16]);  bmm_1 = None
        permute_5: "bf16[2, 16, 2, 16]" = torch.ops.aten.permute.default(view_10, [0, 2, 1, 3]);  view_10 = None
        clone_3: "bf16[2, 16, 2, 16]" = torch.ops.aten.clone.default(permute_5, memory_format = torch.contiguous_format);  permute_5 = None
        view_11: "bf16[2, 16, 32]" = torch.ops.aten.view.default(clone_3, [2, 16, 32]);  clone_3 = None
        view_12: "bf16[32, 32]" = torch.ops.aten.view.default(view_11, [32, 32]);  view_11 = None
        permute_6: "bf16[32, 32]" = torch.ops.aten.permute.default(p_proj_weight, [1, 0]);  p_proj_weight = None
        addmm_1: "bf16[32, 32]" = torch.ops.aten.addmm.default(p_proj_bias, view_12, permute_6);  p_proj_bias = view_12 = permute_6 = None
        view_13: "bf16[2, 16, 32]" = torch.ops.aten.view.default(addmm_1, [2, 16, 32]);  addmm_1 = None
        add: "bf16[2, 16, 32]" = torch.ops.aten.add.Tensor(x, view_13);  x = view_13 = None
        native_layer_norm_1 = torch.ops.aten.native_layer_norm.default(add, [32], p_ln2_weight, p_ln2_bias, 1e-05);  p_ln2_weight = p_ln2_bias = None
        getitem_6: "bf16[2, 16, 32]" = native_layer_norm_1[0];  native_layer_norm_1 = None
        view_14: "bf16[32, 32]" = torch.ops.aten.view.default(getitem_6, [32, 32]);  getitem_6 = None
        permute_7: "bf16[32, 128]" = torch.ops.aten.permute.default(p_fc_weight, [1, 0]);  p_fc_weight = None
        addmm_2: "bf16[32, 128]" = torch.ops.aten.addmm.default(p_fc_bias, view_14, permute_7);  p_fc_bias = view_14 = permute_7 = None
        view_15: "bf16[2, 16, 128]" = torch.ops.aten.view.default(addmm_2, [2, 16, 128]);  addmm_2 = None
        gelu: "bf16[2, 16, 128]" = torch.ops.aten.gelu.default(view_15, approximate = 'tanh');  view_15 = None
        view_16: "bf16[32, 128]" = torch.ops.aten.view.default(gelu, [32, 128]);  gelu = None
        permute_8: "bf16[128, 32]" = torch.ops.aten.permute.default(p_out_weight, [1, 0]);  p_out_weight = None
        addmm_3: "bf16[32, 32]" = torch.ops.aten.addmm.default(p_out_bias, view_16, permute_8);  p_out_bias = view_16 = permute_8 = None
        view_17: "bf16[2, 16, 32]" = torch.ops.aten.view.default(addmm_3, [2, 16, 32]);  addmm_3 = None
        add_1: "bf16[2, 16, 32]" = torch.ops.aten.add.Tensor(add, view_17);  add = view_17 = None
        return (add_1,)
