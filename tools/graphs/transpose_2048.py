class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[2048, 2048]"):
        permute: "f32[2048, 2048]" = torch.ops.aten.permute.default(x, [1, 0])
        clone: "f32[2048, 2048]" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)
        return (clone,)
