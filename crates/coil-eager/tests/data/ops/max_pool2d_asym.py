class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 2, 6, 9]"):
        input_1 = input
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(input_1, [3, 2], [1, 3], [1, 0], [1, 2], True);  input_1 = None
        getitem: "f32[2, 2, 6, 3]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        return (getitem,)
