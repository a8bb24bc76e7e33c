class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[75]", xs_1: "f32[15]", xs_2: "f64[75]", xs_3: "f64[15]"):
        special_erfcx: "f32[75]" = torch.ops.aten.special_erfcx.default(xs_0)
        special_ndtri: "f32[15]" = torch.ops.aten.special_ndtri.default(xs_1);  xs_1 = None
        mul: "f32[75]" = torch.ops.aten.mul.Tensor(xs_0, 0.7071067811865476)
        lt: "b8[75]" = torch.ops.aten.lt.Scalar(xs_0, 1.0);  xs_0 = None
        neg: "f32[75]" = torch.ops.aten.neg.default(mul)
        special_erfcx_1: "f32[75]" = torch.ops.aten.special_erfcx.default(neg);  neg = None
        div: "f32[75]" = torch.ops.aten.div.Tensor(special_erfcx_1, 2);  special_erfcx_1 = None
        log: "f32[75]" = torch.ops.aten.log.default(div);  div = None
        mul_1: "f32[75]" = torch.ops.aten.mul.Tensor(mul, mul)
        sub: "f32[75]" = torch.ops.aten.sub.Tensor(log, mul_1);  log = mul_1 = None
        erfc: "f32[75]" = torch.ops.aten.erfc.default(mul);  mul = None
        neg_1: "f32[75]" = torch.ops.aten.neg.default(erfc);  erfc = None
        div_1: "f32[75]" = torch.ops.aten.div.Tensor(neg_1, 2);  neg_1 = None
        log1p: "f32[75]" = torch.ops.aten.log1p.default(div_1);  div_1 = None
        where: "f32[75]" = torch.ops.aten.where.self(lt, sub, log1p);  lt = sub = log1p = None
        special_erfcx_2: "f64[75]" = torch.ops.aten.special_erfcx.default(xs_2)
        special_ndtri_1: "f64[15]" = torch.ops.aten.special_ndtri.default(xs_3);  xs_3 = None
        mul_2: "f64[75]" = torch.ops.aten.mul.Tensor(xs_2, 0.7071067811865476)
        lt_1: "b8[75]" = torch.ops.aten.lt.Scalar(xs_2, 1.0);  xs_2 = None
        neg_2: "f64[75]" = torch.ops.aten.neg.default(mul_2)
        special_erfcx_3: "f64[75]" = torch.ops.aten.special_erfcx.default(neg_2);  neg_2 = None
        div_2: "f64[75]" = torch.ops.aten.div.Tensor(special_erfcx_3, 2);  special_erfcx_3 = None
        log_1: "f64[75]" = torch.ops.aten.log.default(div_2);  div_2 = None
        mul_3: "f64[75]" = torch.ops.aten.mul.Tensor(mul_2, mul_2)
        sub_1: "f64[75]" = torch.ops.aten.sub.Tensor(log_1, mul_3);  log_1 = mul_3 = None
        erfc_1: "f64[75]" = torch.ops.aten.erfc.default(mul_2);  mul_2 = None
        neg_3: "f64[75]" = torch.ops.aten.neg.default(erfc_1);  erfc_1 = None
        div_3: "f64[75]" = torch.ops.aten.div.Tensor(neg_3, 2);  neg_3 = None
        log1p_1: "f64[75]" = torch.ops.aten.log1p.default(div_3);  div_3 = None
        where_1: "f64[75]" = torch.ops.aten.where.self(lt_1, sub_1, log1p_1);  lt_1 = sub_1 = log1p_1 = None
        return (special_erfcx, special_ndtri, where, special_erfcx_2, special_ndtri_1, where_1)
