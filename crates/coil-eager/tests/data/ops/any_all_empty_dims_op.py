class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[2, 2]", xs_1: "b8[2, 3]"):
        any_1: "b8[2, 2]" = torch.ops.aten.any.dims(xs_0, [])
        all_1: "b8[2, 2]" = torch.ops.aten.all.dims(xs_0, []);  xs_0 = None
        any_2: "b8[2, 3]" = torch.ops.aten.any.dims(xs_1, [])
        all_2: "b8[2, 3]" = torch.ops.aten.all.dims(xs_1, [], True);  xs_1 = None
        return (any_1, all_1, any_2, all_2)
