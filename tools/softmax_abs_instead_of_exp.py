# softmax with exp replaced by abs, for timing the rest of the kernel: docs/perf.md ("where the time goes").
# Run: ./target/release/coil run-model tools/softmax_abs_instead_of_exp.py --bench --json
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8192, 8192]"):
        amax: "f32[8192, 1]" = torch.ops.aten.amax.default(x, [-1], True)
        sub: "f32[8192, 8192]" = torch.ops.aten.sub.Tensor(x, amax)
        e: "f32[8192, 8192]" = torch.ops.aten.abs.default(sub)
        s: "f32[8192, 1]" = torch.ops.aten.sum.dim_IntList(e, [-1], True)
        d: "f32[8192, 8192]" = torch.ops.aten.div.Tensor(e, s)
        return (d,)
