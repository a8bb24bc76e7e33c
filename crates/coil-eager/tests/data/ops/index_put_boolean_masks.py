class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 4, 3]", xs_1: "b8[6, 4]", xs_2: "b8[6]", xs_3: "b8[6, 4, 3]", xs_4: "f32[]", xs_5: "f32[4, 4, 3]", xs_6: "i64[2]", xs_7: "b8[3]"):
        index_put: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [xs_1], xs_4)
        index_put_1: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [xs_1], xs_4, True);  xs_1 = None
        view: "f32[1]" = torch.ops.aten.view.default(xs_4, [1])
        index_put_2: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [xs_3], view);  xs_3 = view = None
        index_put_3: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [xs_2], xs_5)
        index_put_4: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [xs_2], xs_5, True);  xs_2 = xs_5 = None
        index_put_5: "f32[6, 4, 3]" = torch.ops.aten.index_put.default(xs_0, [None, xs_6, xs_7], xs_4);  xs_0 = xs_6 = xs_7 = xs_4 = None
        return (index_put, index_put_1, index_put_2, index_put_3, index_put_4, index_put_5)
