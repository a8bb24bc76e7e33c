class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 6]", xs_1: "bf16[40, 3]", xs_2: "f32[]"):
        logcumsumexp: "f32[4, 6]" = torch.ops.aten.logcumsumexp.default(xs_0, 1)
        logcumsumexp_1: "f32[4, 6]" = torch.ops.aten.logcumsumexp.default(xs_0, 0);  xs_0 = None
        logcumsumexp_2: "bf16[40, 3]" = torch.ops.aten.logcumsumexp.default(xs_1, 0);  xs_1 = None
        logcumsumexp_3: "f32[]" = torch.ops.aten.logcumsumexp.default(xs_2, 0);  xs_2 = None
        return (logcumsumexp, logcumsumexp_1, logcumsumexp_2, logcumsumexp_3)
