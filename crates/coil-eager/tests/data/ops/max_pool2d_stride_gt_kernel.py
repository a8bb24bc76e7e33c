class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[1, 2, 8, 7]"):
        input_1 = input
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(input_1, [2, 2], [3, 3]);  input_1 = None
        getitem: "f32[1, 2, 3, 2]" = max_pool2d_with_indices[0]
        getitem_1: "i64[1, 2, 3, 2]" = max_pool2d_with_indices[1];  max_pool2d_with_indices = None
        return (getitem, getitem_1)
