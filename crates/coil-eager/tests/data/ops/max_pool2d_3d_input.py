class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[3, 4, 5]"):
        input_1 = input
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(input_1, [2, 2], [1, 1]);  input_1 = None
        getitem: "f32[3, 3, 4]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        return (getitem,)
