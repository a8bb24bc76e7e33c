class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 3]", xs_1: "b8[2, 3, 4]"):
        triu: "i64[3, 3]" = torch.ops.aten.triu.default(xs_0, -1);  xs_0 = None
        tril: "b8[2, 3, 4]" = torch.ops.aten.tril.default(xs_1, 1);  xs_1 = None
        return (triu, tril)
