class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[6, 8]"):
        add: "f32[6, 8]" = torch.ops.aten.add.Tensor(xs_0, 3)
        clamp: "f32[6, 8]" = torch.ops.aten.clamp.default(add, 0);  add = None
        clamp_1: "f32[6, 8]" = torch.ops.aten.clamp.default(clamp, None, 6);  clamp = None
        mul: "f32[6, 8]" = torch.ops.aten.mul.Tensor(xs_0, clamp_1);  clamp_1 = None
        div: "f32[6, 8]" = torch.ops.aten.div.Tensor(mul, 6);  mul = None
        add_1: "f32[6, 8]" = torch.ops.aten.add.Tensor(xs_0, 3);  xs_0 = None
        clamp_2: "f32[6, 8]" = torch.ops.aten.clamp.default(add_1, 0);  add_1 = None
        clamp_3: "f32[6, 8]" = torch.ops.aten.clamp.default(clamp_2, None, 6);  clamp_2 = None
        div_1: "f32[6, 8]" = torch.ops.aten.div.Tensor(clamp_3, 6);  clamp_3 = None
        return (div, div_1)
