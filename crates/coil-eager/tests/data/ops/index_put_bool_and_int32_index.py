class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[5, 2]", xs_1: "i32[2]", xs_2: "b8[2]"):
        index_put: "b8[5, 2]" = torch.ops.aten.index_put.default(xs_0, [xs_1], xs_2);  xs_0 = xs_1 = xs_2 = None
        return (index_put,)
