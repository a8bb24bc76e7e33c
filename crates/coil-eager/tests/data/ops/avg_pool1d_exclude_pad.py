class GraphModule(torch.nn.Module):
    def forward(self, input: "f32[1, 2, 9]"):
        input_1 = input
        unsqueeze: "f32[1, 2, 1, 9]" = torch.ops.aten.unsqueeze.default(input_1, -2);  input_1 = None
        avg_pool2d: "f32[1, 2, 1, 4]" = torch.ops.aten.avg_pool2d.default(unsqueeze, [1, 4], [1, 3], [0, 2], True, False);  unsqueeze = None
        squeeze: "f32[1, 2, 4]" = torch.ops.aten.squeeze.dims(avg_pool2d, [-2]);  avg_pool2d = None
        return (squeeze,)
