//! The float-function overloads of the op registry (`FloatFn`: the table in `float_fn.rs`) and
//! coil's own ops (the `coil` namespace), apart from `ops.rs` so that file stays readable.

use crate::FloatFn;
use crate::kinds::OpKind;

/// Each float function's schemas, in PyTorch's syntax.
pub(crate) const FLOAT_SCHEMAS: &[(OpKind, &str)] = {
    use OpKind::*;
    &[
        (
            Float(FloatFn::Lgamma),
            "lgamma.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Digamma),
            "digamma.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Digamma),
            "special_digamma.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Digamma),
            "special_psi.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Lgamma),
            "special_gammaln.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Polygamma),
            "polygamma.default(int n, Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Polygamma),
            "special_polygamma.default(int n, Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Zeta),
            "special_zeta.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Zeta),
            "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
        ),
        (
            Float(FloatFn::Zeta),
            "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Igamma),
            "igamma.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Igamma),
            "special_gammainc.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Igammac),
            "igammac.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Igammac),
            "special_gammaincc.default(Tensor self, Tensor other) -> Tensor",
        ),
        (Float(FloatFn::I0), "i0.default(Tensor self) -> Tensor"),
        (
            Float(FloatFn::I0),
            "special_i0.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::I0),
            "special_modified_bessel_i0.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::I0e),
            "special_i0e.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::I1),
            "special_i1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::I1),
            "special_modified_bessel_i1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::I1e),
            "special_i1e.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::K0),
            "special_modified_bessel_k0.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::K1),
            "special_modified_bessel_k1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::K0e),
            "special_scaled_modified_bessel_k0.default(Tensor x) -> Tensor",
        ),
        (
            Float(FloatFn::K1e),
            "special_scaled_modified_bessel_k1.default(Tensor x) -> Tensor",
        ),
        (
            Float(FloatFn::SphericalJ0),
            "special_spherical_bessel_j0.default(Tensor x) -> Tensor",
        ),
        (
            Float(FloatFn::ChebyshevT),
            "special_chebyshev_polynomial_t.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ChebyshevU),
            "special_chebyshev_polynomial_u.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ChebyshevV),
            "special_chebyshev_polynomial_v.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ChebyshevW),
            "special_chebyshev_polynomial_w.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ShiftedChebyshevT),
            "special_shifted_chebyshev_polynomial_t.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ShiftedChebyshevU),
            "special_shifted_chebyshev_polynomial_u.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ShiftedChebyshevV),
            "special_shifted_chebyshev_polynomial_v.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::ShiftedChebyshevW),
            "special_shifted_chebyshev_polynomial_w.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::HermiteH),
            "special_hermite_polynomial_h.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::HermiteHe),
            "special_hermite_polynomial_he.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::LaguerreL),
            "special_laguerre_polynomial_l.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::LegendreP),
            "special_legendre_polynomial_p.n_scalar(Tensor x, Scalar n) -> Tensor",
        ),
        (
            Float(FloatFn::J0),
            "special_bessel_j0.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::J1),
            "special_bessel_j1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Y0),
            "special_bessel_y0.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Y1),
            "special_bessel_y1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::AiryAi),
            "special_airy_ai.default(Tensor x) -> Tensor",
        ),
        (
            Float(FloatFn::Erfcx),
            "special_erfcx.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Ndtri),
            "special_ndtri.default(Tensor self) -> Tensor",
        ),
        (Float(FloatFn::Atan), "atan.default(Tensor self) -> Tensor"),
        (Float(FloatFn::Asin), "asin.default(Tensor self) -> Tensor"),
        (Float(FloatFn::Acos), "acos.default(Tensor self) -> Tensor"),
        (
            Float(FloatFn::Atan2),
            "atan2.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Hypot),
            "hypot.default(Tensor self, Tensor other) -> Tensor",
        ),
        (
            Float(FloatFn::Asinh),
            "asinh.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Acosh),
            "acosh.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Atanh),
            "atanh.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Expm1),
            "expm1.default(Tensor self) -> Tensor",
        ),
        (
            Float(FloatFn::Logaddexp),
            "logaddexp.default(Tensor self, Tensor other) -> Tensor",
        ),
        (Float(FloatFn::Erfc), "erfc.default(Tensor self) -> Tensor"),
        (
            Float(FloatFn::Erfinv),
            "erfinv.default(Tensor self) -> Tensor",
        ),
        (Float(FloatFn::Exp2), "exp2.default(Tensor self) -> Tensor"),
    ]
};

/// coil's own ops, in the `coil` namespace.
pub(crate) const COIL_SCHEMAS: &[(OpKind, &str)] = {
    use OpKind::*;
    &[
        // coil's random ops (`coil_kernel::philox`): the seed is a graph input (the Python
        // path draws it from torch's generator each call), `offset` numbers the op in its
        // graph, so two draws in one graph differ and none is merged with another.
        (
            PhiloxRand,
            "coil::philox_rand.default(Tensor seed, int offset, SymInt[] size, *, ScalarType dtype) -> Tensor",
        ),
        (
            PhiloxRandn,
            "coil::philox_randn.default(Tensor seed, int offset, SymInt[] size, *, ScalarType dtype) -> Tensor",
        ),
        (
            PhiloxRandint,
            "coil::philox_randint.default(Tensor seed, int offset, SymInt[] size, int low, int high, *, \
             ScalarType dtype) -> Tensor",
        ),
    ]
};
