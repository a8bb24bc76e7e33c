class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 6, 3]"):
        tril: "f32[2, 6, 3]" = torch.ops.aten.tril.default(xs_0, -2)
        triu: "f32[2, 6, 3]" = torch.ops.aten.triu.default(xs_0, 2)
        tril_1: "f32[2, 6, 3]" = torch.ops.aten.tril.default(xs_0, 5)
        triu_1: "f32[2, 6, 3]" = torch.ops.aten.triu.default(xs_0, -5);  xs_0 = None
        return (tril, triu, tril_1, triu_1)
