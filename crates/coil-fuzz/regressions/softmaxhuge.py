class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[0, 4294967296]"):
        _softmax: "f32[0, 4294967296]" = torch.ops.aten._softmax.default(x, 1, False);  x = None
        return (_softmax,)
