class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[0, 4]", y: "f32[0, 4]"):
        cat: "f32[0, 4]" = torch.ops.aten.cat.default([x, y]);  x = y = None
        return (cat,)
