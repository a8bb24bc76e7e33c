class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[4, 3]", xs_1: "i64[3, 2]", xs_2: "f32[3, 2]"):
        permute: "f32[3, 4]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        gather: "f32[3, 2]" = torch.ops.aten.gather.default(permute, 1, xs_1);  permute = None
        permute_1: "f32[3, 4]" = torch.ops.aten.permute.default(xs_0, [1, 0])
        scatter_add: "f32[3, 4]" = torch.ops.aten.scatter_add.default(permute_1, 1, xs_1, xs_2);  permute_1 = xs_2 = None
        permute_2: "f32[3, 4]" = torch.ops.aten.permute.default(xs_0, [1, 0]);  xs_0 = None
        select: "i64[2]" = torch.ops.aten.select.int(xs_1, 0, 0);  xs_1 = None
        index_select: "f32[3, 2]" = torch.ops.aten.index_select.default(permute_2, 1, select);  permute_2 = select = None
        return (gather, scatter_add, index_select)
