class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "i64[3, 4]", xs_1: "i64[3, 4]"):
        bitwise_and: "i64[3, 4]" = torch.ops.aten.bitwise_and.Tensor(xs_0, xs_1)
        bitwise_or: "i64[3, 4]" = torch.ops.aten.bitwise_or.Tensor(xs_0, xs_1)
        bitwise_xor: "i64[3, 4]" = torch.ops.aten.bitwise_xor.Tensor(xs_0, xs_1)
        bitwise_and_1: "i64[3, 4]" = torch.ops.aten.bitwise_and.Scalar(xs_0, 6)
        bitwise_or_1: "i64[3, 4]" = torch.ops.aten.bitwise_or.Scalar(xs_0, -8)
        bitwise_xor_1: "i64[3, 4]" = torch.ops.aten.bitwise_xor.Scalar(xs_0, 5)
        select: "i64[4]" = torch.ops.aten.select.int(xs_1, 0, 0);  xs_1 = None
        bitwise_and_2: "i64[3, 4]" = torch.ops.aten.bitwise_and.Tensor(xs_0, select);  xs_0 = select = None
        return (bitwise_and, bitwise_or, bitwise_xor, bitwise_and_1, bitwise_or_1, bitwise_xor_1, bitwise_and_2)
