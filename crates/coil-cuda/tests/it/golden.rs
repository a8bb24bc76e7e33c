//! Golden PTX for the two reference kernels the GPU backend is built around: `y = exp(x)`
//! (128-bit vectorized, grid-stride, scalar tail) and a row sum (one block per row, warp
//! shuffles then shared memory). `UPDATE_EXPECT=1` (or `cargo xtask bless`) rewrites them.

use coil_cuda::PtxTarget;
use coil_cuda::kernels::{self, ReduceOp};
use coil_cuda::math::MathFn;
use expect_test::expect_file;

#[test]
fn exp_elementwise_vectorized() {
    let k =
        kernels::elementwise("coil_exp_f32", MathFn::Exp, true, PtxTarget::SM90).expect("renders");
    expect_file!["golden/exp_f32_v4.ptx"].assert_eq(&k.to_string());
}

#[test]
fn row_sum_one_block_per_row() {
    let k = kernels::row_reduce(
        "coil_row_sum_f32",
        ReduceOp::Sum,
        256,
        true,
        PtxTarget::SM90,
    )
    .expect("renders");
    expect_file!["golden/row_sum_f32_256_v4.ptx"].assert_eq(&k.to_string());
}
