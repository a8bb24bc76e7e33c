//! Matrix multiplication through cuBLAS: row-major `C = alpha op(A) op(B) + beta C` (mm, bmm,
//! addmm) as column-major `C^T = op(B)^T op(A)^T`, the usual transpose trick, with every
//! operand's extent checked against its buffer first.

use coil_graph::DType;
use cudarc::cublas::CudaBlas;
use cudarc::cublas::result as br;
use cudarc::cublas::sys;
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::driver::{DevicePtr, DevicePtrMut};

use crate::blas_lt::{LtProblem, alignment};
use crate::error::CudaError;
use crate::runtime::{DeviceBuffer, GpuDevice, cublas_present};

/// How a row-major f32 matrix lies in its buffer (all counts in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatLayout {
    /// Where matrix 0 starts.
    pub offset: usize,
    /// Elements between consecutive rows of the stored matrix.
    pub row_stride: usize,
    /// The stored matrix is the transpose of the operand (`x.t()` without a copy).
    pub transposed: bool,
    /// Elements between consecutive matrices of a batch (unused when the batch is 1).
    pub batch_stride: usize,
}

impl MatLayout {
    /// A contiguous `rows x cols` matrix (batches packed one after another).
    pub fn contiguous(rows: usize, cols: usize) -> MatLayout {
        MatLayout {
            offset: 0,
            row_stride: cols,
            transposed: false,
            batch_stride: rows * cols,
        }
    }

    /// Stored as the contiguous transpose: the operand is `rows x cols`, memory holds
    /// `cols x rows`.
    pub fn contiguous_transposed(rows: usize, cols: usize) -> MatLayout {
        MatLayout {
            offset: 0,
            row_stride: rows,
            transposed: true,
            batch_stride: rows * cols,
        }
    }
}

/// The sizes and scalars of a (batched) matmul: `C[b] = alpha A[b] B[b] + beta C[b]` with
/// `A[b]` `m x k`, `B[b]` `k x n`, `C[b]` `m x n`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gemm {
    /// The element type of A, B and C: f32, or f16 / bf16 (then computed in f32 on the
    /// tensor cores, `cublasGemmEx` with `CUBLAS_COMPUTE_32F`, and rounded once into C).
    pub dtype: DType,
    /// Batch count (1 for mm/addmm).
    pub batch: usize,
    /// Rows of A and C.
    pub m: usize,
    /// Columns of B and C.
    pub n: usize,
    /// Columns of A, rows of B.
    pub k: usize,
    /// Scales the product.
    pub alpha: f32,
    /// Scales C's old contents (0: C is only written; 1: addmm after C holds the bias).
    pub beta: f32,
}

fn to_int(v: usize, what: &str) -> Result<i32, CudaError> {
    i32::try_from(v).map_err(|_| CudaError::Size {
        op: "sgemm",
        reason: format!("{what} = {v} exceeds cuBLAS's 32-bit sizes"),
    })
}

/// Checks that a `rows x cols` operand with `layout` fits `buf` for `batch` matrices; returns
/// (column-major leading dimension, cuBLAS op).
fn check_operand(
    name: &str,
    buf: &DeviceBuffer,
    layout: &MatLayout,
    (rows, cols, batch): (usize, usize, usize),
    itemsize: usize,
) -> Result<(i32, cublasOperation_t), CudaError> {
    let (stored_rows, stored_cols) = if layout.transposed {
        (cols, rows)
    } else {
        (rows, cols)
    };
    let bad = |reason: String| CudaError::Size {
        op: "sgemm",
        reason: format!("operand {name}: {reason}"),
    };
    if layout.row_stride < stored_cols.max(1) {
        return Err(bad(format!(
            "row stride {} is less than its {stored_cols} stored columns",
            layout.row_stride
        )));
    }
    let last = layout.offset
        + (batch - 1) * layout.batch_stride
        + (stored_rows - 1) * layout.row_stride
        + (stored_cols - 1);
    let elems = buf.len() / itemsize;
    if last >= elems {
        return Err(bad(format!(
            "reaches element {last} of a buffer of {elems} elements"
        )));
    }
    let op = if layout.transposed {
        cublasOperation_t::CUBLAS_OP_T
    } else {
        cublasOperation_t::CUBLAS_OP_N
    };
    Ok((to_int(layout.row_stride, "row stride")?, op))
}

impl GpuDevice {
    fn with_blas<T>(
        &self,
        f: impl FnOnce(&CudaBlas) -> Result<T, CudaError>,
    ) -> Result<T, CudaError> {
        let mut guard = self
            .blas
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if guard.is_none() {
            if !cublas_present() {
                return Err(CudaError::NoCublas);
            }
            let handle = CudaBlas::new(self.stream()).map_err(|source| CudaError::Cublas {
                call: "cublasCreate_v2",
                source,
            })?;
            *guard = Some(handle);
        }
        match guard.as_ref() {
            Some(blas) => f(blas),
            None => Err(CudaError::NoCublas),
        }
    }

    /// Whether cuBLAS can be used (loads it and creates the handle on first call).
    pub fn blas_available(&self) -> Result<(), CudaError> {
        self.with_blas(|_| Ok(()))
    }

    /// `C = alpha op(A) op(B) + beta C` for row-major matrices, batched when
    /// `gemm.batch > 1`: cuBLASLt with a plan per problem where it loads and has an
    /// algorithm ([`GpuDevice::set_lt`]), else classic (strided-batched) cuBLAS.
    /// Asynchronous, ordered with launches.
    pub fn sgemm(
        &self,
        gemm: Gemm,
        a: (&DeviceBuffer, MatLayout),
        b: (&DeviceBuffer, MatLayout),
        c: (&mut DeviceBuffer, MatLayout),
    ) -> Result<(), CudaError> {
        self.gemm(gemm, a, b, c, None).map(|_| ())
    }

    /// [`GpuDevice::sgemm`] of one matrix (batch 1) plus a bias row of `n` values at element
    /// `offset` of `bias` added to every row of C (an `addmm`), as cuBLASLt's bias epilogue
    /// in the same call. `Ok(false)`, with nothing sent, where cuBLASLt cannot: the caller
    /// writes the bias into C and multiplies with `beta = 1`.
    pub fn sgemm_bias(
        &self,
        gemm: Gemm,
        a: (&DeviceBuffer, MatLayout),
        b: (&DeviceBuffer, MatLayout),
        c: (&mut DeviceBuffer, MatLayout),
        bias: (&DeviceBuffer, usize),
    ) -> Result<bool, CudaError> {
        if gemm.batch != 1 {
            return Ok(false);
        }
        self.gemm(gemm, a, b, c, Some(bias))
    }

    /// Whether matmuls try cuBLASLt first (the default); `false` keeps to classic cuBLAS (to
    /// compare the two).
    pub fn set_lt(&self, on: bool) {
        self.use_lt.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    fn gemm(
        &self,
        gemm: Gemm,
        a: (&DeviceBuffer, MatLayout),
        b: (&DeviceBuffer, MatLayout),
        c: (&mut DeviceBuffer, MatLayout),
        bias: Option<(&DeviceBuffer, usize)>,
    ) -> Result<bool, CudaError> {
        let Gemm {
            dtype,
            batch,
            m,
            n,
            k,
            alpha,
            beta,
        } = gemm;
        let (itemsize, data_type) = match dtype {
            DType::F32 => (4, None),
            DType::F16 => (2, Some(sys::cudaDataType_t::CUDA_R_16F)),
            DType::BF16 => (2, Some(sys::cudaDataType_t::CUDA_R_16BF)),
            other => {
                return Err(CudaError::Size {
                    op: "gemm",
                    reason: format!("{other} operands (cuBLAS runs f32, f16 and bf16 here)"),
                });
            }
        };
        if batch == 0 || m == 0 || n == 0 {
            return Ok(true);
        }
        if k == 0 {
            return Err(CudaError::Size {
                op: "sgemm",
                reason: "k = 0: the product is empty; fill C with beta * C instead".into(),
            });
        }
        if c.1.transposed {
            return Err(CudaError::Size {
                op: "sgemm",
                reason: "the output C cannot be a transposed view".into(),
            });
        }
        let (lda, op_a) = check_operand("A", a.0, &a.1, (m, k, batch), itemsize)?;
        let (ldb, op_b) = check_operand("B", b.0, &b.1, (k, n, batch), itemsize)?;
        let (ldc, _) = check_operand("C", c.0, &c.1, (m, n, batch), itemsize)?;
        let (mi, ni, ki) = (to_int(m, "m")?, to_int(n, "n")?, to_int(k, "k")?);
        let bi = to_int(batch, "batch")?;
        let stream = self.stream();
        let size = itemsize as u64;
        let (pa, _ra) = a.0.slice_ref().device_ptr(&stream);
        let (pb, _rb) = b.0.slice_ref().device_ptr(&stream);
        let (pc, _rc) = c.0.slice_mut_ref().device_ptr_mut(&stream);
        let (pa, pb, pc) = (
            pa + size * a.1.offset as u64,
            pb + size * b.1.offset as u64,
            pc + size * c.1.offset as u64,
        );
        let bias_ptr = match bias {
            Some((buf, offset)) => {
                if (offset + n) * itemsize > buf.len() {
                    return Err(CudaError::Size {
                        op: "addmm",
                        reason: format!(
                            "a bias of {n} values at element {offset} overruns its buffer of {} bytes",
                            buf.len()
                        ),
                    });
                }
                let (p, _r) = buf.slice_ref().device_ptr(&stream);
                Some(p + size * offset as u64)
            }
            None => None,
        };
        // cuBLASLt's kernels may assume a 16-byte aligned bias (its preferences have no bias
        // alignment): a bias at an odd element offset takes the classic path.
        let lt_bias_ok = bias_ptr.is_none_or(|p| alignment(p) >= 16);
        if lt_bias_ok && self.use_lt.load(std::sync::atomic::Ordering::Relaxed) {
            // Column-major: C^T = op(B)^T op(A)^T, as below.
            let problem = LtProblem {
                dtype,
                trans_a: op_b == cublasOperation_t::CUBLAS_OP_T,
                trans_b: op_a == cublasOperation_t::CUBLAS_OP_T,
                m: n as u64,
                n: m as u64,
                k: k as u64,
                lda: i64::from(ldb),
                ldb: i64::from(lda),
                ldc: i64::from(ldc),
                batch: bi,
                strides: [b.1.batch_stride, a.1.batch_stride, c.1.batch_stride].map(|s| s as i64),
                align: [pb, pa, pc].map(alignment),
                bias: bias_ptr.is_some(),
            };
            // SAFETY: every operand's extent (and the bias's) was checked against its buffer.
            let done = unsafe {
                self.lt_matmul(&problem, (alpha, beta), [pb, pa, pc], bias_ptr.unwrap_or(0))
            }?;
            if done {
                return Ok(true);
            }
        }
        if bias_ptr.is_some() {
            return Ok(false);
        }
        self.with_blas(|blas| {
            if let Some(ty) = data_type {
                // Column-major: C^T = op(B)^T op(A)^T, as below.
                // SAFETY: every operand's extent was checked against its buffer above.
                let status = unsafe {
                    if batch == 1 {
                        br::gemm_ex(
                            *blas.handle(),
                            op_b,
                            op_a,
                            ni,
                            mi,
                            ki,
                            (&alpha as *const f32).cast(),
                            pb as *const _,
                            ty,
                            ldb,
                            pa as *const _,
                            ty,
                            lda,
                            (&beta as *const f32).cast(),
                            pc as *mut _,
                            ty,
                            ldc,
                            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                        )
                    } else {
                        br::gemm_strided_batched_ex(
                            *blas.handle(),
                            op_b,
                            op_a,
                            ni,
                            mi,
                            ki,
                            (&alpha as *const f32).cast(),
                            pb as *const _,
                            ty,
                            ldb,
                            b.1.batch_stride as i64,
                            pa as *const _,
                            ty,
                            lda,
                            a.1.batch_stride as i64,
                            (&beta as *const f32).cast(),
                            pc as *mut _,
                            ty,
                            ldc,
                            c.1.batch_stride as i64,
                            bi,
                            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                            sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT,
                        )
                    }
                };
                return status.map_err(|source| CudaError::Cublas {
                    call: if batch == 1 {
                        "cublasGemmEx"
                    } else {
                        "cublasGemmStridedBatchedEx"
                    },
                    source,
                });
            }
            let (pa, pb, pc) = (pa as *const f32, pb as *const f32, pc as *mut f32);
            // Column-major: C^T (n x m) = op(B)^T (n x k) op(A)^T (k x m).
            // SAFETY: every operand's extent was checked against its buffer above.
            let status = unsafe {
                if batch == 1 {
                    br::sgemm(
                        *blas.handle(),
                        op_b,
                        op_a,
                        ni,
                        mi,
                        ki,
                        &alpha,
                        pb,
                        ldb,
                        pa,
                        lda,
                        &beta,
                        pc,
                        ldc,
                    )
                } else {
                    br::sgemm_strided_batched(
                        *blas.handle(),
                        op_b,
                        op_a,
                        ni,
                        mi,
                        ki,
                        &alpha,
                        pb,
                        ldb,
                        b.1.batch_stride as i64,
                        pa,
                        lda,
                        a.1.batch_stride as i64,
                        &beta,
                        pc,
                        ldc,
                        c.1.batch_stride as i64,
                        bi,
                    )
                }
            };
            status.map_err(|source| CudaError::Cublas {
                call: if batch == 1 {
                    "cublasSgemm_v2"
                } else {
                    "cublasSgemmStridedBatched"
                },
                source,
            })
        })
        .map(|()| true)
    }
}
