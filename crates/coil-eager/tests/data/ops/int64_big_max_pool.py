class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[2, 4]"):
        unsqueeze: "i64[1, 2, 4]" = torch.ops.aten.unsqueeze.default(xs_0, 0);  xs_0 = None
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(unsqueeze, [1, 2], [1, 2]);  unsqueeze = None
        getitem: "i64[1, 2, 2]" = max_pool2d_with_indices[0]
        getitem_1: "i64[1, 2, 2]" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
        return (getitem, getitem_1)
