class GraphModule(torch.nn.Module):
    def forward(self, p_m_model_embed_tokens_weight: "f32[1000, 64]", p_m_model_layers_0_self_attn_q_proj_weight: "f32[64, 64]", p_m_model_layers_0_self_attn_k_proj_weight: "f32[32, 64]", p_m_model_layers_0_self_attn_v_proj_weight: "f32[32, 64]", p_m_model_layers_0_self_attn_o_proj_weight: "f32[64, 64]", p_m_model_layers_0_mlp_gate_proj_weight: "f32[128, 64]", p_m_model_layers_0_mlp_up_proj_weight: "f32[128, 64]", p_m_model_layers_0_mlp_down_proj_weight: "f32[64, 128]", p_m_model_layers_0_input_layernorm_weight: "f32[64]", p_m_model_layers_0_post_attention_layernorm_weight: "f32[64]", p_m_model_layers_1_self_attn_q_proj_weight: "f32[64, 64]", p_m_model_layers_1_self_attn_k_proj_weight: "f32[32, 64]", p_m_model_layers_1_self_attn_v_proj_weight: "f32[32, 64]", p_m_model_layers_1_self_attn_o_proj_weight: "f32[64, 64]", p_m_model_layers_1_mlp_gate_proj_weight: "f32[128, 64]", p_m_model_layers_1_mlp_up_proj_weight: "f32[128, 64]", p_m_model_layers_1_mlp_down_proj_weight: "f32[64, 128]", p_m_model_layers_1_input_layernorm_weight: "f32[64]", p_m_model_layers_1_post_attention_layernorm_weight: "f32[64]", p_m_model_norm_weight: "f32[64]", p_m_lm_head_weight: "f32[1000, 64]", b_m_model_rotary_emb_inv_freq: "f32[16]", b_m_model_rotary_emb_original_inv_freq: "f32[16]", input_ids: "i64[1, 32]"):
        embedding: "f32[1, 32, 64]" = torch.ops.aten.embedding.default(p_m_model_embed_tokens_weight, input_ids);  p_m_model_embed_tokens_weight = input_ids = None
        arange: "i64[32]" = torch.ops.aten.arange.start_step(0, 32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        add: "i64[32]" = torch.ops.aten.add.Tensor(arange, 0);  arange = None
        unsqueeze: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(add, 0);  add = None
        slice_1: "i64[1, 1]" = torch.ops.aten.slice.Tensor(unsqueeze, 1, 0, 1)
        sub: "i64[1, 1]" = torch.ops.aten.sub.Tensor(slice_1, 1);  slice_1 = None
        cat: "i64[1, 33]" = torch.ops.aten.cat.default([sub, unsqueeze], -1);  sub = None
        slice_2: "i64[1, 32]" = torch.ops.aten.slice.Tensor(cat, -1, 0, 32)
        slice_3: "i64[1, 32]" = torch.ops.aten.slice.Tensor(cat, -1, 1, 33);  cat = None
        sub_1: "i64[1, 32]" = torch.ops.aten.sub.Tensor(slice_3, slice_2);  slice_3 = slice_2 = None
        ne: "b8[1, 32]" = torch.ops.aten.ne.Scalar(sub_1, 1);  sub_1 = None
        cumsum: "i64[1, 32]" = torch.ops.aten.cumsum.default(ne, -1);  ne = None
        expand: "i64[1, 32]" = torch.ops.aten.expand.default(unsqueeze, [1, -1])
        arange_1: "i64[1]" = torch.ops.aten.arange.start_step(0, 1, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        arange_3: "i64[32]" = torch.ops.aten.arange.start_step(0, 32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        add_1: "i64[32]" = torch.ops.aten.add.Tensor(arange_3, 0);  arange_3 = None
        arange_4: "i64[32]" = torch.ops.aten.arange.start_step(0, 32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        add_2: "i64[32]" = torch.ops.aten.add.Tensor(arange_4, 0);  arange_4 = None
        unsqueeze_1: "i64[1, 1]" = torch.ops.aten.unsqueeze.default(arange_1, 1);  arange_1 = None
        unsqueeze_2: "i64[1, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_1, 2);  unsqueeze_1 = None
        unsqueeze_3: "i64[1, 1, 1, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_2, 3);  unsqueeze_2 = None
        unsqueeze_7: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(add_1, 0);  add_1 = None
        unsqueeze_8: "i64[1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_7, 1);  unsqueeze_7 = None
        unsqueeze_9: "i64[1, 1, 32, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_8, 3);  unsqueeze_8 = None
        unsqueeze_10: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(add_2, 0);  add_2 = None
        unsqueeze_11: "i64[1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_10, 1);  unsqueeze_10 = None
        unsqueeze_12: "i64[1, 1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_11, 2);  unsqueeze_11 = None
        full: "b8[]" = torch.ops.aten.full.default([], True, dtype = torch.bool, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        index: "i64[1, 1, 32, 1]" = torch.ops.aten.index.Tensor(expand, [unsqueeze_3, unsqueeze_9])
        index_1: "i64[1, 1, 1, 32]" = torch.ops.aten.index.Tensor(expand, [unsqueeze_3, unsqueeze_12]);  expand = None
        le: "b8[1, 1, 32, 32]" = torch.ops.aten.le.Tensor(index_1, index);  index_1 = index = None
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(le, None, None, torch.bool, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        bitwise_and: "b8[1, 1, 32, 32]" = torch.ops.aten.bitwise_and.Tensor(full, le);  full = le = None
        index_2: "i64[1, 1, 32, 1]" = torch.ops.aten.index.Tensor(cumsum, [unsqueeze_3, unsqueeze_9]);  unsqueeze_9 = None
        index_3: "i64[1, 1, 1, 32]" = torch.ops.aten.index.Tensor(cumsum, [unsqueeze_3, unsqueeze_12]);  cumsum = unsqueeze_3 = unsqueeze_12 = None
        eq: "b8[1, 1, 32, 32]" = torch.ops.aten.eq.Tensor(index_2, index_3);  index_2 = index_3 = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(eq, None, None, torch.bool, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        bitwise_and_1: "b8[1, 1, 32, 32]" = torch.ops.aten.bitwise_and.Tensor(bitwise_and, eq);  bitwise_and = eq = None
        expand_1: "b8[1, 1, 32, 32]" = torch.ops.aten.expand.default(bitwise_and_1, [1, -1, 32, 32]);  bitwise_and_1 = None
        unsqueeze_13: "i64[1, 32, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze, 2);  unsqueeze = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(unsqueeze_13, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy: "f32[1, 32, 1]" = torch.ops.aten._to_copy.default(unsqueeze_13, dtype = torch.float32);  unsqueeze_13 = None
        _assert_tensor_metadata_3 = torch.ops.aten._assert_tensor_metadata.default(b_m_model_rotary_emb_inv_freq, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_3 = None
        mul: "f32[1, 32, 16]" = torch.ops.aten.mul.Tensor(_to_copy, b_m_model_rotary_emb_inv_freq);  _to_copy = b_m_model_rotary_emb_inv_freq = None
        cat_1: "f32[1, 32, 32]" = torch.ops.aten.cat.default([mul, mul], -1);  mul = None
        cos: "f32[1, 32, 32]" = torch.ops.aten.cos.default(cat_1)
        mul_1: "f32[1, 32, 32]" = torch.ops.aten.mul.Tensor(cos, 1.0);  cos = None
        sin: "f32[1, 32, 32]" = torch.ops.aten.sin.default(cat_1);  cat_1 = None
        mul_2: "f32[1, 32, 32]" = torch.ops.aten.mul.Tensor(sin, 1.0);  sin = None
        _assert_tensor_metadata_4 = torch.ops.aten._assert_tensor_metadata.default(mul_1, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_4 = None
        _assert_tensor_metadata_5 = torch.ops.aten._assert_tensor_metadata.default(mul_2, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_5 = None
        _assert_tensor_metadata_6 = torch.ops.aten._assert_tensor_metadata.default(embedding, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_6 = None
        pow_1: "f32[1, 32, 64]" = torch.ops.aten.pow.Tensor_Scalar(embedding, 2)
        mean: "f32[1, 32, 1]" = torch.ops.aten.mean.dim(pow_1, [-1], True);  pow_1 = None
        add_3: "f32[1, 32, 1]" = torch.ops.aten.add.Tensor(mean, 1e-06);  mean = None
        rsqrt: "f32[1, 32, 1]" = torch.ops.aten.rsqrt.default(add_3);  add_3 = None
        mul_3: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(embedding, rsqrt);  rsqrt = None
        _assert_tensor_metadata_7 = torch.ops.aten._assert_tensor_metadata.default(mul_3, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_7 = None
        mul_4: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(p_m_model_layers_0_input_layernorm_weight, mul_3);  p_m_model_layers_0_input_layernorm_weight = mul_3 = None
        permute: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_model_layers_0_self_attn_q_proj_weight, [1, 0]);  p_m_model_layers_0_self_attn_q_proj_weight = None
        view: "f32[32, 64]" = torch.ops.aten.view.default(mul_4, [32, 64])
        mm: "f32[32, 64]" = torch.ops.aten.mm.default(view, permute);  view = permute = None
        view_1: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm, [1, 32, 64]);  mm = None
        view_2: "f32[1, 32, 2, 32]" = torch.ops.aten.view.default(view_1, [1, 32, -1, 32]);  view_1 = None
        permute_1: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None
        permute_2: "f32[64, 32]" = torch.ops.aten.permute.default(p_m_model_layers_0_self_attn_k_proj_weight, [1, 0]);  p_m_model_layers_0_self_attn_k_proj_weight = None
        view_3: "f32[32, 64]" = torch.ops.aten.view.default(mul_4, [32, 64])
        mm_1: "f32[32, 32]" = torch.ops.aten.mm.default(view_3, permute_2);  view_3 = permute_2 = None
        view_4: "f32[1, 32, 32]" = torch.ops.aten.view.default(mm_1, [1, 32, 32]);  mm_1 = None
        view_5: "f32[1, 32, 1, 32]" = torch.ops.aten.view.default(view_4, [1, 32, -1, 32]);  view_4 = None
        permute_3: "f32[1, 1, 32, 32]" = torch.ops.aten.permute.default(view_5, [0, 2, 1, 3]);  view_5 = None
        permute_4: "f32[64, 32]" = torch.ops.aten.permute.default(p_m_model_layers_0_self_attn_v_proj_weight, [1, 0]);  p_m_model_layers_0_self_attn_v_proj_weight = None
        view_6: "f32[32, 64]" = torch.ops.aten.view.default(mul_4, [32, 64]);  mul_4 = None
        mm_2: "f32[32, 32]" = torch.ops.aten.mm.default(view_6, permute_4);  view_6 = permute_4 = None
        view_7: "f32[1, 32, 32]" = torch.ops.aten.view.default(mm_2, [1, 32, 32]);  mm_2 = None
        view_8: "f32[1, 32, 1, 32]" = torch.ops.aten.view.default(view_7, [1, 32, -1, 32]);  view_7 = None
        permute_5: "f32[1, 1, 32, 32]" = torch.ops.aten.permute.default(view_8, [0, 2, 1, 3]);  view_8 = None
        unsqueeze_14: "f32[1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(mul_1, 1)
        unsqueeze_15: "f32[1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(mul_2, 1)
        mul_5: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Tensor(permute_1, unsqueeze_14)
        slice_4: "f32[1, 2, 32, 16]" = torch.ops.aten.slice.Tensor(permute_1, 3, 0, 16)
        slice_5: "f32[1, 2, 32, 16]" = torch.ops.aten.slice.Tensor(permute_1, 3, 16, 9223372036854775807);  permute_1 = None
        neg: "f32[1, 2, 32, 16]" = torch.ops.aten.neg.default(slice_5);  slice_5 = None
        cat_2: "f32[1, 2, 32, 32]" = torch.ops.aten.cat.default([neg, slice_4], -1);  neg = slice_4 = None
        mul_6: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Tensor(cat_2, unsqueeze_15);  cat_2 = None
        add_4: "f32[1, 2, 32, 32]" = torch.ops.aten.add.Tensor(mul_5, mul_6);  mul_5 = mul_6 = None
        mul_7: "f32[1, 1, 32, 32]" = torch.ops.aten.mul.Tensor(permute_3, unsqueeze_14);  unsqueeze_14 = None
        slice_6: "f32[1, 1, 32, 16]" = torch.ops.aten.slice.Tensor(permute_3, 3, 0, 16)
        slice_7: "f32[1, 1, 32, 16]" = torch.ops.aten.slice.Tensor(permute_3, 3, 16, 9223372036854775807);  permute_3 = None
        neg_1: "f32[1, 1, 32, 16]" = torch.ops.aten.neg.default(slice_7);  slice_7 = None
        cat_3: "f32[1, 1, 32, 32]" = torch.ops.aten.cat.default([neg_1, slice_6], -1);  neg_1 = slice_6 = None
        mul_8: "f32[1, 1, 32, 32]" = torch.ops.aten.mul.Tensor(cat_3, unsqueeze_15);  cat_3 = unsqueeze_15 = None
        add_5: "f32[1, 1, 32, 32]" = torch.ops.aten.add.Tensor(mul_7, mul_8);  mul_7 = mul_8 = None
        unsqueeze_16: "f32[1, 1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(add_5, 2);  add_5 = None
        expand_2: "f32[1, 1, 2, 32, 32]" = torch.ops.aten.expand.default(unsqueeze_16, [1, 1, 2, 32, 32]);  unsqueeze_16 = None
        view_9: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(expand_2, [1, 2, 32, 32]);  expand_2 = None
        unsqueeze_17: "f32[1, 1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(permute_5, 2);  permute_5 = None
        expand_3: "f32[1, 1, 2, 32, 32]" = torch.ops.aten.expand.default(unsqueeze_17, [1, 1, 2, 32, 32]);  unsqueeze_17 = None
        view_10: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(expand_3, [1, 2, 32, 32]);  expand_3 = None
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[1, 1, 32, 32]" = torch.ops.aten.where.self(expand_1, scalar_tensor_1, scalar_tensor);  scalar_tensor_1 = scalar_tensor = None
        mul_9: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Scalar(add_4, 0.4204482076268573);  add_4 = None
        permute_6: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(view_9, [0, 1, 3, 2]);  view_9 = None
        mul_10: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_6, 0.4204482076268573);  permute_6 = None
        expand_4: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(mul_9, [1, 2, 32, 32]);  mul_9 = None
        view_11: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_4, [2, 32, 32]);  expand_4 = None
        expand_5: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(mul_10, [1, 2, 32, 32]);  mul_10 = None
        view_12: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_5, [2, 32, 32]);  expand_5 = None
        bmm: "f32[2, 32, 32]" = torch.ops.aten.bmm.default(view_11, view_12);  view_11 = view_12 = None
        view_13: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(bmm, [1, 2, 32, 32]);  bmm = None
        add_6: "f32[1, 2, 32, 32]" = torch.ops.aten.add.Tensor(view_13, where);  view_13 = where = None
        _softmax: "f32[1, 2, 32, 32]" = torch.ops.aten._softmax.default(add_6, -1, False)
        eq_1: "b8[1, 2, 32, 32]" = torch.ops.aten.eq.Scalar(add_6, -inf);  add_6 = None
        logical_not: "b8[1, 2, 32, 32]" = torch.ops.aten.logical_not.default(eq_1);  eq_1 = None
        any_1: "b8[1, 2, 32, 1]" = torch.ops.aten.any.dim(logical_not, -1, True);  logical_not = None
        logical_not_1: "b8[1, 2, 32, 1]" = torch.ops.aten.logical_not.default(any_1);  any_1 = None
        full_like: "f32[1, 2, 32, 32]" = torch.ops.aten.full_like.default(_softmax, 0, pin_memory = False, memory_format = torch.preserve_format)
        where_1: "f32[1, 2, 32, 32]" = torch.ops.aten.where.self(logical_not_1, full_like, _softmax);  logical_not_1 = full_like = _softmax = None
        expand_6: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(where_1, [1, 2, 32, 32]);  where_1 = None
        view_14: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_6, [2, 32, 32]);  expand_6 = None
        expand_7: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(view_10, [1, 2, 32, 32]);  view_10 = None
        view_15: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_7, [2, 32, 32]);  expand_7 = None
        bmm_1: "f32[2, 32, 32]" = torch.ops.aten.bmm.default(view_14, view_15);  view_14 = view_15 = None
        view_16: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(bmm_1, [1, 2, 32, 32]);  bmm_1 = None
        permute_7: "f32[32, 1, 2, 32]" = torch.ops.aten.permute.default(view_16, [2, 0, 1, 3]);  view_16 = None
        clone: "f32[32, 1, 2, 32]" = torch.ops.aten.clone.default(permute_7, memory_format = torch.contiguous_format);  permute_7 = None
        permute_8: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(clone, [1, 2, 0, 3]);  clone = None
        view_17: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(permute_8, [1, 2, 32, 32]);  permute_8 = None
        permute_9: "f32[1, 32, 2, 32]" = torch.ops.aten.permute.default(view_17, [0, 2, 1, 3]);  view_17 = None
        view_18: "f32[1, 32, 64]" = torch.ops.aten.view.default(permute_9, [1, 32, -1]);  permute_9 = None
        permute_10: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_model_layers_0_self_attn_o_proj_weight, [1, 0]);  p_m_model_layers_0_self_attn_o_proj_weight = None
        view_19: "f32[32, 64]" = torch.ops.aten.view.default(view_18, [32, 64]);  view_18 = None
        mm_3: "f32[32, 64]" = torch.ops.aten.mm.default(view_19, permute_10);  view_19 = permute_10 = None
        view_20: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm_3, [1, 32, 64]);  mm_3 = None
        add_7: "f32[1, 32, 64]" = torch.ops.aten.add.Tensor(embedding, view_20);  embedding = view_20 = None
        _assert_tensor_metadata_8 = torch.ops.aten._assert_tensor_metadata.default(add_7, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_8 = None
        pow_2: "f32[1, 32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_7, 2)
        mean_1: "f32[1, 32, 1]" = torch.ops.aten.mean.dim(pow_2, [-1], True);  pow_2 = None
        add_8: "f32[1, 32, 1]" = torch.ops.aten.add.Tensor(mean_1, 1e-06);  mean_1 = None
        rsqrt_1: "f32[1, 32, 1]" = torch.ops.aten.rsqrt.default(add_8);  add_8 = None
        mul_11: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(add_7, rsqrt_1);  rsqrt_1 = None
        _assert_tensor_metadata_9 = torch.ops.aten._assert_tensor_metadata.default(mul_11, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_9 = None
        mul_12: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(p_m_model_layers_0_post_attention_layernorm_weight, mul_11);  p_m_model_layers_0_post_attention_layernorm_weight = mul_11 = None
        permute_11: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_model_layers_0_mlp_gate_proj_weight, [1, 0]);  p_m_model_layers_0_mlp_gate_proj_weight = None
        view_21: "f32[32, 64]" = torch.ops.aten.view.default(mul_12, [32, 64])
        mm_4: "f32[32, 128]" = torch.ops.aten.mm.default(view_21, permute_11);  view_21 = permute_11 = None
        view_22: "f32[1, 32, 128]" = torch.ops.aten.view.default(mm_4, [1, 32, 128]);  mm_4 = None
        sigmoid: "f32[1, 32, 128]" = torch.ops.aten.sigmoid.default(view_22)
        mul_13: "f32[1, 32, 128]" = torch.ops.aten.mul.Tensor(view_22, sigmoid);  view_22 = sigmoid = None
        permute_12: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_model_layers_0_mlp_up_proj_weight, [1, 0]);  p_m_model_layers_0_mlp_up_proj_weight = None
        view_23: "f32[32, 64]" = torch.ops.aten.view.default(mul_12, [32, 64]);  mul_12 = None
        mm_5: "f32[32, 128]" = torch.ops.aten.mm.default(view_23, permute_12);  view_23 = permute_12 = None
        view_24: "f32[1, 32, 128]" = torch.ops.aten.view.default(mm_5, [1, 32, 128]);  mm_5 = None
        mul_14: "f32[1, 32, 128]" = torch.ops.aten.mul.Tensor(mul_13, view_24);  mul_13 = view_24 = None
        permute_13: "f32[128, 64]" = torch.ops.aten.permute.default(p_m_model_layers_0_mlp_down_proj_weight, [1, 0]);  p_m_model_layers_0_mlp_down_proj_weight = None
        view_25: "f32[32, 128]" = torch.ops.aten.view.default(mul_14, [32, 128]);  mul_14 = None
        mm_6: "f32[32, 64]" = torch.ops.aten.mm.default(view_25, permute_13);  view_25 = permute_13 = None
        view_26: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm_6, [1, 32, 64]);  mm_6 = None
        add_9: "f32[1, 32, 64]" = torch.ops.aten.add.Tensor(add_7, view_26);  add_7 = view_26 = None
        _assert_tensor_metadata_10 = torch.ops.aten._assert_tensor_metadata.default(add_9, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_10 = None
        pow_3: "f32[1, 32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_9, 2)
        mean_2: "f32[1, 32, 1]" = torch.ops.aten.mean.dim(pow_3, [-1], True);  pow_3 = None
        add_10: "f32[1, 32, 1]" = torch.ops.aten.add.Tensor(mean_2, 1e-06);  mean_2 = None
        rsqrt_2: "f32[1, 32, 1]" = torch.ops.aten.rsqrt.default(add_10);  add_10 = None
        mul_15: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(add_9, rsqrt_2);  rsqrt_2 = None
        _assert_tensor_metadata_11 = torch.ops.aten._assert_tensor_metadata.default(mul_15, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_11 = None
        mul_16: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(p_m_model_layers_1_input_layernorm_weight, mul_15);  p_m_model_layers_1_input_layernorm_weight = mul_15 = None
        permute_14: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_model_layers_1_self_attn_q_proj_weight, [1, 0]);  p_m_model_layers_1_self_attn_q_proj_weight = None
        view_27: "f32[32, 64]" = torch.ops.aten.view.default(mul_16, [32, 64])
        mm_7: "f32[32, 64]" = torch.ops.aten.mm.default(view_27, permute_14);  view_27 = permute_14 = None
        view_28: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm_7, [1, 32, 64]);  mm_7 = None
        view_29: "f32[1, 32, 2, 32]" = torch.ops.aten.view.default(view_28, [1, 32, -1, 32]);  view_28 = None
        permute_15: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(view_29, [0, 2, 1, 3]);  view_29 = None
        permute_16: "f32[64, 32]" = torch.ops.aten.permute.default(p_m_model_layers_1_self_attn_k_proj_weight, [1, 0]);  p_m_model_layers_1_self_attn_k_proj_weight = None
        view_30: "f32[32, 64]" = torch.ops.aten.view.default(mul_16, [32, 64])
        mm_8: "f32[32, 32]" = torch.ops.aten.mm.default(view_30, permute_16);  view_30 = permute_16 = None
        view_31: "f32[1, 32, 32]" = torch.ops.aten.view.default(mm_8, [1, 32, 32]);  mm_8 = None
        view_32: "f32[1, 32, 1, 32]" = torch.ops.aten.view.default(view_31, [1, 32, -1, 32]);  view_31 = None
        permute_17: "f32[1, 1, 32, 32]" = torch.ops.aten.permute.default(view_32, [0, 2, 1, 3]);  view_32 = None
        permute_18: "f32[64, 32]" = torch.ops.aten.permute.default(p_m_model_layers_1_self_attn_v_proj_weight, [1, 0]);  p_m_model_layers_1_self_attn_v_proj_weight = None
        view_33: "f32[32, 64]" = torch.ops.aten.view.default(mul_16, [32, 64]);  mul_16 = None
        mm_9: "f32[32, 32]" = torch.ops.aten.mm.default(view_33, permute_18);  view_33 = permute_18 = None
        view_34: "f32[1, 32, 32]" = torch.ops.aten.view.default(mm_9, [1, 32, 32]);  mm_9 = None
        view_35: "f32[1, 32, 1, 32]" = torch.ops.aten.view.default(view_34, [1, 32, -1, 32]);  view_34 = None
        permute_19: "f32[1, 1, 32, 32]" = torch.ops.aten.permute.default(view_35, [0, 2, 1, 3]);  view_35 = None
        unsqueeze_18: "f32[1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(mul_1, 1);  mul_1 = None
        unsqueeze_19: "f32[1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(mul_2, 1);  mul_2 = None
        mul_17: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Tensor(permute_15, unsqueeze_18)
        slice_8: "f32[1, 2, 32, 16]" = torch.ops.aten.slice.Tensor(permute_15, 3, 0, 16)
        slice_9: "f32[1, 2, 32, 16]" = torch.ops.aten.slice.Tensor(permute_15, 3, 16, 9223372036854775807);  permute_15 = None
        neg_2: "f32[1, 2, 32, 16]" = torch.ops.aten.neg.default(slice_9);  slice_9 = None
        cat_4: "f32[1, 2, 32, 32]" = torch.ops.aten.cat.default([neg_2, slice_8], -1);  neg_2 = slice_8 = None
        mul_18: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Tensor(cat_4, unsqueeze_19);  cat_4 = None
        add_11: "f32[1, 2, 32, 32]" = torch.ops.aten.add.Tensor(mul_17, mul_18);  mul_17 = mul_18 = None
        mul_19: "f32[1, 1, 32, 32]" = torch.ops.aten.mul.Tensor(permute_17, unsqueeze_18);  unsqueeze_18 = None
        slice_10: "f32[1, 1, 32, 16]" = torch.ops.aten.slice.Tensor(permute_17, 3, 0, 16)
        slice_11: "f32[1, 1, 32, 16]" = torch.ops.aten.slice.Tensor(permute_17, 3, 16, 9223372036854775807);  permute_17 = None
        neg_3: "f32[1, 1, 32, 16]" = torch.ops.aten.neg.default(slice_11);  slice_11 = None
        cat_5: "f32[1, 1, 32, 32]" = torch.ops.aten.cat.default([neg_3, slice_10], -1);  neg_3 = slice_10 = None
        mul_20: "f32[1, 1, 32, 32]" = torch.ops.aten.mul.Tensor(cat_5, unsqueeze_19);  cat_5 = unsqueeze_19 = None
        add_12: "f32[1, 1, 32, 32]" = torch.ops.aten.add.Tensor(mul_19, mul_20);  mul_19 = mul_20 = None
        unsqueeze_20: "f32[1, 1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(add_12, 2);  add_12 = None
        expand_8: "f32[1, 1, 2, 32, 32]" = torch.ops.aten.expand.default(unsqueeze_20, [1, 1, 2, 32, 32]);  unsqueeze_20 = None
        view_36: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(expand_8, [1, 2, 32, 32]);  expand_8 = None
        unsqueeze_21: "f32[1, 1, 1, 32, 32]" = torch.ops.aten.unsqueeze.default(permute_19, 2);  permute_19 = None
        expand_9: "f32[1, 1, 2, 32, 32]" = torch.ops.aten.expand.default(unsqueeze_21, [1, 1, 2, 32, 32]);  unsqueeze_21 = None
        view_37: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(expand_9, [1, 2, 32, 32]);  expand_9 = None
        scalar_tensor_2: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
        scalar_tensor_3: "f32[]" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_2: "f32[1, 1, 32, 32]" = torch.ops.aten.where.self(expand_1, scalar_tensor_3, scalar_tensor_2);  expand_1 = scalar_tensor_3 = scalar_tensor_2 = None
        mul_21: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Scalar(add_11, 0.4204482076268573);  add_11 = None
        permute_20: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(view_36, [0, 1, 3, 2]);  view_36 = None
        mul_22: "f32[1, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_20, 0.4204482076268573);  permute_20 = None
        expand_10: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(mul_21, [1, 2, 32, 32]);  mul_21 = None
        view_38: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_10, [2, 32, 32]);  expand_10 = None
        expand_11: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(mul_22, [1, 2, 32, 32]);  mul_22 = None
        view_39: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_11, [2, 32, 32]);  expand_11 = None
        bmm_2: "f32[2, 32, 32]" = torch.ops.aten.bmm.default(view_38, view_39);  view_38 = view_39 = None
        view_40: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(bmm_2, [1, 2, 32, 32]);  bmm_2 = None
        add_13: "f32[1, 2, 32, 32]" = torch.ops.aten.add.Tensor(view_40, where_2);  view_40 = where_2 = None
        _softmax_1: "f32[1, 2, 32, 32]" = torch.ops.aten._softmax.default(add_13, -1, False)
        eq_2: "b8[1, 2, 32, 32]" = torch.ops.aten.eq.Scalar(add_13, -inf);  add_13 = None
        logical_not_2: "b8[1, 2, 32, 32]" = torch.ops.aten.logical_not.default(eq_2);  eq_2 = None
        any_2: "b8[1, 2, 32, 1]" = torch.ops.aten.any.dim(logical_not_2, -1, True);  logical_not_2 = None
        logical_not_3: "b8[1, 2, 32, 1]" = torch.ops.aten.logical_not.default(any_2);  any_2 = None
        full_like_1: "f32[1, 2, 32, 32]" = torch.ops.aten.full_like.default(_softmax_1, 0, pin_memory = False, memory_format = torch.preserve_format)
        where_3: "f32[1, 2, 32, 32]" = torch.ops.aten.where.self(logical_not_3, full_like_1, _softmax_1);  logical_not_3 = full_like_1 = _softmax_1 = None
        expand_12: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(where_3, [1, 2, 32, 32]);  where_3 = None
        view_41: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_12, [2, 32, 32]);  expand_12 = None
        expand_13: "f32[1, 2, 32, 32]" = torch.ops.aten.expand.default(view_37, [1, 2, 32, 32]);  view_37 = None
        view_42: "f32[2, 32, 32]" = torch.ops.aten.view.default(expand_13, [2, 32, 32]);  expand_13 = None
        bmm_3: "f32[2, 32, 32]" = torch.ops.aten.bmm.default(view_41, view_42);  view_41 = view_42 = None
        view_43: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(bmm_3, [1, 2, 32, 32]);  bmm_3 = None
        permute_21: "f32[32, 1, 2, 32]" = torch.ops.aten.permute.default(view_43, [2, 0, 1, 3]);  view_43 = None
        clone_1: "f32[32, 1, 2, 32]" = torch.ops.aten.clone.default(permute_21, memory_format = torch.contiguous_format);  permute_21 = None
        permute_22: "f32[1, 2, 32, 32]" = torch.ops.aten.permute.default(clone_1, [1, 2, 0, 3]);  clone_1 = None
        view_44: "f32[1, 2, 32, 32]" = torch.ops.aten.view.default(permute_22, [1, 2, 32, 32]);  permute_22 = None
        permute_23: "f32[1, 32, 2, 32]" = torch.ops.aten.permute.default(view_44, [0, 2, 1, 3]);  view_44 = None
        view_45: "f32[1, 32, 64]" = torch.ops.aten.view.default(permute_23, [1, 32, -1]);  permute_23 = None
        permute_24: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_model_layers_1_self_attn_o_proj_weight, [1, 0]);  p_m_model_layers_1_self_attn_o_proj_weight = None
        view_46: "f32[32, 64]" = torch.ops.aten.view.default(view_45, [32, 64]);  view_45 = None
        mm_10: "f32[32, 64]" = torch.ops.aten.mm.default(view_46, permute_24);  view_46 = permute_24 = None
        view_47: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm_10, [1, 32, 64]);  mm_10 = None
        add_14: "f32[1, 32, 64]" = torch.ops.aten.add.Tensor(add_9, view_47);  add_9 = view_47 = None
        _assert_tensor_metadata_12 = torch.ops.aten._assert_tensor_metadata.default(add_14, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_12 = None
        pow_4: "f32[1, 32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_14, 2)
        mean_3: "f32[1, 32, 1]" = torch.ops.aten.mean.dim(pow_4, [-1], True);  pow_4 = None
        add_15: "f32[1, 32, 1]" = torch.ops.aten.add.Tensor(mean_3, 1e-06);  mean_3 = None
        rsqrt_3: "f32[1, 32, 1]" = torch.ops.aten.rsqrt.default(add_15);  add_15 = None
        mul_23: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(add_14, rsqrt_3);  rsqrt_3 = None
        _assert_tensor_metadata_13 = torch.ops.aten._assert_tensor_metadata.default(mul_23, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_13 = None
        mul_24: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(p_m_model_layers_1_post_attention_layernorm_weight, mul_23);  p_m_model_layers_1_post_attention_layernorm_weight = mul_23 = None
        permute_25: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_model_layers_1_mlp_gate_proj_weight, [1, 0]);  p_m_model_layers_1_mlp_gate_proj_weight = None
        view_48: "f32[32, 64]" = torch.ops.aten.view.default(mul_24, [32, 64])
        mm_11: "f32[32, 128]" = torch.ops.aten.mm.default(view_48, permute_25);  view_48 = permute_25 = None
        view_49: "f32[1, 32, 128]" = torch.ops.aten.view.default(mm_11, [1, 32, 128]);  mm_11 = None
        sigmoid_1: "f32[1, 32, 128]" = torch.ops.aten.sigmoid.default(view_49)
        mul_25: "f32[1, 32, 128]" = torch.ops.aten.mul.Tensor(view_49, sigmoid_1);  view_49 = sigmoid_1 = None
        permute_26: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_model_layers_1_mlp_up_proj_weight, [1, 0]);  p_m_model_layers_1_mlp_up_proj_weight = None
        view_50: "f32[32, 64]" = torch.ops.aten.view.default(mul_24, [32, 64]);  mul_24 = None
        mm_12: "f32[32, 128]" = torch.ops.aten.mm.default(view_50, permute_26);  view_50 = permute_26 = None
        view_51: "f32[1, 32, 128]" = torch.ops.aten.view.default(mm_12, [1, 32, 128]);  mm_12 = None
        mul_26: "f32[1, 32, 128]" = torch.ops.aten.mul.Tensor(mul_25, view_51);  mul_25 = view_51 = None
        permute_27: "f32[128, 64]" = torch.ops.aten.permute.default(p_m_model_layers_1_mlp_down_proj_weight, [1, 0]);  p_m_model_layers_1_mlp_down_proj_weight = None
        view_52: "f32[32, 128]" = torch.ops.aten.view.default(mul_26, [32, 128]);  mul_26 = None
        mm_13: "f32[32, 64]" = torch.ops.aten.mm.default(view_52, permute_27);  view_52 = permute_27 = None
        view_53: "f32[1, 32, 64]" = torch.ops.aten.view.default(mm_13, [1, 32, 64]);  mm_13 = None
        add_16: "f32[1, 32, 64]" = torch.ops.aten.add.Tensor(add_14, view_53);  add_14 = view_53 = None
        _assert_tensor_metadata_14 = torch.ops.aten._assert_tensor_metadata.default(add_16, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_14 = None
        pow_5: "f32[1, 32, 64]" = torch.ops.aten.pow.Tensor_Scalar(add_16, 2)
        mean_4: "f32[1, 32, 1]" = torch.ops.aten.mean.dim(pow_5, [-1], True);  pow_5 = None
        add_17: "f32[1, 32, 1]" = torch.ops.aten.add.Tensor(mean_4, 1e-06);  mean_4 = None
        rsqrt_4: "f32[1, 32, 1]" = torch.ops.aten.rsqrt.default(add_17);  add_17 = None
        mul_27: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(add_16, rsqrt_4);  add_16 = rsqrt_4 = None
        _assert_tensor_metadata_15 = torch.ops.aten._assert_tensor_metadata.default(mul_27, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_15 = None
        mul_28: "f32[1, 32, 64]" = torch.ops.aten.mul.Tensor(p_m_model_norm_weight, mul_27);  p_m_model_norm_weight = mul_27 = None
        alias: "f32[1, 32, 64]" = torch.ops.aten.alias.default(mul_28);  mul_28 = None
        permute_28: "f32[64, 1000]" = torch.ops.aten.permute.default(p_m_lm_head_weight, [1, 0]);  p_m_lm_head_weight = None
        view_54: "f32[32, 64]" = torch.ops.aten.view.default(alias, [32, 64]);  alias = None
        mm_14: "f32[32, 1000]" = torch.ops.aten.mm.default(view_54, permute_28);  view_54 = permute_28 = None
        view_55: "f32[1, 32, 1000]" = torch.ops.aten.view.default(mm_14, [1, 32, 1000]);  mm_14 = None
        return (view_55,)
