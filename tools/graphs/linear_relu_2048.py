class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2048, 1024]", w: "f32[1024, 1024]", b: "f32[1024]"):
        mm: "f32[2048, 1024]" = torch.ops.aten.mm.default(x, w);  x = w = None
        add: "f32[2048, 1024]" = torch.ops.aten.add.Tensor(mm, b);  mm = b = None
        relu: "f32[2048, 1024]" = torch.ops.aten.relu.default(add);  add = None
        return (relu,)
