class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        hardtanh: "f32[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, -1.0, 1.0)
        hardtanh_1: "f32[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, -2.5, 5.0)
        hardtanh_2: "f32[6, 8]" = torch.ops.aten.hardtanh.default(xs_0, 0, 6);  xs_0 = None
        return (hardtanh, hardtanh_1, hardtanh_2)
