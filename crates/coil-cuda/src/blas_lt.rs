//! Matrix multiplication through cuBLASLt with one plan per problem: the layouts, the matmul
//! descriptor and the heuristic's algorithm are made at a problem's first call and reused,
//! so a later call is one `cublasLtMatmul` (the classic `cublasGemmEx` path looks its
//! heuristic up on every call, several microseconds of host time each). An `addmm`'s bias is
//! the matmul's bias epilogue, not a second product. `blas.rs` checks the operands and turns
//! the row-major product into the column-major one; this file only plans and runs that.
//! Where cuBLASLt is missing or its heuristic has no algorithm for a problem, the caller takes
//! the classic path.

use std::collections::HashMap;
use std::ffi::c_void;

use coil_graph::DType;
use cudarc::cublaslt::result as lt;
use cudarc::cublaslt::sys;
use cudarc::driver::DevicePtrMut;

use crate::error::CudaError;
use crate::runtime::{DeviceBuffer, GpuDevice};

/// The workspace every plan may use (cuBLAS's advice for Hopper).
const WORKSPACE_BYTES: usize = 32 << 20;

/// A column-major problem `D = alpha op(A) op(B) + beta C` (D is C), batched with strides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct LtProblem {
    /// f32, f16 or bf16 (operands and output; compute and scale in f32).
    pub dtype: DType,
    pub trans_a: bool,
    pub trans_b: bool,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub lda: i64,
    pub ldb: i64,
    pub ldc: i64,
    pub batch: i32,
    pub strides: [i64; 3],
    /// Each pointer's alignment (bytes, at most 256): the heuristic picks algorithms that
    /// need no more.
    pub align: [u32; 3],
    /// Adds a bias of `m` values to every column (an `addmm`'s bias, row-major).
    pub bias: bool,
}

/// The made descriptors of one problem.
struct LtPlan {
    desc: sys::cublasLtMatmulDesc_t,
    layouts: [sys::cublasLtMatrixLayout_t; 3],
    algo: sys::cublasLtMatmulAlgo_t,
}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: made by `plan` and destroyed only here.
        unsafe {
            let _ = lt::destroy_matmul_desc(self.desc);
            for l in self.layouts {
                let _ = lt::destroy_matrix_layout(l);
            }
        }
    }
}

/// cuBLASLt's handle, its plans (`None`: the heuristic had nothing, use the classic path) and
/// the workspace.
pub(crate) struct Lt {
    handle: sys::cublasLtHandle_t,
    plans: HashMap<LtProblem, Option<LtPlan>>,
    workspace: DeviceBuffer,
}

// SAFETY: the handle and descriptors are used under the device's lock only, one thread at a
// time; cuBLASLt allows a handle to move between threads.
unsafe impl Send for Lt {}

impl Drop for Lt {
    fn drop(&mut self) {
        self.plans.clear();
        // SAFETY: made in `Lt::new`, destroyed only here, after every plan.
        let _ = unsafe { lt::destroy_handle(self.handle) };
    }
}

fn lt_err(call: &'static str) -> impl Fn(lt::CublasError) -> CudaError {
    move |e| CudaError::BlasLt {
        call,
        status: format!("{:?}", e.0),
    }
}

impl Lt {
    fn new(dev: &GpuDevice) -> Result<Lt, CudaError> {
        let handle = lt::create_handle().map_err(lt_err("cublasLtCreate"))?;
        let workspace = dev.alloc(WORKSPACE_BYTES)?;
        Ok(Lt {
            handle,
            plans: HashMap::new(),
            workspace,
        })
    }

    fn plan(&self, p: &LtProblem) -> Result<Option<LtPlan>, CudaError> {
        let ty = match p.dtype {
            DType::F16 => sys::cudaDataType::CUDA_R_16F,
            DType::BF16 => sys::cudaDataType::CUDA_R_16BF,
            _ => sys::cudaDataType::CUDA_R_32F,
        };
        let desc = lt::create_matmul_desc(
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            sys::cudaDataType::CUDA_R_32F,
        )
        .map_err(lt_err("cublasLtMatmulDescCreate"))?;
        let mut plan = LtPlan {
            desc,
            layouts: [std::ptr::null_mut(); 3],
            // SAFETY: plain data, overwritten by the heuristic's result before any use.
            algo: unsafe { std::mem::zeroed() },
        };
        let set_desc = |attr, v: i32| {
            // SAFETY: the attribute takes an int32 (cublasOperation_t, cublasLtEpilogue_t).
            unsafe {
                lt::set_matmul_desc_attribute(
                    desc,
                    attr,
                    (&v as *const i32).cast(),
                    std::mem::size_of::<i32>(),
                )
            }
            .map_err(lt_err("cublasLtMatmulDescSetAttribute"))
        };
        use sys::cublasLtMatmulDescAttributes_t as D;
        set_desc(D::CUBLASLT_MATMUL_DESC_TRANSA, i32::from(p.trans_a))?;
        set_desc(D::CUBLASLT_MATMUL_DESC_TRANSB, i32::from(p.trans_b))?;
        if p.bias {
            set_desc(
                D::CUBLASLT_MATMUL_DESC_EPILOGUE,
                sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS as i32,
            )?;
        }
        // Stored shapes: op(A) is m x k, op(B) k x n, C m x n.
        let stored = |t: bool, r: u64, c: u64| if t { (c, r) } else { (r, c) };
        let shapes = [
            (stored(p.trans_a, p.m, p.k), p.lda),
            (stored(p.trans_b, p.k, p.n), p.ldb),
            ((p.m, p.n), p.ldc),
        ];
        for (i, ((rows, cols), ld)) in shapes.into_iter().enumerate() {
            let l = lt::create_matrix_layout(ty, rows, cols, ld)
                .map_err(lt_err("cublasLtMatrixLayoutCreate"))?;
            plan.layouts[i] = l;
            if p.batch > 1 {
                use sys::cublasLtMatrixLayoutAttribute_t as L;
                // SAFETY: int32 and int64 attributes, as cuBLASLt documents them.
                unsafe {
                    lt::set_matrix_layout_attribute(
                        l,
                        L::CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                        (&p.batch as *const i32).cast(),
                        std::mem::size_of::<i32>(),
                    )
                    .and_then(|()| {
                        lt::set_matrix_layout_attribute(
                            l,
                            L::CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                            (&p.strides[i] as *const i64).cast(),
                            std::mem::size_of::<i64>(),
                        )
                    })
                }
                .map_err(lt_err("cublasLtMatrixLayoutSetAttribute"))?;
            }
        }
        let pref = lt::create_matmul_pref().map_err(lt_err("cublasLtMatmulPreferenceCreate"))?;
        use sys::cublasLtMatmulPreferenceAttributes_t as P;
        let ws = WORKSPACE_BYTES as u64;
        let [aa, ab, ac] = p.align;
        // SAFETY: a uint64 and uint32 attributes, as cuBLASLt documents them.
        let prefs = unsafe {
            lt::set_matmul_pref_attribute(
                pref,
                P::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                (&ws as *const u64).cast(),
                std::mem::size_of::<u64>(),
            )
            .and_then(|()| {
                [
                    (P::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, aa),
                    (P::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, ab),
                    (P::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, ac),
                    (P::CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, ac),
                ]
                .into_iter()
                .try_for_each(|(attr, v)| {
                    lt::set_matmul_pref_attribute(
                        pref,
                        attr,
                        (&v as *const u32).cast(),
                        std::mem::size_of::<u32>(),
                    )
                })
            })
        };
        let [la, lb, lc] = plan.layouts;
        let found = prefs.and_then(|()| {
            // SAFETY: every descriptor was made above and is alive.
            unsafe { lt::get_matmul_algo_heuristic(self.handle, desc, la, lb, lc, lc, pref) }
        });
        // SAFETY: made above, destroyed once.
        let _ = unsafe { lt::destroy_matmul_pref(pref) };
        match found {
            Ok(h) => {
                plan.algo = h.algo;
                Ok(Some(plan))
            }
            // No algorithm (or a problem cuBLASLt refuses): the classic path runs it.
            Err(e) => {
                tracing::debug!(target: "cuda", problem = ?p, status = ?e.0, "cuBLASLt has no algorithm; classic cuBLAS");
                Ok(None)
            }
        }
    }
}

/// The largest power of two (at most 256) that divides `ptr`.
pub(crate) fn alignment(ptr: u64) -> u32 {
    1 << ptr.trailing_zeros().min(8)
}

impl GpuDevice {
    /// Runs `p` on raw device pointers through cuBLASLt: `Ok(false)` when cuBLASLt cannot
    /// (not installed, or no algorithm for the problem), and the caller takes the classic path.
    ///
    /// # Safety
    /// The pointers span what `p` describes (checked by the caller), `bias` (when `p.bias`)
    /// holds `p.m` values of the operands' type, and all are this device's memory.
    pub(crate) unsafe fn lt_matmul(
        &self,
        p: &LtProblem,
        (alpha, beta): (f32, f32),
        [a, b, c]: [u64; 3],
        bias: u64,
    ) -> Result<bool, CudaError> {
        let mut guard = self.lt.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            if !lt_present() {
                return Ok(false);
            }
            match Lt::new(self) {
                Ok(lt) => *guard = Some(lt),
                Err(e) => {
                    tracing::debug!(target: "cuda", %e, "cuBLASLt unusable; classic cuBLAS");
                    return Ok(false);
                }
            }
        }
        let Some(state) = guard.as_mut() else {
            return Ok(false);
        };
        if !state.plans.contains_key(p) {
            let plan = state.plan(p).unwrap_or_else(|e| {
                tracing::debug!(target: "cuda", problem = ?p, %e, "cuBLASLt plan failed; classic cuBLAS");
                None
            });
            state.plans.insert(*p, plan);
        }
        let Some(Some(plan)) = state.plans.get(p) else {
            return Ok(false);
        };
        if p.bias {
            // SAFETY: a pointer attribute; the caller's promise for what it points at.
            unsafe {
                lt::set_matmul_desc_attribute(
                    plan.desc,
                    sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                    (&bias as *const u64).cast(),
                    std::mem::size_of::<u64>(),
                )
            }
            .map_err(lt_err("cublasLtMatmulDescSetAttribute"))?;
        }
        let stream = self.stream();
        let (ws, _guard) = state.workspace.slice_mut_ref().device_ptr_mut(&stream);
        let [la, lb, lc] = plan.layouts;
        // SAFETY: the caller's promise for the operands; the plan's descriptors are alive and
        // the workspace holds WORKSPACE_BYTES.
        unsafe {
            lt::matmul(
                state.handle,
                plan.desc,
                (&alpha as *const f32).cast(),
                (&beta as *const f32).cast(),
                a as *const c_void,
                la,
                b as *const c_void,
                lb,
                c as *const c_void,
                lc,
                c as *mut c_void,
                lc,
                &plan.algo,
                ws as *mut c_void,
                WORKSPACE_BYTES,
                stream.cu_stream() as sys::cudaStream_t,
            )
        }
        .map_or_else(
            |e| {
                // A refused call launches nothing: the classic path runs the product.
                tracing::debug!(target: "cuda", status = ?e.0, "cublasLtMatmul refused; classic cuBLAS");
                Ok(false)
            },
            |()| Ok(true),
        )
    }
}

/// Whether cuBLASLt (`libcublasLt.so`) can be loaded on this machine.
pub fn lt_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { sys::is_culib_present() }
}

#[cfg(test)]
mod tests {
    use super::alignment;

    #[test]
    fn alignment_is_the_largest_power_of_two_up_to_256() {
        assert_eq!(alignment(0x1000), 256);
        assert_eq!(alignment(0x1002), 2);
        assert_eq!(alignment(0x1010), 16);
        assert_eq!(alignment(0x1080), 128);
        assert_eq!(alignment(0), 256);
    }
}
