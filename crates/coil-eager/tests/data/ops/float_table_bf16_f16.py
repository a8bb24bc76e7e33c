class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "bf16[8, 14]", xs_1: "bf16[8, 8]", xs_2: "bf16[8, 18]", xs_3: "bf16[8, 18]", xs_4: "f16[8, 14]", xs_5: "f16[8, 8]"):
        atan: "bf16[8, 14]" = torch.ops.aten.atan.default(xs_0)
        asin: "bf16[8, 8]" = torch.ops.aten.asin.default(xs_1)
        acos: "bf16[8, 8]" = torch.ops.aten.acos.default(xs_1)
        asinh: "bf16[8, 14]" = torch.ops.aten.asinh.default(xs_0)
        acosh: "bf16[8, 14]" = torch.ops.aten.acosh.default(xs_0)
        atanh: "bf16[8, 8]" = torch.ops.aten.atanh.default(xs_1)
        expm1: "bf16[8, 14]" = torch.ops.aten.expm1.default(xs_0)
        erfc: "bf16[8, 14]" = torch.ops.aten.erfc.default(xs_0)
        erfinv: "bf16[8, 8]" = torch.ops.aten.erfinv.default(xs_1);  xs_1 = None
        exp2: "bf16[8, 14]" = torch.ops.aten.exp2.default(xs_0);  xs_0 = None
        atan2: "bf16[8, 18]" = torch.ops.aten.atan2.default(xs_2, xs_3)
        hypot: "bf16[8, 18]" = torch.ops.aten.hypot.default(xs_2, xs_3)
        logaddexp: "bf16[8, 18]" = torch.ops.aten.logaddexp.default(xs_2, xs_3);  xs_2 = xs_3 = None
        atan_1: "f16[8, 14]" = torch.ops.aten.atan.default(xs_4)
        asin_1: "f16[8, 8]" = torch.ops.aten.asin.default(xs_5)
        acos_1: "f16[8, 8]" = torch.ops.aten.acos.default(xs_5)
        asinh_1: "f16[8, 14]" = torch.ops.aten.asinh.default(xs_4)
        acosh_1: "f16[8, 14]" = torch.ops.aten.acosh.default(xs_4)
        atanh_1: "f16[8, 8]" = torch.ops.aten.atanh.default(xs_5)
        expm1_1: "f16[8, 14]" = torch.ops.aten.expm1.default(xs_4)
        erfc_1: "f16[8, 14]" = torch.ops.aten.erfc.default(xs_4)
        erfinv_1: "f16[8, 8]" = torch.ops.aten.erfinv.default(xs_5);  xs_5 = None
        exp2_1: "f16[8, 14]" = torch.ops.aten.exp2.default(xs_4);  xs_4 = None
        return (atan, asin, acos, asinh, acosh, atanh, expm1, erfc, erfinv, exp2, atan2, hypot, logaddexp, atan_1, asin_1, acos_1, asinh_1, acosh_1, atanh_1, expm1_1, erfc_1, erfinv_1, exp2_1)
