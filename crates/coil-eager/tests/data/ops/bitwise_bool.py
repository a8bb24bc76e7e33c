class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "b8[3, 4]", xs_1: "b8[3, 4]"):
        bitwise_and: "b8[3, 4]" = torch.ops.aten.bitwise_and.Tensor(xs_0, xs_1)
        bitwise_or: "b8[3, 4]" = torch.ops.aten.bitwise_or.Tensor(xs_0, xs_1)
        bitwise_xor: "b8[3, 4]" = torch.ops.aten.bitwise_xor.Tensor(xs_0, xs_1);  xs_1 = None
        bitwise_and_1: "b8[3, 4]" = torch.ops.aten.bitwise_and.Scalar(xs_0, True)
        bitwise_or_1: "b8[3, 4]" = torch.ops.aten.bitwise_or.Scalar(xs_0, False)
        bitwise_xor_1: "b8[3, 4]" = torch.ops.aten.bitwise_xor.Scalar(xs_0, True);  xs_0 = None
        return (bitwise_and, bitwise_or, bitwise_xor, bitwise_and_1, bitwise_or_1, bitwise_xor_1)
