//! Convolution through cuDNN (cudarc's `cudnn`, loaded at run time like cuBLAS): one
//! `cudnnConvolutionForward` on the operands' own strides, then `cudnnAddTensor` for the bias,
//! on the device's stream. Descriptors, the algorithm (the fastest of cuDNN's, timed on the
//! device once) and its workspace are made once per shape and kept. 1-D convolutions run as 2-D ones of height 1.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};

use coil_graph::DType;
use coil_lower::ConvOp;
use cudarc::cudnn::result as dnn;
use cudarc::cudnn::sys;
use cudarc::driver::{DevicePtr, DevicePtrMut};

use crate::error::CudaError;
use crate::runtime::{DeviceBuffer, GpuDevice};

/// Whether cuDNN (`libcudnn.so.9`) can be loaded on this machine.
pub fn cudnn_present() -> bool {
    // SAFETY: only tries to dlopen the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// A strided f32 operand: its buffer, first element and per-dim sizes and strides (elements).
#[derive(Clone, Copy, Debug)]
pub struct ConvOperand<'a> {
    /// Where it lives.
    pub buffer: &'a DeviceBuffer,
    /// Element type (every operand and the output share it).
    pub dtype: DType,
    /// Offset of element 0, in elements.
    pub offset: usize,
    /// Sizes.
    pub sizes: &'a [usize],
    /// Strides, in elements.
    pub strides: &'a [usize],
}

/// What a prepared convolution depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ConvKey {
    conv: ConvOp,
    dtype: DType,
    x: (Vec<usize>, Vec<usize>),
    w: (Vec<usize>, Vec<usize>),
    out: Vec<usize>,
}

/// cuDNN's handle and the prepared convolutions.
pub(crate) struct Dnn {
    handle: sys::cudnnHandle_t,
    convs: HashMap<ConvKey, Prepared>,
}

// SAFETY: the handle and descriptors are only used under the device's mutex around `Dnn`.
unsafe impl Send for Dnn {}

impl Dnn {
    /// Sends the handle's work to stream `raw` (see `GpuDevice::use_stream`).
    pub(crate) fn set_stream(&self, raw: u64) -> Result<(), CudaError> {
        // SAFETY: a live handle; the caller of use_stream promises a live stream.
        unsafe { dnn::set_stream(self.handle, raw as _) }.map_err(failed("cudnnSetStream"))
    }
}

/// How cuDNN's forward algorithm is chosen for a convolution (`CudaBackend::with_conv_algo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ConvAlgoChoice {
    /// Every algorithm timed once on the device (`cudnnFindConvolutionForwardAlgorithm`, what
    /// `torch.backends.cudnn.benchmark` does), the fastest kept in the compile cache (namespace
    /// `cudnn-algo`), so a machine benchmarks each convolution once, not every process.
    #[default]
    BenchmarkCached,
    /// cuDNN's heuristic (`cudnnGetConvolutionForwardAlgorithm_v7`): nothing timed.
    Heuristic,
}

type Descriptors = (
    sys::cudnnTensorDescriptor_t,
    sys::cudnnFilterDescriptor_t,
    sys::cudnnConvolutionDescriptor_t,
    sys::cudnnTensorDescriptor_t,
);

/// The algorithm of cuDNN's numbering `n`.
fn algo_of(n: u32) -> Option<sys::cudnnConvolutionFwdAlgo_t> {
    use sys::cudnnConvolutionFwdAlgo_t as A;
    Some(match n {
        0 => A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
        1 => A::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        2 => A::CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
        3 => A::CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
        4 => A::CUDNN_CONVOLUTION_FWD_ALGO_FFT,
        5 => A::CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
        6 => A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
        7 => A::CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
        _ => return None,
    })
}

struct Prepared {
    x: sys::cudnnTensorDescriptor_t,
    w: sys::cudnnFilterDescriptor_t,
    y: sys::cudnnTensorDescriptor_t,
    bias: Option<sys::cudnnTensorDescriptor_t>,
    conv: sys::cudnnConvolutionDescriptor_t,
    algo: sys::cudnnConvolutionFwdAlgo_t,
    workspace: Option<DeviceBuffer>,
}

impl GpuDevice {
    /// The forward algorithm for `key`: the cached choice of an earlier benchmark, a new
    /// benchmark (then cached), or cuDNN's heuristic, as [`ConvAlgoChoice`] says.
    fn choose_algo(
        &self,
        handle: sys::cudnnHandle_t,
        key: &ConvKey,
        (x, w, conv, y): Descriptors,
    ) -> Result<sys::cudnnConvolutionFwdAlgo_t, CudaError> {
        let choice = self.conv_algo_choice();
        let cache = self.compile_cache();
        // SAFETY: a plain query of the loaded library.
        let version = unsafe { sys::cudnnGetVersion() };
        let info = self.info();
        let cache_key = coil_cache::KeyBuilder::new()
            .part("conv", format!("{key:?}"))
            .part("device", &info.name)
            .part("arch", format!("{:?}", info.caps.compute_capability))
            .part("cudnn", version.to_string())
            .part(
                "coil",
                concat!("coil-cuda ", env!("CARGO_PKG_VERSION"), " cudnn-algo v1"),
            )
            .finish();
        if choice == ConvAlgoChoice::BenchmarkCached
            && let coil_cache::Lookup::Hit(bytes) = cache.get("cudnn-algo", &cache_key)
            && let Ok(n) = <[u8; 4]>::try_from(bytes.as_slice())
            && let Some(algo) = algo_of(u32::from_le_bytes(n))
        {
            tracing::debug!(target: "cuda", ?algo, "cuDNN algorithm from the compile cache");
            return Ok(algo);
        }
        let mut count: c_int = 0;
        // SAFETY: all-zero is a valid value of this plain C struct.
        let mut perf: [sys::cudnnConvolutionFwdAlgoPerf_t; 8] = unsafe { std::mem::zeroed() };
        let start = std::time::Instant::now();
        // SAFETY: valid handle and descriptors; room for 8 results. Find times each algorithm
        // once on the device, fastest first; the heuristic ranks them without running any.
        let status = unsafe {
            match choice {
                ConvAlgoChoice::BenchmarkCached => sys::cudnnFindConvolutionForwardAlgorithm(
                    handle,
                    x,
                    w,
                    conv,
                    y,
                    8,
                    &mut count,
                    perf.as_mut_ptr(),
                ),
                ConvAlgoChoice::Heuristic => sys::cudnnGetConvolutionForwardAlgorithm_v7(
                    handle,
                    x,
                    w,
                    conv,
                    y,
                    8,
                    &mut count,
                    perf.as_mut_ptr(),
                ),
            }
        };
        status
            .result()
            .map_err(failed("cudnnFindConvolutionForwardAlgorithm"))?;
        let algo = perf[..count.max(0) as usize]
            .iter()
            .find(|r| r.status == sys::cudnnStatus_t::CUDNN_STATUS_SUCCESS)
            .map(|r| r.algo)
            .ok_or(CudaError::Size {
                op: "convolution",
                reason: "cuDNN has no algorithm for this convolution".into(),
            })?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        tracing::debug!(target: "cuda", ?algo, ?choice, ms, "cuDNN algorithm chosen");
        if choice == ConvAlgoChoice::BenchmarkCached {
            cache.put("cudnn-algo", &cache_key, &(algo as u32).to_le_bytes());
        }
        Ok(algo)
    }
}

fn failed(call: &'static str) -> impl Fn(dnn::CudnnError) -> CudaError {
    move |e| CudaError::Size {
        op: "convolution",
        reason: format!("cuDNN {call} failed: {e:?}"),
    }
}

fn ints(v: &[usize], what: &str) -> Result<Vec<c_int>, CudaError> {
    v.iter()
        .map(|&x| {
            c_int::try_from(x).map_err(|_| CudaError::Size {
                op: "convolution",
                reason: format!("{what} {x} exceeds cuDNN's 32-bit sizes"),
            })
        })
        .collect()
}

/// Sizes and strides with a height of 1 inserted for 1-D convolutions (cuDNN wants 4-D).
fn as_2d(sizes: &[usize], strides: &[usize]) -> (Vec<usize>, Vec<usize>) {
    if sizes.len() != 3 {
        return (sizes.to_vec(), strides.to_vec());
    }
    (
        vec![sizes[0], sizes[1], 1, sizes[2]],
        vec![strides[0], strides[1], strides[2] * sizes[2], strides[2]],
    )
}

impl GpuDevice {
    /// `out = conv(x, w) + bias` (`out` contiguous), asynchronous on the device's stream: f32
    /// with f32 arithmetic (no TF32), or f16 / bf16 with f32 accumulation on the tensor cores.
    pub fn convolution(
        &self,
        conv: &ConvOp,
        x: ConvOperand<'_>,
        w: ConvOperand<'_>,
        bias: Option<ConvOperand<'_>>,
        out: (&mut DeviceBuffer, &[usize]),
    ) -> Result<(), CudaError> {
        if !cudnn_present() {
            return Err(CudaError::Size {
                op: "convolution",
                reason: "cuDNN (libcudnn.so.9) is not loadable".into(),
            });
        }
        let dtype = x.dtype;
        let size = dtype.itemsize();
        if !matches!(dtype, DType::F32 | DType::F16 | DType::BF16)
            || [Some(&w), bias.as_ref()]
                .into_iter()
                .flatten()
                .any(|o| o.dtype != dtype)
        {
            return Err(CudaError::Size {
                op: "convolution",
                reason: format!(
                    "cuDNN convolutions take f32, f16 or bf16 operands of one dtype, not {dtype:?}"
                ),
            });
        }
        for (name, o) in [("input", &x), ("weight", &w)] {
            let last = o.offset
                + o.sizes
                    .iter()
                    .zip(o.strides)
                    .map(|(s, st)| s.saturating_sub(1) * st)
                    .sum::<usize>();
            if o.sizes.iter().product::<usize>() > 0 && size * (last + 1) > o.buffer.len() {
                return Err(CudaError::Size {
                    op: "convolution",
                    reason: format!("the {name} reaches past its buffer"),
                });
            }
        }
        let numel: usize = out.1.iter().product();
        if size * numel > out.0.len() {
            return Err(CudaError::Size {
                op: "convolution",
                reason: "the output does not fit its buffer".into(),
            });
        }
        let key = ConvKey {
            conv: conv.clone(),
            dtype,
            x: (x.sizes.to_vec(), x.strides.to_vec()),
            w: (w.sizes.to_vec(), w.strides.to_vec()),
            out: out.1.to_vec(),
        };
        let mut guard = self.dnn.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            let handle = dnn::create_handle().map_err(failed("cudnnCreate"))?;
            // SAFETY: a fresh handle and the device's live stream.
            unsafe { dnn::set_stream(handle, self.stream().cu_stream() as _) }
                .map_err(failed("cudnnSetStream"))?;
            *guard = Some(Dnn {
                handle,
                convs: HashMap::new(),
            });
        }
        let d = guard.as_mut().ok_or(CudaError::Offline("cuDNN"))?;
        if !d.convs.contains_key(&key) {
            let p = self.prepare(d.handle, &key)?;
            d.convs.insert(key.clone(), p);
        }
        let p = &d.convs[&key];
        let stream = self.stream();
        let (px, _rx) = x.buffer.slice_ref().device_ptr(&stream);
        let (pw, _rw) = w.buffer.slice_ref().device_ptr(&stream);
        let (py, _ry) = out.0.slice_mut_ref().device_ptr_mut(&stream);
        let px = px + (size * x.offset) as u64;
        let pw = pw + (size * w.offset) as u64;
        let (ws, ws_len) = match &p.workspace {
            Some(b) => (b.slice_ref().device_ptr(&stream).0, b.len()),
            None => (0, 0),
        };
        let (one, zero) = (1.0f32, 0.0f32);
        // SAFETY: descriptors match the operands (built from their sizes and strides, whose
        // extents were checked against the buffers); pointers are live device memory.
        unsafe {
            dnn::convolution_forward(
                d.handle,
                (&one as *const f32).cast(),
                p.x,
                px as *const c_void,
                p.w,
                pw as *const c_void,
                p.conv,
                p.algo,
                ws as *mut c_void,
                ws_len,
                (&zero as *const f32).cast(),
                p.y,
                py as *mut c_void,
            )
        }
        .map_err(failed("cudnnConvolutionForward"))?;
        if let (Some(bd), Some(b)) = (p.bias, bias) {
            let (pb, _rb) = b.buffer.slice_ref().device_ptr(&stream);
            let pb = pb + (size * b.offset) as u64;
            // SAFETY: the bias descriptor is [1, C, 1, 1] over a C-long vector of the dtype
            // (scaling factors are f32 for every dtype but f64).
            unsafe {
                sys::cudnnAddTensor(
                    d.handle,
                    (&one as *const f32).cast(),
                    bd,
                    pb as *const c_void,
                    (&one as *const f32).cast(),
                    p.y,
                    py as *mut c_void,
                )
            }
            .result()
            .map_err(failed("cudnnAddTensor"))?;
        }
        Ok(())
    }

    fn prepare(&self, handle: sys::cudnnHandle_t, key: &ConvKey) -> Result<Prepared, CudaError> {
        let c = &key.conv;
        let f32t = sys::cudnnDataType_t::CUDNN_DATA_FLOAT;
        let data = match key.dtype {
            DType::F16 => sys::cudnnDataType_t::CUDNN_DATA_HALF,
            DType::BF16 => sys::cudnnDataType_t::CUDNN_DATA_BFLOAT16,
            _ => f32t,
        };
        let (xs, xst) = as_2d(&key.x.0, &key.x.1);
        let (ws, _) = as_2d(&key.w.0, &key.w.1);
        if !coil_graph::is_contiguous(&key.w.0, &key.w.1) {
            return Err(CudaError::Size {
                op: "convolution",
                reason: "cuDNN takes contiguous filters".into(),
            });
        }
        let out = as_2d(&key.out, &coil_graph::contiguous_strides(&key.out)).0;
        let ys = coil_graph::contiguous_strides(&out);
        let one_d = key.x.0.len() == 3;
        let pads = if one_d {
            vec![0, c.padding[0]]
        } else {
            c.padding.clone()
        };
        let strides = if one_d {
            vec![1, c.stride[0]]
        } else {
            c.stride.clone()
        };
        let dil = if one_d {
            vec![1, c.dilation[0]]
        } else {
            c.dilation.clone()
        };
        let tensor = |sizes: &[usize], strides: &[usize]| -> Result<_, CudaError> {
            let d =
                dnn::create_tensor_descriptor().map_err(failed("cudnnCreateTensorDescriptor"))?;
            let (s, t) = (ints(sizes, "size")?, ints(strides, "stride")?);
            // SAFETY: a fresh descriptor; arrays of the given length.
            unsafe {
                dnn::set_tensornd_descriptor(d, data, s.len() as c_int, s.as_ptr(), t.as_ptr())
            }
            .map_err(failed("cudnnSetTensorNdDescriptor"))?;
            Ok(d)
        };
        let x = tensor(&xs, &xst)?;
        let y = tensor(&out, &ys)?;
        let bias = if c.bias {
            Some(tensor(&[1, out[1], 1, 1], &[out[1], 1, 1, 1])?)
        } else {
            None
        };
        let w = dnn::create_filter_descriptor().map_err(failed("cudnnCreateFilterDescriptor"))?;
        let wi = ints(&ws, "filter size")?;
        // SAFETY: a fresh descriptor; a 4-element array.
        unsafe {
            dnn::set_filternd_descriptor(
                w,
                data,
                sys::cudnnTensorFormat_t::CUDNN_TENSOR_NCHW,
                wi.len() as c_int,
                wi.as_ptr(),
            )
        }
        .map_err(failed("cudnnSetFilterNdDescriptor"))?;
        let conv = dnn::create_convolution_descriptor()
            .map_err(failed("cudnnCreateConvolutionDescriptor"))?;
        let (p, s, dl) = (
            ints(&pads, "padding")?,
            ints(&strides, "stride")?,
            ints(&dil, "dilation")?,
        );
        // SAFETY: a fresh descriptor; arrays of the spatial rank.
        unsafe {
            dnn::set_convolutionnd_descriptor(
                conv,
                p.len() as c_int,
                p.as_ptr(),
                s.as_ptr(),
                dl.as_ptr(),
                sys::cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION,
                f32t,
            )
            .map_err(failed("cudnnSetConvolutionNdDescriptor"))?;
            dnn::set_convolution_group_count(conv, c.groups as i32)
                .map_err(failed("cudnnSetConvolutionGroupCount"))?;
            // f32 results as PyTorch's default (no TF32 on the tensor cores); 16-bit operands
            // on the tensor cores, accumulating in f32 (the descriptor's compute type).
            let math = if data == f32t {
                sys::cudnnMathType_t::CUDNN_FMA_MATH
            } else {
                sys::cudnnMathType_t::CUDNN_TENSOR_OP_MATH
            };
            dnn::set_convolution_math_type(conv, math)
                .map_err(failed("cudnnSetConvolutionMathType"))?;
        }
        let algo = self.choose_algo(handle, key, (x, w, conv, y))?;
        // SAFETY: valid handle and descriptors.
        let bytes =
            unsafe { dnn::get_convolution_forward_workspace_size(handle, x, w, conv, y, algo) }
                .map_err(failed("cudnnGetConvolutionForwardWorkspaceSize"))?;
        let workspace = if bytes > 0 {
            Some(self.alloc(bytes)?)
        } else {
            None
        };
        Ok(Prepared {
            x,
            w,
            y,
            bias,
            conv,
            algo,
            workspace,
        })
    }
}
