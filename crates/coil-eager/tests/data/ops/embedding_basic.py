class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[10, 4]", input: "i64[2, 3]"):
        input_1 = input
        embedding: "f32[2, 3, 4]" = torch.ops.aten.embedding.default(p_weight, input_1);  p_weight = input_1 = None
        return (embedding,)
