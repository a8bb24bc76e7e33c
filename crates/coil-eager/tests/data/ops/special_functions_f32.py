class GraphModule(torch.nn.Module):
    def forward(self, xs_0: "f32[112]", xs_1: "f32[112]"):
        abs_1: "f32[112]" = torch.ops.aten.abs.default(xs_0)
        add: "f32[112]" = torch.ops.aten.add.Tensor(abs_1, 0.01);  abs_1 = None
        polygamma: "f32[112]" = torch.ops.aten.polygamma.default(1, add)
        mul: "f32[112]" = torch.ops.aten.mul.Tensor(xs_0, 3)
        special_bessel_j0: "f32[112]" = torch.ops.aten.special_bessel_j0.default(mul);  mul = None
        mul_1: "f32[112]" = torch.ops.aten.mul.Tensor(xs_0, 3)
        special_bessel_j1: "f32[112]" = torch.ops.aten.special_bessel_j1.default(mul_1);  mul_1 = None
        mul_2: "f32[112]" = torch.ops.aten.mul.Tensor(xs_0, 3)
        special_bessel_y0: "f32[112]" = torch.ops.aten.special_bessel_y0.default(mul_2);  mul_2 = None
        mul_3: "f32[112]" = torch.ops.aten.mul.Tensor(xs_0, 3)
        special_bessel_y1: "f32[112]" = torch.ops.aten.special_bessel_y1.default(mul_3);  mul_3 = None
        mul_4: "f32[112]" = torch.ops.aten.mul.Tensor(xs_0, 2)
        special_airy_ai: "f32[112]" = torch.ops.aten.special_airy_ai.default(mul_4);  mul_4 = None
        lgamma: "f32[112]" = torch.ops.aten.lgamma.default(xs_0)
        digamma: "f32[112]" = torch.ops.aten.digamma.default(xs_0)
        polygamma_1: "f32[112]" = torch.ops.aten.polygamma.default(3, add);  add = None
        abs_2: "f32[112]" = torch.ops.aten.abs.default(xs_0)
        add_1: "f32[112]" = torch.ops.aten.add.Tensor(abs_2, 1.5);  abs_2 = None
        special_zeta: "f32[112]" = torch.ops.aten.special_zeta.default(add_1, xs_1);  add_1 = None
        full_like: "f32[112]" = torch.ops.aten.full_like.default(xs_1, 3.0, pin_memory = False)
        special_zeta_1: "f32[112]" = torch.ops.aten.special_zeta.default(full_like, xs_1);  full_like = xs_1 = None
        i0: "f32[112]" = torch.ops.aten.i0.default(xs_0)
        special_i0e: "f32[112]" = torch.ops.aten.special_i0e.default(xs_0)
        special_i1: "f32[112]" = torch.ops.aten.special_i1.default(xs_0)
        special_i1e: "f32[112]" = torch.ops.aten.special_i1e.default(xs_0)
        special_modified_bessel_k0: "f32[112]" = torch.ops.aten.special_modified_bessel_k0.default(xs_0)
        special_modified_bessel_k1: "f32[112]" = torch.ops.aten.special_modified_bessel_k1.default(xs_0)
        special_scaled_modified_bessel_k0: "f32[112]" = torch.ops.aten.special_scaled_modified_bessel_k0.default(xs_0)
        special_scaled_modified_bessel_k1: "f32[112]" = torch.ops.aten.special_scaled_modified_bessel_k1.default(xs_0)
        special_spherical_bessel_j0: "f32[112]" = torch.ops.aten.special_spherical_bessel_j0.default(xs_0);  xs_0 = None
        return (lgamma, digamma, polygamma, polygamma_1, special_zeta, special_zeta_1, i0, special_i0e, special_i1, special_i1e, special_modified_bessel_k0, special_modified_bessel_k1, special_scaled_modified_bessel_k0, special_scaled_modified_bessel_k1, special_spherical_bessel_j0, special_bessel_j0, special_bessel_j1, special_bessel_y0, special_bessel_y1, special_airy_ai)
