class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[1, 5]", xs_1: "f32[4, 1]"):
        tril: "f32[1, 5]" = torch.ops.aten.tril.default(xs_0)
        triu: "f32[1, 5]" = torch.ops.aten.triu.default(xs_0, 1)
        tril_1: "f32[4, 1]" = torch.ops.aten.tril.default(xs_1, -1)
        triu_1: "f32[4, 1]" = torch.ops.aten.triu.default(xs_1)
        triu_2: "f32[1, 5]" = torch.ops.aten.triu.default(xs_0, -3);  xs_0 = None
        tril_2: "f32[4, 1]" = torch.ops.aten.tril.default(xs_1, 2);  xs_1 = None
        return (tril, triu, tril_1, triu_1, triu_2, tril_2)
