class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        hardswish: "f32[6, 8]" = torch.ops.aten.hardswish.default(xs_0)
        hardsigmoid: "f32[6, 8]" = torch.ops.aten.hardsigmoid.default(xs_0);  xs_0 = None
        return (hardswish, hardsigmoid)
