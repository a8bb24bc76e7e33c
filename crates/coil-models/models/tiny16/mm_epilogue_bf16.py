class GraphModule(torch.nn.Module):
    def forward(self, p_w: "bf16[32, 32]", x: "bf16[32, 32]"):
        add: "bf16[32, 32]" = torch.ops.aten.add.Tensor(x, 1);  x = None
        mm: "bf16[32, 32]" = torch.ops.aten.mm.default(add, p_w);  add = p_w = None
        relu: "bf16[32, 32]" = torch.ops.aten.relu.default(mm);  mm = None
        return (relu,)
