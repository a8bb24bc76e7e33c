class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 5]", xs_1: "i64[4]", xs_2: "i64[4]", xs_3: "f32[4]"):
        index_put: "f32[4, 5]" = torch.ops.aten.index_put.default(xs_0, [xs_1, xs_2], xs_3)
        index_put_1: "f32[4, 5]" = torch.ops.aten.index_put.default(xs_0, [xs_1, xs_2], xs_3, True);  xs_0 = xs_1 = xs_2 = xs_3 = None
        return (index_put, index_put_1)
