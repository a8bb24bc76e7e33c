class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 3, 7]"):
        input_1 = input
        unsqueeze: "f32[2, 3, 1, 7]" = torch.ops.aten.unsqueeze.default(input_1, -2);  input_1 = None
        _adaptive_avg_pool2d: "f32[2, 3, 1, 3]" = torch.ops.aten._adaptive_avg_pool2d.default(unsqueeze, [1, 3]);  unsqueeze = None
        squeeze: "f32[2, 3, 3]" = torch.ops.aten.squeeze.dims(_adaptive_avg_pool2d, [-2]);  _adaptive_avg_pool2d = None
        return (squeeze,)
