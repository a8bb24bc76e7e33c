class GraphModule(torch.nn.Module):
    def forward(self, p_weight: "f32[8, 3]", input: "i64[2, 4]"):
        input_1 = input
        embedding: "f32[2, 4, 3]" = torch.ops.aten.embedding.default(p_weight, input_1, 2);  p_weight = input_1 = None
        return (embedding,)
