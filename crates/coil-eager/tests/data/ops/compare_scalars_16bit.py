class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "bf16[24]", xs_1: "f16[24]"):
        gt: "b8[24]" = torch.ops.aten.gt.Scalar(xs_0, 0.3)
        eq: "b8[24]" = torch.ops.aten.eq.Scalar(xs_0, 0.3)
        le: "b8[24]" = torch.ops.aten.le.Scalar(xs_0, 0.3)
        ge: "b8[24]" = torch.ops.aten.ge.Scalar(xs_1, 0.1)
        ne: "b8[24]" = torch.ops.aten.ne.Scalar(xs_1, 0.1)
        lt: "b8[24]" = torch.ops.aten.lt.Scalar(xs_1, 0.1);  xs_1 = None
        mul: "bf16[24]" = torch.ops.aten.mul.Tensor(xs_0, 0.3)
        eq_1: "b8[24]" = torch.ops.aten.eq.Scalar(xs_0, 257)
        lt_1: "b8[24]" = torch.ops.aten.lt.Scalar(xs_0, 257);  xs_0 = None
        return (gt, eq, le, ge, ne, lt, mul, eq_1, lt_1)
