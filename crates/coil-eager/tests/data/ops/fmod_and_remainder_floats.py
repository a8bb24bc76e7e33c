class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[560]", xs_1: "f32[560]", xs_2: "f64[560]", xs_3: "f64[560]"):
        fmod: "f32[560]" = torch.ops.aten.fmod.Tensor(xs_0, xs_1)
        remainder: "f32[560]" = torch.ops.aten.remainder.Tensor(xs_0, xs_1)
        fmod_1: "f64[560]" = torch.ops.aten.fmod.Tensor(xs_2, xs_3)
        remainder_1: "f64[560]" = torch.ops.aten.remainder.Tensor(xs_2, xs_3);  xs_3 = None
        fmod_2: "f64[560]" = torch.ops.aten.fmod.Scalar(xs_2, 1e-20);  xs_2 = None
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "bf16[560]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.bfloat16)
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_1, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "bf16[560]" = torch.ops.aten._to_copy.default(xs_1, dtype = torch.bfloat16)
        fmod_3: "bf16[560]" = torch.ops.aten.fmod.Tensor(_to_copy, _to_copy_1);  _to_copy = _to_copy_1 = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy_2: "f16[560]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.float16)
        _assert_tensor_metadata_3 = torch.ops.aten._assert_tensor_metadata.default(xs_1, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_3 = None
        _to_copy_3: "f16[560]" = torch.ops.aten._to_copy.default(xs_1, dtype = torch.float16);  xs_1 = None
        remainder_2: "f16[560]" = torch.ops.aten.remainder.Tensor(_to_copy_2, _to_copy_3);  _to_copy_2 = _to_copy_3 = None
        fmod_4: "f32[560]" = torch.ops.aten.fmod.Scalar(xs_0, 2.5);  xs_0 = None
        return (fmod, remainder, fmod_1, remainder_1, fmod_2, fmod_3, remainder_2, fmod_4)
