class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 6]"):
        tril: "f32[4, 6]" = torch.ops.aten.tril.default(xs_0)
        triu: "f32[4, 6]" = torch.ops.aten.triu.default(xs_0)
        tril_1: "f32[4, 6]" = torch.ops.aten.tril.default(xs_0, 1)
        tril_2: "f32[4, 6]" = torch.ops.aten.tril.default(xs_0, -1)
        triu_1: "f32[4, 6]" = torch.ops.aten.triu.default(xs_0, 1)
        triu_2: "f32[4, 6]" = torch.ops.aten.triu.default(xs_0, -1);  xs_0 = None
        return (tril, triu, tril_1, tril_2, triu_1, triu_2)
