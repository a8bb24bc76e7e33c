class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 2, 9]"):
        max_pool1d_with_indices = torch.ops.aten.max_pool1d_with_indices.default(xs_0, [2], [2], [1], [2], True);  xs_0 = None
        getitem: "f32[2, 2, 5]" = max_pool1d_with_indices[0]
        getitem_1: "i64[2, 2, 5]" = max_pool1d_with_indices[1];  max_pool1d_with_indices = None
        return (getitem, getitem_1)
