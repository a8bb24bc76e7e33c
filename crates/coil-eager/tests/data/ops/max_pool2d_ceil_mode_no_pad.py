class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[1, 3, 6, 8]"):
        input_1 = input
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(input_1, [3, 3], [2, 2], [0, 0], [1, 1], True);  input_1 = None
        getitem: "f32[1, 3, 3, 4]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        return (getitem,)
