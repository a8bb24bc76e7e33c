class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[2, 3, 9]"):
        input_1 = input
        unsqueeze: "f32[2, 3, 1, 9]" = torch.ops.aten.unsqueeze.default(input_1, -2);  input_1 = None
        avg_pool2d: "f32[2, 3, 1, 4]" = torch.ops.aten.avg_pool2d.default(unsqueeze, [1, 3], [1, 2]);  unsqueeze = None
        squeeze: "f32[2, 3, 4]" = torch.ops.aten.squeeze.dims(avg_pool2d, [-2]);  avg_pool2d = None
        return (squeeze,)
