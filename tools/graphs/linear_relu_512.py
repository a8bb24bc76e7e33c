class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[512, 512]", w: "f32[512, 512]", b: "f32[512]"):
        mm: "f32[512, 512]" = torch.ops.aten.mm.default(x, w);  x = w = None
        add: "f32[512, 512]" = torch.ops.aten.add.Tensor(mm, b);  mm = b = None
        relu: "f32[512, 512]" = torch.ops.aten.relu.default(add);  add = None
        return (relu,)
