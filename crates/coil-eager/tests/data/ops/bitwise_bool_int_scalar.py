class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[2, 3]", xs_1: "i32[2, 3]", xs_2: "i64[2, 3]"):
        bitwise_and: "i64[2, 3]" = torch.ops.aten.bitwise_and.Scalar(xs_0, 3)
        bitwise_or: "i64[2, 3]" = torch.ops.aten.bitwise_or.Scalar(xs_0, 2)
        bitwise_xor: "i64[2, 3]" = torch.ops.aten.bitwise_xor.Scalar(xs_0, 1);  xs_0 = None
        bitwise_and_1: "i32[2, 3]" = torch.ops.aten.bitwise_and.Scalar(xs_1, 6)
        bitwise_xor_1: "i64[2, 3]" = torch.ops.aten.bitwise_xor.Tensor(xs_1, xs_2);  xs_2 = None
        bitwise_or_1: "i32[2, 3]" = torch.ops.aten.bitwise_or.Scalar(xs_1, -4);  xs_1 = None
        return (bitwise_and, bitwise_or, bitwise_xor, bitwise_and_1, bitwise_xor_1, bitwise_or_1)
