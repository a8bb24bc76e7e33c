class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f64[8, 14]", xs_1: "f64[8, 8]", xs_2: "f64[8, 18]", xs_3: "f64[8, 18]"):
        atan: "f64[8, 14]" = torch.ops.aten.atan.default(xs_0)
        asin: "f64[8, 8]" = torch.ops.aten.asin.default(xs_1)
        acos: "f64[8, 8]" = torch.ops.aten.acos.default(xs_1)
        asinh: "f64[8, 14]" = torch.ops.aten.asinh.default(xs_0)
        acosh: "f64[8, 14]" = torch.ops.aten.acosh.default(xs_0)
        atanh: "f64[8, 8]" = torch.ops.aten.atanh.default(xs_1)
        expm1: "f64[8, 14]" = torch.ops.aten.expm1.default(xs_0)
        erfc: "f64[8, 14]" = torch.ops.aten.erfc.default(xs_0)
        erfinv: "f64[8, 8]" = torch.ops.aten.erfinv.default(xs_1);  xs_1 = None
        exp2: "f64[8, 14]" = torch.ops.aten.exp2.default(xs_0);  xs_0 = None
        atan2: "f64[8, 18]" = torch.ops.aten.atan2.default(xs_2, xs_3)
        hypot: "f64[8, 18]" = torch.ops.aten.hypot.default(xs_2, xs_3)
        logaddexp: "f64[8, 18]" = torch.ops.aten.logaddexp.default(xs_2, xs_3);  xs_2 = xs_3 = None
        return (atan, asin, acos, asinh, acosh, atanh, expm1, erfc, erfinv, exp2, atan2, hypot, logaddexp)
