class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]", xs_1: "i64[1]", xs_2: "i64[1, 4]"):
        index_put: "i64[2, 4]" = torch.ops.aten.index_put.default(xs_0, [xs_1], xs_2)
        index_put_1: "i64[2, 4]" = torch.ops.aten.index_put.default(xs_0, [xs_1], xs_2, True);  xs_0 = xs_1 = xs_2 = None
        return (index_put, index_put_1)
