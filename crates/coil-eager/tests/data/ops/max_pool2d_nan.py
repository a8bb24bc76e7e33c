class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[1, 2, 4, 6]"):
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(xs_0, [2, 2], [2, 2]);  xs_0 = None
        getitem: "f32[1, 2, 2, 3]" = max_pool2d_with_indices[0]
        getitem_1: "i64[1, 2, 2, 3]" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
        return (getitem, getitem_1)
