class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        softplus: "f32[6, 8]" = torch.ops.aten.softplus.default(xs_0)
        softplus_1: "f32[6, 8]" = torch.ops.aten.softplus.default(xs_0, 2.0, 5.0)
        softplus_2: "f32[6, 8]" = torch.ops.aten.softplus.default(xs_0, 0.5, 3.0);  xs_0 = None
        return (softplus, softplus_1, softplus_2)
