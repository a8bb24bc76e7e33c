class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        exp: "f32[6, 8]" = torch.ops.aten.exp.default(xs_0)
        log1p: "f32[6, 8]" = torch.ops.aten.log1p.default(exp);  exp = None
        gt: "b8[6, 8]" = torch.ops.aten.gt.Scalar(xs_0, 20)
        where: "f32[6, 8]" = torch.ops.aten.where.self(gt, xs_0, log1p);  gt = log1p = None
        mul: "f32[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, 2.0)
        exp_1: "f32[6, 8]" = torch.ops.aten.exp.default(mul)
        log1p_1: "f32[6, 8]" = torch.ops.aten.log1p.default(exp_1);  exp_1 = None
        div: "f32[6, 8]" = torch.ops.aten.div.Tensor(log1p_1, 2.0);  log1p_1 = None
        gt_1: "b8[6, 8]" = torch.ops.aten.gt.Scalar(mul, 5.0);  mul = None
        where_1: "f32[6, 8]" = torch.ops.aten.where.self(gt_1, xs_0, div);  gt_1 = div = None
        mul_1: "f32[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, 0.5)
        exp_2: "f32[6, 8]" = torch.ops.aten.exp.default(mul_1)
        log1p_2: "f32[6, 8]" = torch.ops.aten.log1p.default(exp_2);  exp_2 = None
        div_1: "f32[6, 8]" = torch.ops.aten.div.Tensor(log1p_2, 0.5);  log1p_2 = None
        gt_2: "b8[6, 8]" = torch.ops.aten.gt.Scalar(mul_1, 3.0);  mul_1 = None
        where_2: "f32[6, 8]" = torch.ops.aten.where.self(gt_2, xs_0, div_1);  gt_2 = xs_0 = div_1 = None
        return (where, where_1, where_2)
