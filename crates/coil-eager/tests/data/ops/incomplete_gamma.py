class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[132]", xs_1: "f32[132]", xs_2: "f64[130]", xs_3: "f64[130]"):
        igamma: "f64[130]" = torch.ops.aten.igamma.default(xs_2, xs_3)
        igammac: "f64[130]" = torch.ops.aten.igammac.default(xs_2, xs_3);  xs_2 = xs_3 = None
        igamma_1: "f32[132]" = torch.ops.aten.igamma.default(xs_0, xs_1)
        igammac_1: "f32[132]" = torch.ops.aten.igammac.default(xs_0, xs_1);  xs_0 = xs_1 = None
        return (igamma, igammac, igamma_1, igammac_1)
