class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 2, 9]"):
        unsqueeze: "f32[2, 2, 1, 9]" = torch.ops.aten.unsqueeze.default(xs_0, -2);  xs_0 = None
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(unsqueeze, [1, 2], [1, 2], [0, 1], [1, 2], True);  unsqueeze = None
        getitem: "f32[2, 2, 1, 5]" = max_pool2d_with_indices[0]
        getitem_1: "i64[2, 2, 1, 5]" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
        squeeze: "f32[2, 2, 5]" = torch.ops.aten.squeeze.dims(getitem, [-2]);  getitem = None
        squeeze_1: "i64[2, 2, 5]" = torch.ops.aten.squeeze.dims(getitem_1, [-2]);  getitem_1 = None
        return (squeeze, squeeze_1)
