class GraphModule(torch.nn.Module):
    def forward(self, x_1: "f32[s75, s96]", w_1: "f32[s96, s9]"):
        mm: "f32[s75, s9]" = torch.ops.aten.mm.default(x_1, w_1);  w_1 = None
        relu: "f32[s75, s9]" = torch.ops.aten.relu.default(mm);  mm = None
        sym_size_int: "Sym(s75)" = torch.ops.aten.sym_size.int(x_1, 0);  x_1 = None
        mul: "Sym(2*s75)" = sym_size_int * 2;  sym_size_int = None
        view: "f32[2*s75, (s9//2)]" = torch.ops.aten.view.default(relu, [mul, -1]);  mul = None
        _softmax: "f32[2*s75, (s9//2)]" = torch.ops.aten._softmax.default(view, -1, False);  view = None
        add: "f32[2*s75, (s9//2)]" = torch.ops.aten.add.Tensor(_softmax, 1);  _softmax = None
        sum_1: "f32[s9]" = torch.ops.aten.sum.dim_IntList(relu, [0]);  relu = None
        return (add, sum_1)
