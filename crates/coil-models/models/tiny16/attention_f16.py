class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f16[2, 2, 16, 8]", xs_1: "f16[2, 2, 16, 8]", xs_2: "f16[2, 2, 16, 8]"):
        permute: "f16[2, 2, 8, 16]" = torch.ops.aten.permute.default(xs_1, [0, 1, 3, 2]);  xs_1 = None
        expand: "f16[2, 2, 16, 8]" = torch.ops.aten.expand.default(xs_0, [2, 2, 16, 8]);  xs_0 = None
        view: "f16[4, 16, 8]" = torch.ops.aten.view.default(expand, [4, 16, 8]);  expand = None
        expand_1: "f16[2, 2, 8, 16]" = torch.ops.aten.expand.default(permute, [2, 2, 8, 16]);  permute = None
        view_1: "f16[4, 8, 16]" = torch.ops.aten.view.default(expand_1, [4, 8, 16]);  expand_1 = None
        bmm: "f16[4, 16, 16]" = torch.ops.aten.bmm.default(view, view_1);  view = view_1 = None
        view_2: "f16[2, 2, 16, 16]" = torch.ops.aten.view.default(bmm, [2, 2, 16, 16]);  bmm = None
        div: "f16[2, 2, 16, 16]" = torch.ops.aten.div.Tensor(view_2, 2.8284271247461903);  view_2 = None
        _softmax: "f16[2, 2, 16, 16]" = torch.ops.aten._softmax.default(div, -1, False);  div = None
        expand_2: "f16[2, 2, 16, 16]" = torch.ops.aten.expand.default(_softmax, [2, 2, 16, 16]);  _softmax = None
        view_3: "f16[4, 16, 16]" = torch.ops.aten.view.default(expand_2, [4, 16, 16]);  expand_2 = None
        expand_3: "f16[2, 2, 16, 8]" = torch.ops.aten.expand.default(xs_2, [2, 2, 16, 8]);  xs_2 = None
        view_4: "f16[4, 16, 8]" = torch.ops.aten.view.default(expand_3, [4, 16, 8]);  expand_3 = None
        bmm_1: "f16[4, 16, 8]" = torch.ops.aten.bmm.default(view_3, view_4);  view_3 = view_4 = None
        view_5: "f16[2, 2, 16, 8]" = torch.ops.aten.view.default(bmm_1, [2, 2, 16, 8]);  bmm_1 = None
        return (view_5,)
