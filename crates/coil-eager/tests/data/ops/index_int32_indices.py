class GraphModule(torch.nn.Module):
    def forward(self, c_lifted_tensor_0: "f32[6, 2]", xs_0: "f32[6, 6]", xs_1: "i32[2, 2]"):
        index: "f32[2, 2, 6]" = torch.ops.aten.index.Tensor(xs_0, [xs_1])
        index_1: "f32[6, 2, 2]" = torch.ops.aten.index.Tensor(xs_0, [None, xs_1]);  xs_0 = None
        abs_1: "i32[2, 2]" = torch.ops.aten.abs.default(xs_1);  xs_1 = None
        embedding: "f32[2, 2, 2]" = torch.ops.aten.embedding.default(c_lifted_tensor_0, abs_1);  c_lifted_tensor_0 = abs_1 = None
        return (index, index_1, embedding)
