class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4]"):
        flip: "i64[3, 4]" = torch.ops.aten.flip.default(xs_0, [-2]);  xs_0 = None
        return (flip,)
