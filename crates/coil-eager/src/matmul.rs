//! Matrix products `mm`, `bmm`, `addmm` through the `gemm` crate (strided operands, so
//! transposed and expanded views need no copy). f16/bf16 go through f32, integers through a
//! plain loop.

use coil_graph::{DType, Dims, LibraryKind, Tensor, TensorMeta};
use gemm::Parallelism;

use crate::elem::{Num, Src, finish, scalar_as, with_compute};
use crate::error::{OpError, fail};
use crate::interp::Args;
use crate::strided::map1;

/// Runs a matmul; `out` is the node's recorded meta.
pub(crate) fn eval(kind: LibraryKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let dtype = out.dtype;
    if dtype == DType::Bool {
        return fail("matrix products are not implemented for bool");
    }
    let (lhs, rhs, bias) = match kind {
        LibraryKind::Convolution => return crate::nn::convolution(a, out),
        LibraryKind::ConvolutionBackward => {
            return fail("convolution_backward has three outputs (nn::convolution_backward)");
        }
        LibraryKind::Addmm => (
            a.tensor("mat1")?,
            a.tensor("mat2")?,
            Some((a.tensor("self")?, a.b.scalar("beta")?, a.b.scalar("alpha")?)),
        ),
        LibraryKind::Mm | LibraryKind::Bmm => (a.tensor("self")?, a.tensor("mat2")?, None),
    };
    let rank = if kind == LibraryKind::Bmm { 3 } else { 2 };
    let (ls, rs) = (lhs.sizes(), rhs.sizes());
    if ls.len() != rank
        || rs.len() != rank
        || ls[rank - 1] != rs[rank - 2]
        || (rank == 3 && ls[0] != rs[0])
    {
        return fail(format!(
            "mat1 and mat2 shapes cannot be multiplied ({} and {})",
            Dims(ls),
            Dims(rs)
        ));
    }
    let (batch, m, k, n) = if rank == 3 {
        (ls[0], ls[1], ls[2], rs[2])
    } else {
        (1, ls[0], ls[1], rs[1])
    };
    let sizes: Vec<usize> = if rank == 3 {
        vec![batch, m, n]
    } else {
        vec![m, n]
    };
    with_compute!(dtype, T => {
        let (l, r) = (Src::<T>::of(lhs)?, Src::<T>::of(rhs)?);
        let (l, r) = (Mat::new(&l, rank), Mat::new(&r, rank));
        // The initial destination and its weight: `beta * bias` for addmm (ignored when
        // beta is 0, as in PyTorch), nothing otherwise.
        let (mut dst, dst_weight, alpha) = match bias {
            Some((b, beta, alpha)) => {
                let (beta, alpha): (T, T) = (scalar_as(beta), scalar_as(alpha));
                if beta == T::ZERO {
                    (vec![T::ZERO; batch * m * n], None, alpha)
                } else {
                    let bias = map1(&sizes, &Src::<T>::tensor(b, &sizes)?, |v| v);
                    (bias, Some(beta), alpha)
                }
            }
            None => (vec![T::ZERO; batch * m * n], None, T::ONE),
        };
        for bi in 0..batch {
            T::matmul(
                (m, n, k),
                &mut dst[bi * m * n..(bi + 1) * m * n],
                dst_weight,
                l.at(bi),
                r.at(bi),
                alpha,
            )?;
        }
        finish(dst, dtype, sizes)
    })
}

/// A (batch of) matrices inside a storage slice.
struct Mat<'s, T> {
    data: &'s [T],
    offset: usize,
    batch_stride: usize,
    row_stride: usize,
    col_stride: usize,
}

impl<'s, T: Copy> Mat<'s, T> {
    fn new(s: &'s Src<'_, T>, rank: usize) -> Mat<'s, T> {
        let st = &s.strides;
        Mat {
            data: &s.data,
            offset: s.offset,
            batch_stride: if rank == 3 { st[0] } else { 0 },
            row_stride: st[rank - 2],
            col_stride: st[rank - 1],
        }
    }

    /// Matrix `b` of the batch.
    fn at(&self, b: usize) -> MatRef<'s, T> {
        MatRef {
            data: self.data,
            offset: self.offset + b * self.batch_stride,
            row_stride: self.row_stride,
            col_stride: self.col_stride,
        }
    }
}

/// One matrix: element (i, j) is `data[offset + i * row_stride + j * col_stride]`.
#[derive(Clone, Copy)]
pub(crate) struct MatRef<'s, T> {
    data: &'s [T],
    offset: usize,
    row_stride: usize,
    col_stride: usize,
}

/// Types with a matrix product.
pub(crate) trait MatMul: Num {
    /// `dst = w * dst + alpha * lhs @ rhs` for an `m x k` times `k x n` product into a
    /// contiguous `m x n` `dst`; `w = None` ignores `dst`'s contents.
    fn matmul(
        mnk: (usize, usize, usize),
        dst: &mut [Self],
        w: Option<Self>,
        lhs: MatRef<'_, Self>,
        rhs: MatRef<'_, Self>,
        alpha: Self,
    ) -> Result<(), OpError>;
}

/// True when every element of an `rows x cols` matrix lies inside its slice.
fn in_bounds<T>(x: &MatRef<'_, T>, rows: usize, cols: usize) -> bool {
    rows == 0
        || cols == 0
        || x.offset + (rows - 1) * x.row_stride + (cols - 1) * x.col_stride < x.data.len()
}

macro_rules! gemm_matmul {
    ($t:ty) => {
        impl MatMul for $t {
            fn matmul(
                (m, n, k): (usize, usize, usize),
                dst: &mut [Self],
                w: Option<Self>,
                lhs: MatRef<'_, Self>,
                rhs: MatRef<'_, Self>,
                alpha: Self,
            ) -> Result<(), OpError> {
                if m == 0 || n == 0 {
                    return Ok(());
                }
                if k == 0 {
                    let w = w.unwrap_or(0.0);
                    dst.iter_mut()
                        .for_each(|d| *d = if w == 0.0 { 0.0 } else { *d * w });
                    return Ok(());
                }
                if dst.len() != m * n || !in_bounds(&lhs, m, k) || !in_bounds(&rhs, k, n) {
                    return fail("matmul operands reach outside their storage");
                }
                // SAFETY: `dst` is a contiguous m x n slice, and every element gemm reads of
                // `lhs` (m x k) and `rhs` (k x n) lies inside its slice (checked above; views
                // are bounds-checked when made). gemm computes
                // `dst = w * dst + alpha * lhs @ rhs`, reading `dst` only when asked to.
                unsafe {
                    gemm::gemm(
                        m,
                        n,
                        k,
                        dst.as_mut_ptr(),
                        1,
                        n as isize,
                        w.is_some(),
                        lhs.data.as_ptr().add(lhs.offset),
                        lhs.col_stride as isize,
                        lhs.row_stride as isize,
                        rhs.data.as_ptr().add(rhs.offset),
                        rhs.col_stride as isize,
                        rhs.row_stride as isize,
                        w.unwrap_or(0.0),
                        alpha,
                        false,
                        false,
                        false,
                        Parallelism::Rayon(0),
                    );
                }
                Ok(())
            }
        }
    };
}

gemm_matmul!(f32);
gemm_matmul!(f64);

impl MatMul for i64 {
    fn matmul(
        (m, n, k): (usize, usize, usize),
        dst: &mut [Self],
        w: Option<Self>,
        lhs: MatRef<'_, Self>,
        rhs: MatRef<'_, Self>,
        alpha: Self,
    ) -> Result<(), OpError> {
        if dst.len() != m * n || !in_bounds(&lhs, m, k) || !in_bounds(&rhs, k, n) {
            return fail("matmul operands reach outside their storage");
        }
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0i64;
                for p in 0..k {
                    let x = lhs.data[lhs.offset + i * lhs.row_stride + p * lhs.col_stride];
                    let y = rhs.data[rhs.offset + p * rhs.row_stride + j * rhs.col_stride];
                    acc = acc.wrapping_add(x.wrapping_mul(y));
                }
                let d = &mut dst[i * n + j];
                let prev = w.map_or(0, |w| w.wrapping_mul(*d));
                *d = prev.wrapping_add(alpha.wrapping_mul(acc));
            }
        }
        Ok(())
    }
}
