class GraphModule(torch.nn.Module):
    def forward(self, c_lifted_tensor_0: "f32[2, 3, 2, 2]", c_lifted_tensor_1: "f32[2]", xs_0: "f32[2, 4, 4, 3]"):
        permute: "f32[2, 3, 4, 4]" = torch.ops.aten.permute.default(xs_0, [0, 3, 1, 2])
        convolution: "f32[2, 2, 3, 3]" = torch.ops.aten.convolution.default(permute, c_lifted_tensor_0, c_lifted_tensor_1, [1, 1], [0, 0], [1, 1], False, [0, 0], 1);  permute = c_lifted_tensor_0 = c_lifted_tensor_1 = None
        permute_1: "f32[2, 3, 4, 4]" = torch.ops.aten.permute.default(xs_0, [0, 3, 1, 2])
        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(permute_1, [2, 2]);  permute_1 = None
        getitem: "f32[2, 3, 2, 2]" = max_pool2d_with_indices[0];  max_pool2d_with_indices = None
        permute_2: "f32[2, 4, 4, 3]" = torch.ops.aten.permute.default(xs_0, [0, 2, 1, 3])
        avg_pool2d: "f32[2, 4, 2, 1]" = torch.ops.aten.avg_pool2d.default(permute_2, [2, 2]);  permute_2 = None
        permute_3: "f32[4, 4, 2, 3]" = torch.ops.aten.permute.default(xs_0, [2, 1, 0, 3])
        cumsum: "f32[4, 4, 2, 3]" = torch.ops.aten.cumsum.default(permute_3, 1);  permute_3 = None
        permute_4: "f32[2, 3, 4, 4]" = torch.ops.aten.permute.default(xs_0, [0, 3, 2, 1])
        flip: "f32[2, 3, 4, 4]" = torch.ops.aten.flip.default(permute_4, [1]);  permute_4 = None
        permute_5: "f32[2, 4, 4, 3]" = torch.ops.aten.permute.default(xs_0, [0, 2, 1, 3]);  xs_0 = None
        constant_pad_nd: "f32[2, 4, 4, 3]" = torch.ops.aten.constant_pad_nd.default(permute_5, [1, -1], 0.0);  permute_5 = None
        return (convolution, getitem, avg_pool2d, cumsum, flip, constant_pad_nd)
