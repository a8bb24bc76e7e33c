class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[3, 5]", xs_1: "i64[3]", xs_2: "f32[3, 1]", xs_3: "f32[3, 1]"):
        clone: "f32[3, 5]" = torch.ops.aten.clone.default(xs_0)
        index_put: "f32[3, 5]" = torch.ops.aten.index_put.default(clone, [None, xs_1], xs_2);  clone = xs_2 = None
        permute: "f32[5, 3]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        clone_1: "f32[5, 3]" = torch.ops.aten.clone.default(permute);  permute = None
        index_put_1: "f32[5, 3]" = torch.ops.aten.index_put.default(clone_1, [xs_1], xs_3);  clone_1 = None
        permute_1: "f32[5, 3]" = torch.ops.aten.permute.default(xs_0, [1, 0]);  xs_0 = None
        index_put_2: "f32[5, 3]" = torch.ops.aten.index_put.default(permute_1, [xs_1], xs_3, True);  permute_1 = xs_1 = xs_3 = None
        return (index_put, index_put_1, index_put_2)
