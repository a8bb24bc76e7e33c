class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[3, 1]", xs_1: "b8[1, 4]", xs_2: "i64[5]"):
        bitwise_and: "b8[3, 4]" = torch.ops.aten.bitwise_and.Tensor(xs_0, xs_1)
        bitwise_xor: "b8[3, 4]" = torch.ops.aten.bitwise_xor.Tensor(xs_0, xs_1);  xs_0 = xs_1 = None
        bitwise_xor_1: "i64[5]" = torch.ops.aten.bitwise_xor.Scalar(xs_2, -1)
        bitwise_or: "i64[5]" = torch.ops.aten.bitwise_or.Scalar(xs_2, 0);  xs_2 = None
        return (bitwise_and, bitwise_xor, bitwise_xor_1, bitwise_or)
