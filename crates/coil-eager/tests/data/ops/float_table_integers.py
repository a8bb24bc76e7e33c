class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[1, 4]", xs_1: "i64[3, 1]"):
        atan: "f32[1, 4]" = torch.ops.aten.atan.default(xs_0)
        erfc: "f32[1, 4]" = torch.ops.aten.erfc.default(xs_0)
        atan2: "f32[3, 4]" = torch.ops.aten.atan2.default(xs_0, xs_1);  xs_0 = None
        asinh: "f32[3, 1]" = torch.ops.aten.asinh.default(xs_1);  xs_1 = None
        return (atan, erfc, atan2, asinh)
