class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[]"):
        argmin: "i64[]" = torch.ops.aten.argmin.default(x);  x = None
        return (argmin,)
