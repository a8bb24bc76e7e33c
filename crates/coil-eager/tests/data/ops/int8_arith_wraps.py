class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i8[4, 9]", xs_1: "i8[4, 9]"):
        add: "i8[4, 9]" = torch.ops.aten.add.Tensor(xs_0, xs_1)
        sub: "i8[4, 9]" = torch.ops.aten.sub.Tensor(xs_0, xs_1)
        mul: "i8[4, 9]" = torch.ops.aten.mul.Tensor(xs_0, xs_1)
        neg: "i8[4, 9]" = torch.ops.aten.neg.default(xs_0)
        abs_1: "i8[4, 9]" = torch.ops.aten.abs.default(xs_0)
        mul_1: "i8[4, 9]" = torch.ops.aten.mul.Tensor(xs_0, xs_1)
        gt: "b8[4, 9]" = torch.ops.aten.gt.Scalar(mul_1, 0);  mul_1 = None
        add_1: "i8[4, 9]" = torch.ops.aten.add.Tensor(xs_0, xs_1)
        div: "i8[4, 9]" = torch.ops.aten.div.Tensor_mode(add_1, 7, rounding_mode = 'floor');  add_1 = None
        remainder: "i8[4, 9]" = torch.ops.aten.remainder.Scalar(xs_0, 5)
        maximum: "i8[4, 9]" = torch.ops.aten.maximum.default(xs_0, xs_1)
        mul_2: "i8[4, 9]" = torch.ops.aten.mul.Tensor(xs_0, 3)
        add_2: "i8[4, 9]" = torch.ops.aten.add.Tensor(mul_2, 100);  mul_2 = None
        gt_1: "b8[4, 9]" = torch.ops.aten.gt.Tensor(xs_0, xs_1)
        where: "i8[4, 9]" = torch.ops.aten.where.self(gt_1, xs_0, xs_1);  gt_1 = xs_1 = None
        sum_1: "i64[]" = torch.ops.aten.sum.default(xs_0)
        sum_2: "i64[4]" = torch.ops.aten.sum.dim_IntList(xs_0, [1])
        amax: "i8[9]" = torch.ops.aten.amax.default(xs_0, [0])
        _assert_tensor_metadata = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int8, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata = None
        _to_copy: "f32[4, 9]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.float32)
        div_1: "f32[4, 9]" = torch.ops.aten.div.Tensor(_to_copy, 3);  _to_copy = None
        _assert_tensor_metadata_1 = torch.ops.aten._assert_tensor_metadata.default(xs_0, None, None, torch.int8, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_1 = None
        _to_copy_1: "f32[4, 9]" = torch.ops.aten._to_copy.default(xs_0, dtype = torch.float32);  xs_0 = None
        mul_3: "f32[4, 9]" = torch.ops.aten.mul.Tensor(_to_copy_1, 1.7);  _to_copy_1 = None
        _assert_tensor_metadata_2 = torch.ops.aten._assert_tensor_metadata.default(mul_3, None, None, torch.float32, device = device(type='cpu'), layout = torch.strided);  _assert_tensor_metadata_2 = None
        _to_copy_2: "i8[4, 9]" = torch.ops.aten._to_copy.default(mul_3, dtype = torch.int8);  mul_3 = None
        return (add, sub, mul, neg, abs_1, gt, div, remainder, maximum, add_2, where, sum_1, sum_2, amax, div_1, _to_copy_2)
