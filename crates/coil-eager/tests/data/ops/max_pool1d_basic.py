class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 3, 9]"):
        input_1 = input
        unsqueeze: "f32[2, 3, 1, 9]" = torch.ops.aten.unsqueeze.default(input_1, -2);  input_1 = None
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(unsqueeze, [1, 3], [1, 2], [0, 1]);  unsqueeze = None
        getitem: "f32[2, 3, 1, 5]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        squeeze: "f32[2, 3, 5]" = torch.ops.aten.squeeze.dims(getitem, [-2]);  getitem = None
        return (squeeze,)
