class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]"):
        flip: "i64[2, 4]" = torch.ops.aten.flip.default(xs_0, [1]);  xs_0 = None
        return (flip,)
