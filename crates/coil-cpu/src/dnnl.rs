//! Convolution (and matmuls, [`OneDnn::matmul`]) through oneDNN (Debian's
//! `libdnnl.so.2`, the 2.x C API), loaded at run time:
//! a binary without it still runs, with convolutions as im2col and a matmul
//! ([`onednn_status`] says why). oneDNN picks its fastest kernel for the host (blocked
//! layouts, JIT for AVX2 / AVX-512 / AMX); operands in PyTorch's plain layouts are reordered
//! into those and the result back, each a oneDNN primitive. Primitives are built once per
//! shape and kept.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};
use std::sync::{Arc, Mutex, OnceLock};

use coil_lower::{ConvGrad, ConvOp};

mod conv;
mod post_ops;

pub(crate) use conv::ConvKey;
use conv::Prepared;

type Status = c_int;
type Handle = *mut c_void;
type Dims = [i64; 12];

const SUCCESS: Status = 0;
const F16: c_int = 1;
const BF16: c_int = 2;
const F32: c_int = 3;
const TAG_ANY: c_int = 1;
const CPU: c_int = 1;
const STREAM_DEFAULT: u32 = 1;
const FORWARD_TRAINING: c_int = 64;
const FORWARD_INFERENCE: c_int = 96;
const CONVOLUTION_DIRECT: c_int = 1;
/// `dnnl_query_impl_info_str`: the implementation's name (`brg:avx512_core_bf16`, `ref:any`).
const QUERY_IMPL_INFO_STR: c_int = 8;
const QUERY_SRC_MD: c_int = 129;
const QUERY_DIFF_SRC_MD: c_int = 130;
const QUERY_WEIGHTS_MD: c_int = 131;
const QUERY_DIFF_WEIGHTS_MD: c_int = 132;
const QUERY_DST_MD: c_int = 133;
const QUERY_DIFF_DST_MD: c_int = 134;
const ARG_SRC: c_int = 1;
const ARG_DST: c_int = 17;
const ARG_WEIGHTS: c_int = 33;
const ARG_BIAS: c_int = 41;
const ARG_DIFF_SRC: c_int = 129;
const ARG_DIFF_DST: c_int = 145;
const ARG_DIFF_WEIGHTS: c_int = 161;

/// Room for a `dnnl_memory_desc_t` (696 bytes in 2.6) and a `dnnl_convolution_desc_t` (5,976):
/// the library fills them; coil never reads their fields.
const MD_WORDS: usize = 512;
const OP_WORDS: usize = 4096;

#[repr(C)]
struct ExecArg {
    arg: c_int,
    memory: Handle,
}

/// The entry points coil uses.
struct Api {
    engine_create: unsafe extern "C" fn(*mut Handle, c_int, usize) -> Status,
    stream_create: unsafe extern "C" fn(*mut Handle, Handle, u32) -> Status,
    md_by_strides: unsafe extern "C" fn(*mut u64, c_int, *const i64, c_int, *const i64) -> Status,
    md_by_tag: unsafe extern "C" fn(*mut u64, c_int, *const i64, c_int, c_int) -> Status,
    md_equal: unsafe extern "C" fn(*const u64, *const u64) -> c_int,
    md_size: unsafe extern "C" fn(*const u64) -> usize,
    conv_desc: unsafe extern "C" fn(
        *mut u64,
        c_int,
        c_int,
        *const u64,
        *const u64,
        *const u64,
        *const u64,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    conv_bwd_data_desc: unsafe extern "C" fn(
        *mut u64,
        c_int,
        *const u64,
        *const u64,
        *const u64,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    conv_bwd_weights_desc: unsafe extern "C" fn(
        *mut u64,
        c_int,
        *const u64,
        *const u64,
        *const u64,
        *const u64,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    matmul_desc:
        unsafe extern "C" fn(*mut u64, *const u64, *const u64, *const u64, *const u64) -> Status,
    pd_create: unsafe extern "C" fn(*mut Handle, *const u64, Handle, Handle, Handle) -> Status,
    pd_query_md: unsafe extern "C" fn(Handle, c_int, c_int) -> *const u64,
    pd_query: unsafe extern "C" fn(Handle, c_int, c_int, *mut c_void) -> Status,
    reorder_pd:
        unsafe extern "C" fn(*mut Handle, *const u64, Handle, *const u64, Handle, Handle) -> Status,
    primitive_create: unsafe extern "C" fn(*mut Handle, Handle) -> Status,
    execute: unsafe extern "C" fn(Handle, Handle, c_int, *const ExecArg) -> Status,
    stream_wait: unsafe extern "C" fn(Handle) -> Status,
    memory_create: unsafe extern "C" fn(*mut Handle, *const u64, Handle, *mut c_void) -> Status,
    set_handle: unsafe extern "C" fn(Handle, *mut c_void) -> Status,
    attr_create: unsafe extern "C" fn(*mut Handle) -> Status,
    attr_destroy: unsafe extern "C" fn(Handle) -> Status,
    attr_set_post_ops: unsafe extern "C" fn(Handle, Handle) -> Status,
    post_ops_create: unsafe extern "C" fn(*mut Handle) -> Status,
    post_ops_destroy: unsafe extern "C" fn(Handle) -> Status,
    post_ops_append_eltwise: unsafe extern "C" fn(Handle, f32, c_int, f32, f32) -> Status,
    post_ops_append_binary: unsafe extern "C" fn(Handle, c_int, *const u64) -> Status,
}

/// The loaded library with one engine and one stream.
pub(crate) struct OneDnn {
    api: Api,
    engine: Handle,
    stream: Handle,
    /// Prepared convolutions by shape.
    convs: Mutex<HashMap<ConvKey, Arc<Mutex<Prepared>>>>,
    /// Prepared 16-bit matmuls by shape (`None`: oneDNN has no kernel for it on this host).
    matmuls: Mutex<HashMap<MatmulKey, Option<Arc<Mutex<PreparedMatmul>>>>>,
    _lib: libloading::Library,
}

// SAFETY: oneDNN engines, streams and primitives may be used from any thread; each prepared
// convolution (its memory objects and scratch buffers) is used under its own mutex, and the
// stream is waited on before a call returns.
unsafe impl Send for OneDnn {}
// SAFETY: as above.
unsafe impl Sync for OneDnn {}

/// Loads oneDNN once: `Ok` with the library, or why it is missing.
fn load() -> &'static Result<OneDnn, String> {
    static LIB: OnceLock<Result<OneDnn, String>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: loading oneDNN runs its initialisers, which are sound.
        let lib = unsafe { libloading::Library::new("libdnnl.so.2") }.map_err(|e| {
            format!("libdnnl.so.2 (oneDNN 2.x, Debian's libdnnl-dev) not loaded: {e}")
        })?;
        macro_rules! sym {
            ($name:literal) => {
                // SAFETY: the symbol has the C signature declared in `Api` (oneDNN 2.x's dnnl.h).
                *unsafe { lib.get($name) }.map_err(|e| format!("oneDNN: {e}"))?
            };
        }
        let api = Api {
            engine_create: sym!(b"dnnl_engine_create"),
            stream_create: sym!(b"dnnl_stream_create"),
            md_by_strides: sym!(b"dnnl_memory_desc_init_by_strides"),
            md_by_tag: sym!(b"dnnl_memory_desc_init_by_tag"),
            md_equal: sym!(b"dnnl_memory_desc_equal"),
            md_size: sym!(b"dnnl_memory_desc_get_size"),
            conv_desc: sym!(b"dnnl_dilated_convolution_forward_desc_init"),
            conv_bwd_data_desc: sym!(b"dnnl_dilated_convolution_backward_data_desc_init"),
            conv_bwd_weights_desc: sym!(b"dnnl_dilated_convolution_backward_weights_desc_init"),
            matmul_desc: sym!(b"dnnl_matmul_desc_init"),
            pd_create: sym!(b"dnnl_primitive_desc_create"),
            pd_query_md: sym!(b"dnnl_primitive_desc_query_md"),
            pd_query: sym!(b"dnnl_primitive_desc_query"),
            reorder_pd: sym!(b"dnnl_reorder_primitive_desc_create"),
            primitive_create: sym!(b"dnnl_primitive_create"),
            execute: sym!(b"dnnl_primitive_execute"),
            stream_wait: sym!(b"dnnl_stream_wait"),
            memory_create: sym!(b"dnnl_memory_create"),
            set_handle: sym!(b"dnnl_memory_set_data_handle"),
            attr_create: sym!(b"dnnl_primitive_attr_create"),
            attr_destroy: sym!(b"dnnl_primitive_attr_destroy"),
            attr_set_post_ops: sym!(b"dnnl_primitive_attr_set_post_ops"),
            post_ops_create: sym!(b"dnnl_post_ops_create"),
            post_ops_destroy: sym!(b"dnnl_post_ops_destroy"),
            post_ops_append_eltwise: sym!(b"dnnl_post_ops_append_eltwise"),
            post_ops_append_binary: sym!(b"dnnl_post_ops_append_binary"),
        };
        let mut engine: Handle = std::ptr::null_mut();
        let mut stream: Handle = std::ptr::null_mut();
        // SAFETY: out-pointers to handles, as the API takes them.
        unsafe {
            check((api.engine_create)(&mut engine, CPU, 0), "engine")?;
            check(
                (api.stream_create)(&mut stream, engine, STREAM_DEFAULT),
                "stream",
            )?;
        }
        Ok(OneDnn {
            api,
            engine,
            stream,
            convs: Mutex::new(HashMap::new()),
            matmuls: Mutex::new(HashMap::new()),
            _lib: lib,
        })
    })
}

fn check(status: Status, what: &str) -> Result<(), String> {
    if status == SUCCESS {
        Ok(())
    } else {
        Err(format!("oneDNN {what}: status {status}"))
    }
}

/// oneDNN, when it loaded.
pub(crate) fn onednn() -> Option<&'static OneDnn> {
    load().as_ref().ok()
}

/// Whether oneDNN convolutions are available, or why not.
pub fn onednn_status() -> Result<(), String> {
    load().as_ref().map(|_| ()).map_err(Clone::clone)
}

/// Whether oneDNN has a bf16 convolution kernel on this host (a 1x1 convolution's primitive
/// is made once to find out).
pub(crate) fn has_bf16_convolution() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| bf16_probe(&[None]))
}

/// The dtypes whose convolution gradients the CPU backend computes in oneDNN (none without
/// it).
pub fn conv_backward_dtypes() -> Vec<coil_graph::DType> {
    if onednn().is_none() {
        return Vec::new();
    }
    let mut dtypes = vec![coil_graph::DType::F32];
    if has_bf16_conv_backward() {
        dtypes.push(coil_graph::DType::BF16);
    }
    dtypes
}

/// Whether oneDNN has bf16 kernels for both convolution gradients on this host (probed once,
/// as [`has_bf16_convolution`]).
pub(crate) fn has_bf16_conv_backward() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| bf16_probe(&[Some(ConvGrad::Input), Some(ConvGrad::Weight)]))
}

/// Whether a small bf16 1x1 convolution's primitive can be made for each of `grads` (`None`:
/// the convolution itself).
fn bf16_probe(grads: &[Option<ConvGrad>]) -> bool {
    onednn().is_some_and(|d| {
        grads.iter().all(|&grad| {
            let key = ConvKey {
                dtype: coil_graph::DType::BF16,
                grad,
                conv: ConvOp {
                    stride: vec![1, 1],
                    padding: vec![0, 0],
                    dilation: vec![1, 1],
                    groups: 1,
                    bias: false,
                    post: Vec::new(),
                },
                x: (vec![1, 16, 4, 4], vec![256, 16, 4, 1]),
                w: (vec![16, 16, 1, 1], vec![16, 1, 1, 1]),
                out: (vec![1, 16, 4, 4], vec![256, 16, 4, 1]),
            };
            d.prepare(&key).is_ok()
        })
    })
}

/// Whether oneDNN has a bf16 matmul kernel on this host (AVX-512 BF16, AMX, or its
/// emulation on AVX-512), probed once on a small matmul.
pub(crate) fn has_bf16_matmul() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        onednn().is_some_and(|d| {
            let key = MatmulKey {
                dtype: coil_graph::DType::BF16,
                a: ([1, 16, 16], [256, 16, 1]),
                b: ([1, 16, 16], [256, 16, 1]),
                out: ([1, 16, 16], [256, 16, 1]),
                bias_row: false,
                post: Vec::new(),
            };
            d.prepare_matmul(&key).is_ok()
        })
    })
}

fn md() -> Box<[u64; MD_WORDS]> {
    Box::new([0; MD_WORDS])
}

fn dims(v: &[usize]) -> Dims {
    let mut d = [0i64; 12];
    for (o, &x) in d.iter_mut().zip(v) {
        *o = x as i64;
    }
    d
}

/// What a prepared 16-bit matmul depends on: the dtype, and each operand's `[batch, rows,
/// cols]` sizes and element strides (the bias a broadcast row when present).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct MatmulKey {
    pub(crate) dtype: coil_graph::DType,
    pub(crate) a: ([usize; 3], [usize; 3]),
    pub(crate) b: ([usize; 3], [usize; 3]),
    pub(crate) out: ([usize; 3], [usize; 3]),
    pub(crate) bias_row: bool,
    /// Post-ops applied to the product in the call.
    pub(crate) post: Vec<KeyedPostOp>,
}

/// A post-op with its tensor operand's `[batch, rows, cols]` sizes and strides where it takes
/// one (0 strides: broadcast).
pub(crate) type KeyedPostOp = (coil_lower::PostOp, Option<([usize; 3], [usize; 3])>);

struct PreparedMatmul {
    matmul: Handle,
    src: Handle,
    weights: Handle,
    dst: Handle,
    bias: Option<Handle>,
    /// The binary post-ops' operands: `(position in the post-op chain, memory)`.
    binaries: Vec<(usize, Handle)>,
}

// SAFETY: only used under its mutex (see `OneDnn`).
unsafe impl Send for PreparedMatmul {}

impl OneDnn {
    /// A plain (strided) memory descriptor of `sizes`/`strides` and oneDNN data type `dt`.
    fn plain_of(
        &self,
        sizes: &[usize],
        strides: &[usize],
        dt: c_int,
    ) -> Result<Box<[u64; MD_WORDS]>, String> {
        let mut m = md();
        // SAFETY: `m` has room for a memory descriptor; dims and strides are 12 long.
        let s = unsafe {
            (self.api.md_by_strides)(
                m.as_mut_ptr(),
                sizes.len() as c_int,
                dims(sizes).as_ptr(),
                dt,
                dims(strides).as_ptr(),
            )
        };
        check(s, "memory descriptor")?;
        Ok(m)
    }

    fn any(&self, sizes: &[usize], dt: c_int) -> Result<Box<[u64; MD_WORDS]>, String> {
        let mut m = md();
        // SAFETY: as in `plain`.
        let s = unsafe {
            (self.api.md_by_tag)(
                m.as_mut_ptr(),
                sizes.len() as c_int,
                dims(sizes).as_ptr(),
                dt,
                TAG_ANY,
            )
        };
        check(s, "memory descriptor")?;
        Ok(m)
    }

    fn memory(&self, m: *const u64) -> Result<Handle, String> {
        let mut h: Handle = std::ptr::null_mut();
        // SAFETY: a valid descriptor; no handle yet (set before each execution).
        check(
            unsafe { (self.api.memory_create)(&mut h, m, self.engine, std::ptr::null_mut()) },
            "memory",
        )?;
        Ok(h)
    }

    fn run(&self, prim: Handle, args: &[ExecArg]) -> Result<(), String> {
        // SAFETY: a valid primitive with memory objects whose handles are set.
        check(
            unsafe { (self.api.execute)(prim, self.stream, args.len() as c_int, args.as_ptr()) },
            "execute",
        )
    }

    /// The name of the implementation primitive descriptor `pd` chose (empty if unknown).
    fn implementation(&self, pd: Handle) -> String {
        let mut name: *const std::ffi::c_char = std::ptr::null();
        // SAFETY: `pd` is a live primitive descriptor; the query writes a pointer to a
        // NUL-terminated string it owns, read before `pd` goes.
        let ok = unsafe {
            (self.api.pd_query)(
                pd,
                QUERY_IMPL_INFO_STR,
                0,
                std::ptr::from_mut(&mut name).cast(),
            )
        } == SUCCESS;
        if !ok || name.is_null() {
            return String::new();
        }
        // SAFETY: as above.
        unsafe { std::ffi::CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    }

    fn prepare_matmul(&self, key: &MatmulKey) -> Result<PreparedMatmul, String> {
        let dt = match key.dtype {
            coil_graph::DType::BF16 => BF16,
            coil_graph::DType::F16 => F16,
            coil_graph::DType::F32 => F32,
            other => return Err(format!("oneDNN matmul of {other}")),
        };
        let src = self.plain_of(&key.a.0, &key.a.1, dt)?;
        let weights = self.plain_of(&key.b.0, &key.b.1, dt)?;
        let dst = self.plain_of(&key.out.0, &key.out.1, dt)?;
        let n = key.out.0[2];
        let bias = if key.bias_row {
            Some(self.plain_of(&[1, 1, n], &[n, n, 1], dt)?)
        } else {
            None
        };
        let mut op = Box::new([0u64; OP_WORDS]);
        let mut pd: Handle = std::ptr::null_mut();
        let mut matmul: Handle = std::ptr::null_mut();
        let (attr, binaries) = self.post_ops_attr(&key.post, dt)?;
        // SAFETY: descriptors live across the calls; out-pointers to handles.
        unsafe {
            check(
                (self.api.matmul_desc)(
                    op.as_mut_ptr(),
                    src.as_ptr(),
                    weights.as_ptr(),
                    bias.as_ref().map_or(std::ptr::null(), |b| b.as_ptr()),
                    dst.as_ptr(),
                ),
                "matmul descriptor",
            )?;
            check(
                (self.api.pd_create)(
                    &mut pd,
                    op.as_ptr(),
                    attr.as_ref().map_or(std::ptr::null_mut(), |a| a.0),
                    self.engine,
                    std::ptr::null_mut(),
                ),
                "matmul primitive descriptor",
            )?;
            drop(attr);
            // oneDNN's reference matmul converts element by element (for a transposed bf16
            // operand, say): widening in coil's own path is many times faster.
            let implementation = self.implementation(pd);
            if implementation.starts_with("ref") {
                return Err(format!(
                    "oneDNN would run its reference implementation ({implementation})"
                ));
            }
            check(
                (self.api.primitive_create)(&mut matmul, pd),
                "matmul primitive",
            )?;
        }
        Ok(PreparedMatmul {
            matmul,
            src: self.memory(src.as_ptr())?,
            weights: self.memory(weights.as_ptr())?,
            dst: self.memory(dst.as_ptr())?,
            bias: bias.map(|b| self.memory(b.as_ptr())).transpose()?,
            binaries: binaries
                .iter()
                .map(|(i, m)| Ok((*i, self.memory(m.as_ptr())?)))
                .collect::<Result<_, String>>()?,
        })
    }

    /// `out = a @ b (+ bias row)` for f32, bf16 or f16 operands at these pointers (strided, as
    /// `key` says), accumulated in f32 (16-bit results rounded once) by oneDNN's matmul (AMX
    /// or AVX-512 BF16/FP16 where the host has them). `Ok(false)` when oneDNN has no kernel
    /// for this dtype and layout on this host (the caller then uses its own path).
    ///
    /// # Safety
    /// Each pointer addresses the whole strided extent `key` gives it, valid for the call.
    pub(crate) unsafe fn matmul(
        &self,
        key: &MatmulKey,
        a: *const u8,
        b: *const u8,
        bias: Option<*const u8>,
        post: &[*const u8],
        out: *mut u8,
    ) -> Result<bool, String> {
        let entry = {
            let mut cache = self.matmuls.lock().map_err(|_| "oneDNN cache poisoned")?;
            match cache.get(key) {
                Some(e) => e.clone(),
                None => {
                    let e = match self.prepare_matmul(key) {
                        Ok(p) => Some(Arc::new(Mutex::new(p))),
                        Err(e) => {
                            tracing::debug!(target: "cpu", ?key, "no oneDNN matmul: {e}");
                            None
                        }
                    };
                    cache.insert(key.clone(), e.clone());
                    e
                }
            }
        };
        let Some(entry) = entry else {
            return Ok(false);
        };
        let p = entry.lock().map_err(|_| "oneDNN matmul poisoned")?;
        let set = |m: Handle, ptr: *mut c_void| {
            // SAFETY: the caller's pointer is valid for the call.
            check(unsafe { (self.api.set_handle)(m, ptr) }, "memory handle")
        };
        set(p.src, a as *mut c_void)?;
        set(p.weights, b as *mut c_void)?;
        set(p.dst, out.cast())?;
        let mut args = vec![
            ExecArg {
                arg: ARG_SRC,
                memory: p.src,
            },
            ExecArg {
                arg: ARG_WEIGHTS,
                memory: p.weights,
            },
            ExecArg {
                arg: ARG_DST,
                memory: p.dst,
            },
        ];
        match (p.bias, bias) {
            (Some(m), Some(ptr)) => {
                set(m, ptr as *mut c_void)?;
                args.push(ExecArg {
                    arg: ARG_BIAS,
                    memory: m,
                });
            }
            (None, None) => {}
            _ => return Err("oneDNN matmul: the bias does not match its key".into()),
        }
        if post.len() != p.binaries.len() {
            return Err("oneDNN matmul: the post-op operands do not match its key".into());
        }
        for (&(at, m), &ptr) in p.binaries.iter().zip(post) {
            set(m, ptr as *mut c_void)?;
            args.push(ExecArg {
                arg: post_ops::binary_arg(at),
                memory: m,
            });
        }
        self.run(p.matmul, &args)?;
        // SAFETY: a valid stream.
        check(unsafe { (self.api.stream_wait)(self.stream) }, "wait")?;
        Ok(true)
    }
}
