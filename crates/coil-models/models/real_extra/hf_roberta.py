class GraphModule(torch.nn.Module):
    def forward(self, p_m_embeddings_word_embeddings_weight: "f32[1000, 64]", p_m_embeddings_token_type_embeddings_weight: "f32[2, 64]", p_m_embeddings_layernorm_weight: "f32[64]", p_m_embeddings_layernorm_bias: "f32[64]", p_m_embeddings_position_embeddings_weight: "f32[128, 64]", p_m_encoder_layer_0_attention_self_query_weight: "f32[64, 64]", p_m_encoder_layer_0_attention_self_query_bias: "f32[64]", p_m_encoder_layer_0_attention_self_key_weight: "f32[64, 64]", p_m_encoder_layer_0_attention_self_key_bias: "f32[64]", p_m_encoder_layer_0_attention_self_value_weight: "f32[64, 64]", p_m_encoder_layer_0_attention_self_value_bias: "f32[64]", p_m_encoder_layer_0_attention_output_dense_weight: "f32[64, 64]", p_m_encoder_layer_0_attention_output_dense_bias: "f32[64]", p_m_encoder_layer_0_attention_output_layernorm_weight: "f32[64]", p_m_encoder_layer_0_attention_output_layernorm_bias: "f32[64]", p_m_encoder_layer_0_intermediate_dense_weight: "f32[128, 64]", p_m_encoder_layer_0_intermediate_dense_bias: "f32[128]", p_m_encoder_layer_0_output_dense_weight: "f32[64, 128]", p_m_encoder_layer_0_output_dense_bias: "f32[64]", p_m_encoder_layer_0_output_layernorm_weight: "f32[64]", p_m_encoder_layer_0_output_layernorm_bias: "f32[64]", p_m_encoder_layer_1_attention_self_query_weight: "f32[64, 64]", p_m_encoder_layer_1_attention_self_query_bias: "f32[64]", p_m_encoder_layer_1_attention_self_key_weight: "f32[64, 64]", p_m_encoder_layer_1_attention_self_key_bias: "f32[64]", p_m_encoder_layer_1_attention_self_value_weight: "f32[64, 64]", p_m_encoder_layer_1_attention_self_value_bias: "f32[64]", p_m_encoder_layer_1_attention_output_dense_weight: "f32[64, 64]", p_m_encoder_layer_1_attention_output_dense_bias: "f32[64]", p_m_encoder_layer_1_attention_output_layernorm_weight: "f32[64]", p_m_encoder_layer_1_attention_output_layernorm_bias: "f32[64]", p_m_encoder_layer_1_intermediate_dense_weight: "f32[128, 64]", p_m_encoder_layer_1_intermediate_dense_bias: "f32[128]", p_m_encoder_layer_1_output_dense_weight: "f32[64, 128]", p_m_encoder_layer_1_output_dense_bias: "f32[64]", p_m_encoder_layer_1_output_layernorm_weight: "f32[64]", p_m_encoder_layer_1_output_layernorm_bias: "f32[64]", p_m_pooler_dense_weight: "f32[64, 64]", p_m_pooler_dense_bias: "f32[64]", b_m_embeddings_position_ids: "i64[1, 128]", b_m_embeddings_token_type_ids: "i64[1, 128]", input_ids: "i64[2, 32]"):
        ne: "b8[2, 32]" = torch.ops.aten.ne.Scalar(input_ids, 1)
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(ne, None, None, torch.bool, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "i32[2, 32]" = torch.ops.aten._to_copy.default(ne, dtype = torch.int32);  ne = None
        cumsum: "i64[2, 32]" = torch.ops.aten.cumsum.default(_to_copy, 1)
        _to_copy_1: "i32[2, 32]" = torch.ops.aten._to_copy.default(cumsum, dtype = torch.int32, layout = torch.strided, device = device(type='cpu'));  cumsum = None
        add: "i32[2, 32]" = torch.ops.aten.add.Tensor(_to_copy_1, 0);  _to_copy_1 = None
        mul: "i32[2, 32]" = torch.ops.aten.mul.Tensor(add, _to_copy);  add = _to_copy = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(mul, None, None, torch.int32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_2: "i64[2, 32]" = torch.ops.aten._to_copy.default(mul, dtype = torch.int64);  mul = None
        add_1: "i64[2, 32]" = torch.ops.aten.add.Tensor(_to_copy_2, 1);  _to_copy_2 = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(b_m_embeddings_token_type_ids, None, None, torch.int64, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        expand: "i64[2, 128]" = torch.ops.aten.expand.default(b_m_embeddings_token_type_ids, [2, -1]);  b_m_embeddings_token_type_ids = None
        gather: "i64[2, 32]" = torch.ops.aten.gather.default(expand, 1, add_1);  expand = None
        expand_1: "i64[2, 32]" = torch.ops.aten.expand.default(gather, [2, 32]);  gather = None
        embedding: "f32[2, 32, 64]" = torch.ops.aten.embedding.default(p_m_embeddings_word_embeddings_weight, input_ids, 1);  p_m_embeddings_word_embeddings_weight = input_ids = None
        embedding_1: "f32[2, 32, 64]" = torch.ops.aten.embedding.default(p_m_embeddings_token_type_embeddings_weight, expand_1);  p_m_embeddings_token_type_embeddings_weight = expand_1 = None
        add_2: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(embedding, embedding_1);  embedding = embedding_1 = None
        embedding_2: "f32[2, 32, 64]" = torch.ops.aten.embedding.default(p_m_embeddings_position_embeddings_weight, add_1, 1);  p_m_embeddings_position_embeddings_weight = add_1 = None
        add_3: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(add_2, embedding_2);  add_2 = embedding_2 = None
        native_layer_norm = torch.ops.aten.native_layer_norm.default(add_3, [64], p_m_embeddings_layernorm_weight, p_m_embeddings_layernorm_bias, 1e-12);  add_3 = p_m_embeddings_layernorm_weight = p_m_embeddings_layernorm_bias = None
        getitem: "f32[2, 32, 64]" = native_layer_norm[0];  native_layer_norm = None
        arange_2: "i64[32]" = torch.ops.aten.arange.start_step(0, 32, layout = torch.strided, device = device(type='cpu'), pin_memory = False)
        add_4: "i64[32]" = torch.ops.aten.add.Tensor(arange_2, 0);  arange_2 = None
        unsqueeze_6: "i64[1, 32]" = torch.ops.aten.unsqueeze.default(add_4, 0);  add_4 = None
        unsqueeze_7: "i64[1, 1, 32]" = torch.ops.aten.unsqueeze.default(unsqueeze_6, 1);  unsqueeze_6 = None
        unsqueeze_8: "i64[1, 1, 32, 1]" = torch.ops.aten.unsqueeze.default(unsqueeze_7, 3);  unsqueeze_7 = None
        ge: "b8[1, 1, 32, 1]" = torch.ops.aten.ge.Scalar(unsqueeze_8, 0);  unsqueeze_8 = None
        expand_2: "b8[2, 1, 32, 32]" = torch.ops.aten.expand.default(ge, [2, -1, 32, 32]);  ge = None
        view: "f32[64, 64]" = torch.ops.aten.view.default(getitem, [64, 64])
        permute: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_attention_self_query_weight, [1, 0]);  p_m_encoder_layer_0_attention_self_query_weight = None
        addmm: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_0_attention_self_query_bias, view, permute);  p_m_encoder_layer_0_attention_self_query_bias = view = permute = None
        view_1: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm, [2, 32, 64]);  addmm = None
        view_2: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_1, [2, 32, -1, 32]);  view_1 = None
        permute_1: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_2, [0, 2, 1, 3]);  view_2 = None
        view_3: "f32[64, 64]" = torch.ops.aten.view.default(getitem, [64, 64])
        permute_2: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_attention_self_key_weight, [1, 0]);  p_m_encoder_layer_0_attention_self_key_weight = None
        addmm_1: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_0_attention_self_key_bias, view_3, permute_2);  p_m_encoder_layer_0_attention_self_key_bias = view_3 = permute_2 = None
        view_4: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_1, [2, 32, 64]);  addmm_1 = None
        view_5: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_4, [2, 32, -1, 32]);  view_4 = None
        permute_3: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_5, [0, 2, 1, 3]);  view_5 = None
        view_6: "f32[64, 64]" = torch.ops.aten.view.default(getitem, [64, 64])
        permute_4: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_attention_self_value_weight, [1, 0]);  p_m_encoder_layer_0_attention_self_value_weight = None
        addmm_2: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_0_attention_self_value_bias, view_6, permute_4);  p_m_encoder_layer_0_attention_self_value_bias = view_6 = permute_4 = None
        view_7: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_2, [2, 32, 64]);  addmm_2 = None
        view_8: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_7, [2, 32, -1, 32]);  view_7 = None
        permute_5: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_8, [0, 2, 1, 3]);  view_8 = None
        scalar_tensor: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
        scalar_tensor_1: "f32[]" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where: "f32[2, 1, 32, 32]" = torch.ops.aten.where.self(expand_2, scalar_tensor_1, scalar_tensor);  scalar_tensor_1 = scalar_tensor = None
        mul_1: "f32[2, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_1, 0.4204482076268573);  permute_1 = None
        permute_6: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(permute_3, [0, 1, 3, 2]);  permute_3 = None
        mul_2: "f32[2, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_6, 0.4204482076268573);  permute_6 = None
        expand_3: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(mul_1, [2, 2, 32, 32]);  mul_1 = None
        clone: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_3, memory_format = torch.contiguous_format);  expand_3 = None
        view_9: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone, [4, 32, 32]);  clone = None
        expand_4: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(mul_2, [2, 2, 32, 32]);  mul_2 = None
        clone_1: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_4, memory_format = torch.contiguous_format);  expand_4 = None
        view_10: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone_1, [4, 32, 32]);  clone_1 = None
        bmm: "f32[4, 32, 32]" = torch.ops.aten.bmm.default(view_9, view_10);  view_9 = view_10 = None
        view_11: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(bmm, [2, 2, 32, 32]);  bmm = None
        add_6: "f32[2, 2, 32, 32]" = torch.ops.aten.add.Tensor(view_11, where);  view_11 = where = None
        _softmax: "f32[2, 2, 32, 32]" = torch.ops.aten._softmax.default(add_6, -1, False)
        eq: "b8[2, 2, 32, 32]" = torch.ops.aten.eq.Scalar(add_6, -inf);  add_6 = None
        logical_not: "b8[2, 2, 32, 32]" = torch.ops.aten.logical_not.default(eq);  eq = None
        any_1: "b8[2, 2, 32, 1]" = torch.ops.aten.any.dim(logical_not, -1, True);  logical_not = None
        logical_not_1: "b8[2, 2, 32, 1]" = torch.ops.aten.logical_not.default(any_1);  any_1 = None
        full_like: "f32[2, 2, 32, 32]" = torch.ops.aten.full_like.default(_softmax, 0, pin_memory = False, memory_format = torch.preserve_format)
        where_1: "f32[2, 2, 32, 32]" = torch.ops.aten.where.self(logical_not_1, full_like, _softmax);  logical_not_1 = full_like = _softmax = None
        expand_5: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(where_1, [2, 2, 32, 32]);  where_1 = None
        view_12: "f32[4, 32, 32]" = torch.ops.aten.view.default(expand_5, [4, 32, 32]);  expand_5 = None
        expand_6: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(permute_5, [2, 2, 32, 32]);  permute_5 = None
        clone_2: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_6, memory_format = torch.contiguous_format);  expand_6 = None
        view_13: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone_2, [4, 32, 32]);  clone_2 = None
        bmm_1: "f32[4, 32, 32]" = torch.ops.aten.bmm.default(view_12, view_13);  view_12 = view_13 = None
        view_14: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(bmm_1, [2, 2, 32, 32]);  bmm_1 = None
        permute_7: "f32[32, 2, 2, 32]" = torch.ops.aten.permute.default(view_14, [2, 0, 1, 3]);  view_14 = None
        clone_3: "f32[32, 2, 2, 32]" = torch.ops.aten.clone.default(permute_7, memory_format = torch.contiguous_format);  permute_7 = None
        permute_8: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(clone_3, [1, 2, 0, 3]);  clone_3 = None
        view_15: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(permute_8, [2, 2, 32, 32]);  permute_8 = None
        permute_9: "f32[2, 32, 2, 32]" = torch.ops.aten.permute.default(view_15, [0, 2, 1, 3]);  view_15 = None
        view_16: "f32[2, 32, 64]" = torch.ops.aten.view.default(permute_9, [2, 32, 64]);  permute_9 = None
        permute_10: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_attention_output_dense_weight, [1, 0]);  p_m_encoder_layer_0_attention_output_dense_weight = None
        expand_7: "f32[2, 32, 64]" = torch.ops.aten.expand.default(view_16, [2, 32, 64]);  view_16 = None
        view_17: "f32[2, 32, 64]" = torch.ops.aten.view.default(expand_7, [2, 32, 64]);  expand_7 = None
        expand_8: "f32[2, 64, 64]" = torch.ops.aten.expand.default(permute_10, [2, 64, 64]);  permute_10 = None
        view_18: "f32[2, 64, 64]" = torch.ops.aten.view.default(expand_8, [2, 64, 64]);  expand_8 = None
        bmm_2: "f32[2, 32, 64]" = torch.ops.aten.bmm.default(view_17, view_18);  view_17 = view_18 = None
        view_19: "f32[2, 32, 64]" = torch.ops.aten.view.default(bmm_2, [2, 32, 64]);  bmm_2 = None
        add_7: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(view_19, p_m_encoder_layer_0_attention_output_dense_bias);  view_19 = p_m_encoder_layer_0_attention_output_dense_bias = None
        add_8: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(add_7, getitem);  add_7 = getitem = None
        native_layer_norm_1 = torch.ops.aten.native_layer_norm.default(add_8, [64], p_m_encoder_layer_0_attention_output_layernorm_weight, p_m_encoder_layer_0_attention_output_layernorm_bias, 1e-12);  add_8 = p_m_encoder_layer_0_attention_output_layernorm_weight = p_m_encoder_layer_0_attention_output_layernorm_bias = None
        getitem_3: "f32[2, 32, 64]" = native_layer_norm_1[0];  native_layer_norm_1 = None
        view_20: "f32[64, 64]" = torch.ops.aten.view.default(getitem_3, [64, 64])
        permute_11: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_intermediate_dense_weight, [1, 0]);  p_m_encoder_layer_0_intermediate_dense_weight = None
        addmm_3: "f32[64, 128]" = torch.ops.aten.addmm.default(p_m_encoder_layer_0_intermediate_dense_bias, view_20, permute_11);  p_m_encoder_layer_0_intermediate_dense_bias = view_20 = permute_11 = None
        view_21: "f32[2, 32, 128]" = torch.ops.aten.view.default(addmm_3, [2, 32, 128]);  addmm_3 = None
        gelu: "f32[2, 32, 128]" = torch.ops.aten.gelu.default(view_21);  view_21 = None
        view_22: "f32[64, 128]" = torch.ops.aten.view.default(gelu, [64, 128]);  gelu = None
        permute_12: "f32[128, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_0_output_dense_weight, [1, 0]);  p_m_encoder_layer_0_output_dense_weight = None
        addmm_4: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_0_output_dense_bias, view_22, permute_12);  p_m_encoder_layer_0_output_dense_bias = view_22 = permute_12 = None
        view_23: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_4, [2, 32, 64]);  addmm_4 = None
        add_9: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(view_23, getitem_3);  view_23 = getitem_3 = None
        native_layer_norm_2 = torch.ops.aten.native_layer_norm.default(add_9, [64], p_m_encoder_layer_0_output_layernorm_weight, p_m_encoder_layer_0_output_layernorm_bias, 1e-12);  add_9 = p_m_encoder_layer_0_output_layernorm_weight = p_m_encoder_layer_0_output_layernorm_bias = None
        getitem_6: "f32[2, 32, 64]" = native_layer_norm_2[0];  native_layer_norm_2 = None
        view_24: "f32[64, 64]" = torch.ops.aten.view.default(getitem_6, [64, 64])
        permute_13: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_attention_self_query_weight, [1, 0]);  p_m_encoder_layer_1_attention_self_query_weight = None
        addmm_5: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_1_attention_self_query_bias, view_24, permute_13);  p_m_encoder_layer_1_attention_self_query_bias = view_24 = permute_13 = None
        view_25: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_5, [2, 32, 64]);  addmm_5 = None
        view_26: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_25, [2, 32, -1, 32]);  view_25 = None
        permute_14: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_26, [0, 2, 1, 3]);  view_26 = None
        view_27: "f32[64, 64]" = torch.ops.aten.view.default(getitem_6, [64, 64])
        permute_15: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_attention_self_key_weight, [1, 0]);  p_m_encoder_layer_1_attention_self_key_weight = None
        addmm_6: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_1_attention_self_key_bias, view_27, permute_15);  p_m_encoder_layer_1_attention_self_key_bias = view_27 = permute_15 = None
        view_28: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_6, [2, 32, 64]);  addmm_6 = None
        view_29: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_28, [2, 32, -1, 32]);  view_28 = None
        permute_16: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_29, [0, 2, 1, 3]);  view_29 = None
        view_30: "f32[64, 64]" = torch.ops.aten.view.default(getitem_6, [64, 64])
        permute_17: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_attention_self_value_weight, [1, 0]);  p_m_encoder_layer_1_attention_self_value_weight = None
        addmm_7: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_1_attention_self_value_bias, view_30, permute_17);  p_m_encoder_layer_1_attention_self_value_bias = view_30 = permute_17 = None
        view_31: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_7, [2, 32, 64]);  addmm_7 = None
        view_32: "f32[2, 32, 2, 32]" = torch.ops.aten.view.default(view_31, [2, 32, -1, 32]);  view_31 = None
        permute_18: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(view_32, [0, 2, 1, 3]);  view_32 = None
        scalar_tensor_2: "f32[]" = torch.ops.aten.scalar_tensor.default(-inf, dtype = torch.float32, device = device(type='cpu'))
        scalar_tensor_3: "f32[]" = torch.ops.aten.scalar_tensor.default(0.0, dtype = torch.float32, layout = torch.strided, device = device(type='cpu'))
        where_2: "f32[2, 1, 32, 32]" = torch.ops.aten.where.self(expand_2, scalar_tensor_3, scalar_tensor_2);  expand_2 = scalar_tensor_3 = scalar_tensor_2 = None
        mul_3: "f32[2, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_14, 0.4204482076268573);  permute_14 = None
        permute_19: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(permute_16, [0, 1, 3, 2]);  permute_16 = None
        mul_4: "f32[2, 2, 32, 32]" = torch.ops.aten.mul.Scalar(permute_19, 0.4204482076268573);  permute_19 = None
        expand_9: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(mul_3, [2, 2, 32, 32]);  mul_3 = None
        clone_4: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_9, memory_format = torch.contiguous_format);  expand_9 = None
        view_33: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone_4, [4, 32, 32]);  clone_4 = None
        expand_10: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(mul_4, [2, 2, 32, 32]);  mul_4 = None
        clone_5: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_10, memory_format = torch.contiguous_format);  expand_10 = None
        view_34: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone_5, [4, 32, 32]);  clone_5 = None
        bmm_3: "f32[4, 32, 32]" = torch.ops.aten.bmm.default(view_33, view_34);  view_33 = view_34 = None
        view_35: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(bmm_3, [2, 2, 32, 32]);  bmm_3 = None
        add_10: "f32[2, 2, 32, 32]" = torch.ops.aten.add.Tensor(view_35, where_2);  view_35 = where_2 = None
        _softmax_1: "f32[2, 2, 32, 32]" = torch.ops.aten._softmax.default(add_10, -1, False)
        eq_1: "b8[2, 2, 32, 32]" = torch.ops.aten.eq.Scalar(add_10, -inf);  add_10 = None
        logical_not_2: "b8[2, 2, 32, 32]" = torch.ops.aten.logical_not.default(eq_1);  eq_1 = None
        any_2: "b8[2, 2, 32, 1]" = torch.ops.aten.any.dim(logical_not_2, -1, True);  logical_not_2 = None
        logical_not_3: "b8[2, 2, 32, 1]" = torch.ops.aten.logical_not.default(any_2);  any_2 = None
        full_like_1: "f32[2, 2, 32, 32]" = torch.ops.aten.full_like.default(_softmax_1, 0, pin_memory = False, memory_format = torch.preserve_format)
        where_3: "f32[2, 2, 32, 32]" = torch.ops.aten.where.self(logical_not_3, full_like_1, _softmax_1);  logical_not_3 = full_like_1 = _softmax_1 = None
        expand_11: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(where_3, [2, 2, 32, 32]);  where_3 = None
        view_36: "f32[4, 32, 32]" = torch.ops.aten.view.default(expand_11, [4, 32, 32]);  expand_11 = None
        expand_12: "f32[2, 2, 32, 32]" = torch.ops.aten.expand.default(permute_18, [2, 2, 32, 32]);  permute_18 = None
        clone_6: "f32[2, 2, 32, 32]" = torch.ops.aten.clone.default(expand_12, memory_format = torch.contiguous_format);  expand_12 = None
        view_37: "f32[4, 32, 32]" = torch.ops.aten.view.default(clone_6, [4, 32, 32]);  clone_6 = None
        bmm_4: "f32[4, 32, 32]" = torch.ops.aten.bmm.default(view_36, view_37);  view_36 = view_37 = None
        view_38: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(bmm_4, [2, 2, 32, 32]);  bmm_4 = None
        permute_20: "f32[32, 2, 2, 32]" = torch.ops.aten.permute.default(view_38, [2, 0, 1, 3]);  view_38 = None
        clone_7: "f32[32, 2, 2, 32]" = torch.ops.aten.clone.default(permute_20, memory_format = torch.contiguous_format);  permute_20 = None
        permute_21: "f32[2, 2, 32, 32]" = torch.ops.aten.permute.default(clone_7, [1, 2, 0, 3]);  clone_7 = None
        view_39: "f32[2, 2, 32, 32]" = torch.ops.aten.view.default(permute_21, [2, 2, 32, 32]);  permute_21 = None
        permute_22: "f32[2, 32, 2, 32]" = torch.ops.aten.permute.default(view_39, [0, 2, 1, 3]);  view_39 = None
        view_40: "f32[2, 32, 64]" = torch.ops.aten.view.default(permute_22, [2, 32, 64]);  permute_22 = None
        permute_23: "f32[64, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_attention_output_dense_weight, [1, 0]);  p_m_encoder_layer_1_attention_output_dense_weight = None
        expand_13: "f32[2, 32, 64]" = torch.ops.aten.expand.default(view_40, [2, 32, 64]);  view_40 = None
        view_41: "f32[2, 32, 64]" = torch.ops.aten.view.default(expand_13, [2, 32, 64]);  expand_13 = None
        expand_14: "f32[2, 64, 64]" = torch.ops.aten.expand.default(permute_23, [2, 64, 64]);  permute_23 = None
        view_42: "f32[2, 64, 64]" = torch.ops.aten.view.default(expand_14, [2, 64, 64]);  expand_14 = None
        bmm_5: "f32[2, 32, 64]" = torch.ops.aten.bmm.default(view_41, view_42);  view_41 = view_42 = None
        view_43: "f32[2, 32, 64]" = torch.ops.aten.view.default(bmm_5, [2, 32, 64]);  bmm_5 = None
        add_11: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(view_43, p_m_encoder_layer_1_attention_output_dense_bias);  view_43 = p_m_encoder_layer_1_attention_output_dense_bias = None
        add_12: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(add_11, getitem_6);  add_11 = getitem_6 = None
        native_layer_norm_3 = torch.ops.aten.native_layer_norm.default(add_12, [64], p_m_encoder_layer_1_attention_output_layernorm_weight, p_m_encoder_layer_1_attention_output_layernorm_bias, 1e-12);  add_12 = p_m_encoder_layer_1_attention_output_layernorm_weight = p_m_encoder_layer_1_attention_output_layernorm_bias = None
        getitem_9: "f32[2, 32, 64]" = native_layer_norm_3[0];  native_layer_norm_3 = None
        view_44: "f32[64, 64]" = torch.ops.aten.view.default(getitem_9, [64, 64])
        permute_24: "f32[64, 128]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_intermediate_dense_weight, [1, 0]);  p_m_encoder_layer_1_intermediate_dense_weight = None
        addmm_8: "f32[64, 128]" = torch.ops.aten.addmm.default(p_m_encoder_layer_1_intermediate_dense_bias, view_44, permute_24);  p_m_encoder_layer_1_intermediate_dense_bias = view_44 = permute_24 = None
        view_45: "f32[2, 32, 128]" = torch.ops.aten.view.default(addmm_8, [2, 32, 128]);  addmm_8 = None
        gelu_1: "f32[2, 32, 128]" = torch.ops.aten.gelu.default(view_45);  view_45 = None
        view_46: "f32[64, 128]" = torch.ops.aten.view.default(gelu_1, [64, 128]);  gelu_1 = None
        permute_25: "f32[128, 64]" = torch.ops.aten.permute.default(p_m_encoder_layer_1_output_dense_weight, [1, 0]);  p_m_encoder_layer_1_output_dense_weight = None
        addmm_9: "f32[64, 64]" = torch.ops.aten.addmm.default(p_m_encoder_layer_1_output_dense_bias, view_46, permute_25);  p_m_encoder_layer_1_output_dense_bias = view_46 = permute_25 = None
        view_47: "f32[2, 32, 64]" = torch.ops.aten.view.default(addmm_9, [2, 32, 64]);  addmm_9 = None
        add_13: "f32[2, 32, 64]" = torch.ops.aten.add.Tensor(view_47, getitem_9);  view_47 = getitem_9 = None
        native_layer_norm_4 = torch.ops.aten.native_layer_norm.default(add_13, [64], p_m_encoder_layer_1_output_layernorm_weight, p_m_encoder_layer_1_output_layernorm_bias, 1e-12);  add_13 = p_m_encoder_layer_1_output_layernorm_weight = p_m_encoder_layer_1_output_layernorm_bias = None
        getitem_12: "f32[2, 32, 64]" = native_layer_norm_4[0];  native_layer_norm_4 = None
        return (getitem_12,)
