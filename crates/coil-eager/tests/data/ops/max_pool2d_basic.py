class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 3, 6, 7]"):
        input_1 = input
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(input_1, [2, 2], [2, 2]);  input_1 = None
        getitem: "f32[2, 3, 3, 3]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        return (getitem,)
