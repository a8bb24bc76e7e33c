class GraphModule(torch.nn.Module):
    def forward(self, c_lifted_tensor_0: "f32[7, 2]", c_lifted_tensor_1: "f32[7, 2]", xs_0: "i64[]", xs_1: "i64[2, 2, 3]"):
        embedding: "f32[2]" = torch.ops.aten.embedding.default(c_lifted_tensor_0, xs_0);  c_lifted_tensor_0 = xs_0 = None
        embedding_1: "f32[2, 2, 3, 2]" = torch.ops.aten.embedding.default(c_lifted_tensor_1, xs_1);  c_lifted_tensor_1 = xs_1 = None
        return (embedding, embedding_1)
