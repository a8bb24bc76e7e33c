//! Library matmuls (`mm`, `bmm`) on backend memory: f32, bf16 and f16 through oneDNN's matmul
//! where it loads and has a kernel (the default, by measurement); otherwise f32 and f64 through
//! the `gemm` crate with the operands' own strides (a transposed view needs no copy), f16 and
//! bf16 widened to f32 for `gemm` and rounded once; integers by a plain loop; and
//! library convolutions through oneDNN ([`crate::dnnl`]).

use coil_codegen::{ExternCall, StridedOperand};
use coil_graph::DType;
use gemm::Parallelism;

use crate::CpuError;
use crate::backend::Memory;

mod widen;
use widen::{load_16, round_16, run_widened};

fn fail<T>(msg: String) -> Result<T, CpuError> {
    Err(CpuError::Runtime(format!("matmul: {msg}")))
}

/// An operand resolved to memory: base pointer (at its offset) and strides.
struct Mat {
    ptr: *mut u8,
    /// `[batch, rows, cols]` strides in elements (batch 0 for 2-D operands).
    strides: [isize; 3],
}

fn resolve(mem: &Memory, x: &StridedOperand, what: &str) -> Result<Mat, CpuError> {
    let ptr = base(mem, x, what)?;
    if !(2..=3).contains(&x.strides.len()) {
        return fail(format!("{what}: a matrix of {} dims", x.strides.len()));
    }
    let r = x.strides.len();
    let st = |i: usize| x.strides[i] as isize;
    let strides = if r == 3 {
        [st(0), st(1), st(2)]
    } else {
        [0, st(0), st(1)]
    };
    Ok(Mat { ptr, strides })
}

/// The address of a strided operand's first element, once its whole extent is checked to lie
/// inside its buffer.
fn base(mem: &Memory, x: &StridedOperand, what: &str) -> Result<*mut u8, CpuError> {
    let (ptr, bytes) = mem.get(x.buffer)?;
    if x.strides.len() != x.sizes.len() {
        return fail(format!(
            "{what}: {} sizes but {} strides",
            x.sizes.len(),
            x.strides.len()
        ));
    }
    if x.sizes.iter().product::<usize>() > 0 {
        let last = x.offset
            + x.sizes
                .iter()
                .zip(&x.strides)
                .map(|(s, st)| (s - 1) * st)
                .sum::<usize>();
        if (last + 1) * x.dtype.itemsize() > bytes {
            return fail(format!(
                "{what} reaches element {last} of {}, which holds {} bytes",
                x.buffer, bytes
            ));
        }
    }
    // SAFETY: the offset lies within the allocation (checked above for nonempty operands; an
    // empty operand is never dereferenced, and the offset of its base stays in bounds of the
    // allocation's address range by construction of views).
    Ok(unsafe { ptr.add(x.offset * x.dtype.itemsize()) })
}

/// Which matmuls go to which library: oneDNN's matmul primitive (where it loaded and has a
/// kernel), OpenBLAS's sgemm (where asked for and it loads).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MatmulLibraries {
    /// bf16 and f16 through oneDNN.
    pub(crate) sixteen: bool,
    /// f32 through oneDNN.
    pub(crate) f32: bool,
    /// f32 through OpenBLAS (when not through oneDNN).
    pub(crate) openblas: bool,
    /// f32 through the loaded PyTorch's BLAS, as eager calls it, before any other
    /// ([`crate::eager_blas`]; where PyTorch is loaded).
    pub(crate) eager: bool,
}

/// Runs the matmul `call` (`inputs[0] @ inputs[1]`) on `mem`'s buffers, on `threads` threads
/// (through the libraries `libs` names for its dtype and size, where they load).
pub(crate) fn matmul(
    mem: &Memory,
    call: &ExternCall,
    threads: usize,
    libs: MatmulLibraries,
) -> Result<(), CpuError> {
    let (a, b) = call
        .matmul_operands()
        .map_err(|e| CpuError::Runtime(e.to_string()))?;
    let out = &call.out;
    let rank = a.sizes.len();
    if !(rank == 2 || rank == 3) || b.sizes.len() != rank || out.sizes.len() != rank {
        return fail(format!(
            "operands of ranks {}, {}, {}; expected all 2 or all 3",
            rank,
            b.sizes.len(),
            out.sizes.len()
        ));
    }
    let d = rank - 2;
    let (m, k, n) = (a.sizes[d], a.sizes[d + 1], b.sizes[d + 1]);
    let batch = if rank == 3 { a.sizes[0] } else { 1 };
    if b.sizes[d] != k
        || out.sizes[d] != m
        || out.sizes[d + 1] != n
        || (rank == 3 && (b.sizes[0] != batch || out.sizes[0] != batch))
    {
        return fail(format!(
            "shapes {:?} @ {:?} -> {:?} do not fit",
            a.sizes, b.sizes, out.sizes
        ));
    }
    if a.dtype != b.dtype || a.dtype != out.dtype {
        return fail(format!(
            "dtypes {} @ {} -> {} differ",
            a.dtype, b.dtype, out.dtype
        ));
    }
    if out.buffer == a.buffer || out.buffer == b.buffer {
        return fail(format!("the result {} is also an operand", out.buffer));
    }
    let (ma, mb, mo) = (
        resolve(mem, a, "a")?,
        resolve(mem, b, "b")?,
        resolve(mem, out, "out")?,
    );
    if m == 0 || n == 0 || batch == 0 {
        return Ok(());
    }
    let parallelism = if threads > 1 {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    };
    // A fused matmul's post-ops: each operand a view of the result's sizes and dtype.
    let mut post = Vec::new();
    for (op, operand) in call.post_ops() {
        let operand = match operand {
            Some(x) if x.dtype != out.dtype || x.sizes != out.sizes || x.buffer == out.buffer => {
                return fail(format!(
                    "a {op} post-op operand of {} {:?} for a {} {:?} product",
                    x.dtype, x.sizes, out.dtype, out.sizes
                ));
            }
            Some(x) => Some((x, resolve(mem, x, "post-op operand")?)),
            None if op.takes_operand() => return fail(format!("the {op} post-op has no operand")),
            None => None,
        };
        post.push((op, operand));
    }
    let result = product(
        mem,
        call,
        (&ma, &mb, &mo),
        (batch, m, k, n),
        parallelism,
        libs,
        &post,
    )?;
    if result == Ran::WithoutPostOps {
        // SAFETY: every operand's extent was checked by `resolve`; the result shares no
        // operand's buffer.
        unsafe { apply_post_ops(out.dtype, (batch, m, n), &mo, &post) };
    }
    Ok(())
}

/// f32 products of at most this many flops (`2 m n k` per batch, summed: 2 MFLOP) take OpenBLAS where
/// it loads with kernels for this host ([`crate::openblas::openblas_for_host`]), else gemm, rather than oneDNN (measured on 64^3 and the real models' small
/// layers: oneDNN's per-call cost dominates there).
pub(crate) const SMALL_F32_MATMUL_FLOPS: usize = 1 << 21;

/// How [`product`] ran: in oneDNN with the post-ops, or without them (applied after).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ran {
    WithPostOps,
    WithoutPostOps,
}

type PostOperands<'a> = [(coil_lower::PostOp, Option<(&'a StridedOperand, Mat)>)];

/// The product (with the bias of an `addmm`), through oneDNN where `libs` says and it has a
/// kernel (the post-ops included), else `gemm` (f32, f64; 16-bit widened) or a loop.
fn product(
    mem: &Memory,
    call: &ExternCall,
    (ma, mb, mo): (&Mat, &Mat, &Mat),
    (batch, m, k, n): (usize, usize, usize, usize),
    parallelism: Parallelism,
    libs: MatmulLibraries,
    post: &PostOperands<'_>,
) -> Result<Ran, CpuError> {
    // A product of one row splits its columns over the threads whatever its size
    // ([`crate::gemv`] decides by the matrix's).
    let threads = match parallelism {
        Parallelism::Rayon(t) => t,
        Parallelism::None => 1,
    };
    let (a, _) = call
        .matmul_operands()
        .map_err(|e| CpuError::Runtime(e.to_string()))?;
    let out = &call.out;
    let rank = a.sizes.len();
    if a.dtype.is_16_bit_float() {
        let bias = match call.matmul_bias() {
            Some(bias) if bias.dtype != a.dtype || bias.sizes != [m, n] || rank != 2 => {
                return fail(format!(
                    "an addmm bias of {} {:?} for a {} [{m}, {n}] product",
                    bias.dtype, bias.sizes, a.dtype
                ));
            }
            Some(bias) => Some(resolve(mem, bias, "bias")?),
            None => None,
        };
        if libs.sixteen && through_onednn(call, (ma, mb, mo), bias.as_ref(), post, k)? {
            return Ok(Ran::WithPostOps);
        }
        // SAFETY: as the f32 arms below (extents checked; the result shares no operand's
        // buffer); the bias was resolved the same way.
        unsafe {
            run_widened(
                a.dtype,
                (batch, m, k, n),
                ma,
                mb,
                mo,
                bias.as_ref(),
                parallelism,
            )
        };
        return Ok(Ran::WithoutPostOps);
    }
    // Small f32 products skip oneDNN: its call costs about 5-10 µs more than OpenBLAS's or
    // gemm's, more than it saves below two megaflops (`tools/matmul_sweep.py`, docs/perf.md).
    let small = 2 * batch * m * n * k <= SMALL_F32_MATMUL_FLOPS;
    // 2-D only: eager's bmm takes other routines by size.
    let eager = libs.eager
        && a.dtype == DType::F32
        && rank == 2
        && k > 0
        && crate::eager_blas::eager_blas_loaded();
    if libs.f32 && !small && !eager && a.dtype == DType::F32 {
        let bias = match call.matmul_bias() {
            Some(b) if b.dtype == DType::F32 && b.sizes == [m, n] && rank == 2 => {
                Some(resolve(mem, b, "bias")?)
            }
            Some(_) => None,
            None => None,
        };
        let bias_ok = call.matmul_bias().is_none() || bias.is_some();
        if bias_ok && through_onednn(call, (ma, mb, mo), bias.as_ref(), post, k)? {
            return Ok(Ran::WithPostOps);
        }
    }
    // An addmm: the bias (an [m, n] view, usually a broadcast row) into the result first,
    // which the product then accumulates onto.
    let accumulate = match call.matmul_bias() {
        Some(bias) => {
            if bias.dtype != DType::F32 || a.dtype != DType::F32 || rank != 2 {
                return fail("an addmm takes a 2-D f32 product and bias".into());
            }
            if bias.sizes != [m, n] || bias.buffer == out.buffer {
                return fail(format!("an addmm bias of {:?} for [{m}, {n}]", bias.sizes));
            }
            let mb = resolve(mem, bias, "bias")?;
            // SAFETY: `resolve` checked both extents; the bias does not share the result's
            // buffer. A row with unit column strides (a broadcast row too) is copied whole.
            unsafe {
                let (src, dst) = (mb.ptr as *const f32, mo.ptr as *mut f32);
                for i in 0..m as isize {
                    let (s, d) = (src.offset(i * mb.strides[1]), dst.offset(i * mo.strides[1]));
                    if mb.strides[2] == 1 && mo.strides[2] == 1 {
                        std::ptr::copy_nonoverlapping(s, d, n);
                        continue;
                    }
                    for j in 0..n as isize {
                        *d.offset(j * mo.strides[2]) = *s.offset(j * mb.strides[2]);
                    }
                }
            }
            true
        }
        None => false,
    };
    let sizes = (batch, m, k, n);
    // A small product on one thread: waking the others costs more than they would save, and
    // OpenBLAS's own threads would spin beside the pool's.
    let parallelism = if small {
        Parallelism::None
    } else {
        parallelism
    };
    // SAFETY: as for the gemm arms below.
    let matrices = [
        (ma.ptr, ma.strides),
        (mb.ptr, mb.strides),
        (mo.ptr, mo.strides),
    ];
    if eager && unsafe { crate::eager_blas::product((m, k, n), matrices, accumulate) } {
        return Ok(Ran::WithoutPostOps);
    }
    // One row by a matrix (a decode step's projections): a dot product a column, or the rows
    // summed, in place; the gemm crate packs the matrix for nothing there.
    // SAFETY: as for the gemm arms below (each batch's extents checked by `resolve`).
    if m == 1
        && a.dtype == DType::F32
        && unsafe { crate::gemv::batched((batch, k, n), matrices, accumulate, threads) }
    {
        return Ok(Ran::WithoutPostOps);
    }
    // SAFETY: as for the gemm arms below.
    // Small products by default only where OpenBLAS has kernels for this host's vector units;
    // asked for (`openblas_f32_matmul`), whatever it picked.
    let blas = if libs.openblas {
        crate::openblas::openblas()
    } else if libs.f32 && small {
        crate::openblas::openblas_for_host()
    } else {
        None
    };
    if let Some(blas) = blas
        && a.dtype == DType::F32
        && unsafe { through_openblas(blas, sizes, (ma, mb, mo), accumulate, parallelism) }
    {
        return Ok(Ran::WithoutPostOps);
    }
    match a.dtype {
        // SAFETY (all arms): every element the product reads or writes lies inside its buffer
        // (`resolve` checked each operand's extent), the result does not share a buffer with
        // an operand, and the memory table is locked by the caller.
        DType::F32 => unsafe { run_gemm::<f32>(sizes, ma, mb, mo, parallelism, accumulate) },
        DType::F64 => unsafe { run_gemm::<f64>(sizes, ma, mb, mo, parallelism, false) },
        DType::I64 => unsafe { run_naive::<i64>((batch, m, k, n), ma, mb, mo) },
        DType::I32 => unsafe { run_naive::<i32>((batch, m, k, n), ma, mb, mo) },
        DType::I16 => unsafe { run_naive::<i16>((batch, m, k, n), ma, mb, mo) },
        DType::I8 => unsafe { run_naive::<i8>((batch, m, k, n), ma, mb, mo) },
        DType::U8 => unsafe { run_naive::<u8>((batch, m, k, n), ma, mb, mo) },
        other => return fail(format!("{other} operands are not supported")),
    }
    Ok(Ran::WithoutPostOps)
}

/// The post-ops applied in place to a product computed without them (f32 arithmetic on
/// each element; a 16-bit result is widened and rounded again).
///
/// # Safety
/// `out` and every operand address `[batch, m, n]` live elements by their strides.
unsafe fn apply_post_ops(
    dtype: DType,
    (batch, m, n): (usize, usize, usize),
    out: &Mat,
    post: &PostOperands<'_>,
) {
    if post.is_empty() {
        return;
    }
    let at = |x: &Mat, b: usize, i: usize, j: usize| {
        b as isize * x.strides[0] + i as isize * x.strides[1] + j as isize * x.strides[2]
    };
    // SAFETY (the loads and stores): the caller's promise.
    let load = |x: &Mat, o: isize| -> f64 {
        unsafe {
            match dtype {
                DType::F32 => f64::from(*(x.ptr as *const f32).offset(o)),
                DType::F64 => *(x.ptr as *const f64).offset(o),
                _ => f64::from(load_16(dtype, x.ptr as *const u16, o)),
            }
        }
    };
    for b in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let o = at(out, b, i, j);
                let mut y = load(out, o);
                for (op, operand) in post {
                    let x = operand
                        .as_ref()
                        .map_or(0.0, |(_, mx)| load(mx, at(mx, b, i, j)));
                    y = f64::from(op.apply(y, x) as f32);
                }
                // SAFETY: the caller's promise.
                unsafe {
                    match dtype {
                        DType::F32 => *(out.ptr as *mut f32).offset(o) = y as f32,
                        DType::F64 => *(out.ptr as *mut f64).offset(o) = y,
                        _ => *(out.ptr as *mut u16).offset(o) = round_16(dtype, y as f32),
                    }
                }
            }
        }
    }
}

/// The f32 product through OpenBLAS (`accumulate`: onto the bias already in `out`), one call
/// per batch; `false` when OpenBLAS is missing or a layout has no unit stride.
///
/// # Safety
/// As [`run_gemm`].
unsafe fn through_openblas(
    blas: &crate::openblas::OpenBlas,
    (batch, m, k, n): (usize, usize, usize, usize),
    (a, b, out): (&Mat, &Mat, &Mat),
    accumulate: bool,
    parallelism: Parallelism,
) -> bool {
    use crate::openblas::BlasMat;
    if out.strides[2] != 1 && n > 1 {
        return false;
    }
    let threads = match parallelism {
        Parallelism::Rayon(t) => t,
        _ => 1,
    };
    for bi in 0..batch as isize {
        // SAFETY: batch offsets stay within the checked extents (the caller's promise).
        let ran = unsafe {
            let mat = |x: &Mat| BlasMat {
                ptr: (x.ptr as *const f32).offset(bi * x.strides[0]),
                rs: x.strides[1],
                cs: x.strides[2],
            };
            let po = (out.ptr as *mut f32).offset(bi * out.strides[0]);
            blas.sgemm(
                (m, k, n),
                &mat(a),
                &mat(b),
                (po, out.strides[1]),
                if accumulate { 1.0 } else { 0.0 },
                threads,
            )
        };
        if !ran {
            // Only the first batch can refuse (every batch has the same layout).
            return false;
        }
    }
    true
}

/// # Safety
/// The operands' elements for these sizes lie inside live allocations; `out` overlaps neither.
unsafe fn run_gemm<T: gemm_scalar::Scalar>(
    (batch, m, k, n): (usize, usize, usize, usize),
    a: &Mat,
    b: &Mat,
    out: &Mat,
    parallelism: Parallelism,
    accumulate: bool,
) {
    for bi in 0..batch as isize {
        // SAFETY: batch offsets stay within the checked extents.
        unsafe {
            let pa = (a.ptr as *const T).offset(bi * a.strides[0]);
            let pb = (b.ptr as *const T).offset(bi * b.strides[0]);
            let po = (out.ptr as *mut T).offset(bi * out.strides[0]);
            if k == 0 {
                if accumulate {
                    continue; // the result already holds what is added to an empty product
                }
                for i in 0..m as isize {
                    for j in 0..n as isize {
                        *po.offset(i * out.strides[1] + j * out.strides[2]) = T::ZERO;
                    }
                }
                continue;
            }
            gemm::gemm(
                m,
                n,
                k,
                po,
                out.strides[2],
                out.strides[1],
                accumulate,
                pa,
                a.strides[2],
                a.strides[1],
                pb,
                b.strides[2],
                b.strides[1],
                if accumulate { T::ONE } else { T::ZERO },
                T::ONE,
                false,
                false,
                false,
                parallelism,
            );
        }
    }
}

/// The matmul through oneDNN's matmul primitive (`[batch,] m x k @ k x n`, the operands'
/// strides as they are, a broadcast-row bias added): `Ok(true)` when it ran, `Ok(false)` when
/// oneDNN is missing or has no kernel for it (an empty `k`, another bias, a dtype or layout it
/// refuses on this host).
fn through_onednn(
    call: &ExternCall,
    (ma, mb, mo): (&Mat, &Mat, &Mat),
    bias: Option<&Mat>,
    post: &PostOperands<'_>,
    k: usize,
) -> Result<bool, CpuError> {
    let Some(dnnl) = crate::dnnl::onednn() else {
        return Ok(false);
    };
    let (a, b) = call
        .matmul_operands()
        .map_err(|e| CpuError::Runtime(e.to_string()))?;
    let dims3 = |x: &StridedOperand| -> ([usize; 3], [usize; 3]) {
        let r = x.sizes.len();
        let (s, t) = (&x.sizes[r - 2..], &x.strides[r - 2..]);
        let (b, bs) = if r == 3 {
            (x.sizes[0], x.strides[0])
        } else {
            (1, s[0] * s[1])
        };
        ([b, s[0], s[1]], [bs, t[0], t[1]])
    };
    let bias_row = call
        .matmul_bias()
        .is_some_and(|b| b.strides.len() == 2 && b.strides[0] == 0 && b.strides[1] == 1);
    if k == 0 || (bias.is_some() && !bias_row) {
        return Ok(false);
    }
    let key = crate::dnnl::MatmulKey {
        dtype: a.dtype,
        a: dims3(a),
        b: dims3(b),
        out: dims3(&call.out),
        bias_row,
        post: post
            .iter()
            .map(|(op, x)| (*op, x.as_ref().map(|(x, _)| dims3(x))))
            .collect(),
    };
    let post_ptrs: Vec<*const u8> = post
        .iter()
        .filter_map(|(_, x)| x.as_ref().map(|(_, m)| m.ptr as *const u8))
        .collect();
    // SAFETY: `resolve` checked each operand's extent; the pointers are their first elements.
    unsafe {
        dnnl.matmul(
            &key,
            ma.ptr as *const u8,
            mb.ptr as *const u8,
            bias.map(|c| c.ptr as *const u8),
            &post_ptrs,
            mo.ptr,
        )
    }
    .map_err(CpuError::Runtime)
}

/// # Safety
/// As [`run_gemm`].
unsafe fn run_naive<T: gemm_scalar::Int>(
    (batch, m, k, n): (usize, usize, usize, usize),
    a: &Mat,
    b: &Mat,
    out: &Mat,
) {
    let (m, k, n) = (m as isize, k as isize, n as isize);
    for bi in 0..batch as isize {
        // SAFETY: every offset stays within the checked extents.
        unsafe {
            let pa = (a.ptr as *const T).offset(bi * a.strides[0]);
            let pb = (b.ptr as *const T).offset(bi * b.strides[0]);
            let po = (out.ptr as *mut T).offset(bi * out.strides[0]);
            for i in 0..m {
                for j in 0..n {
                    let mut acc = T::ZERO;
                    for p in 0..k {
                        let x = *pa.offset(i * a.strides[1] + p * a.strides[2]);
                        let y = *pb.offset(p * b.strides[1] + j * b.strides[2]);
                        acc = acc.mul_add_wrapping(x, y);
                    }
                    *po.offset(i * out.strides[1] + j * out.strides[2]) = acc;
                }
            }
        }
    }
}

/// The element types the matmuls handle.
mod gemm_scalar {
    /// A float `gemm` multiplies.
    pub(super) trait Scalar: Copy + 'static {
        const ZERO: Self;
        const ONE: Self;
    }
    impl Scalar for f32 {
        const ZERO: f32 = 0.0;
        const ONE: f32 = 1.0;
    }
    impl Scalar for f64 {
        const ZERO: f64 = 0.0;
        const ONE: f64 = 1.0;
    }

    /// An integer multiplied with wrapping arithmetic.
    pub(super) trait Int: Copy {
        const ZERO: Self;
        fn mul_add_wrapping(self, x: Self, y: Self) -> Self;
    }
    impl Int for i64 {
        const ZERO: i64 = 0;
        fn mul_add_wrapping(self, x: i64, y: i64) -> i64 {
            self.wrapping_add(x.wrapping_mul(y))
        }
    }
    macro_rules! int_impl {
        ($($t:ty),*) => {$(
            impl Int for $t {
                const ZERO: $t = 0;
                fn mul_add_wrapping(self, x: $t, y: $t) -> $t {
                    self.wrapping_add(x.wrapping_mul(y))
                }
            }
        )*};
    }
    // The narrow integers wrap as PyTorch's integer matmul does (in their own width).
    int_impl!(i32, i16, i8, u8);
}

/// Runs the convolution `call` (`[input, weight, bias?]`) or a convolution gradient
/// (`[grad_output, weight]` or `[input, grad_output]`), f32 or bf16, through oneDNN on `mem`'s
/// buffers, every operand's extent checked against its buffer first.
pub(crate) fn convolution(mem: &Memory, call: &ExternCall) -> Result<(), CpuError> {
    let (conv, grad) = match &call.kind {
        coil_lower::ExternKind::Convolution(conv) => (conv, None),
        coil_lower::ExternKind::ConvolutionBackward(conv, grad) => (conv, Some(*grad)),
        _ => return fail(format!("{} is not a convolution", call.kind.kernel_name())),
    };
    let dnnl = crate::dnnl::onednn()
        .ok_or_else(|| CpuError::Runtime("convolution: oneDNN is not loaded".into()))?;
    if call.inputs.len() != call.kind.arity() {
        return fail(format!("a convolution with {} operands", call.inputs.len()));
    }
    let dtype = call.out.dtype;
    let same = call.inputs.iter().all(|o| o.dtype == dtype);
    if !same || !matches!(dtype, DType::F32 | DType::BF16) {
        return fail("oneDNN convolutions take f32 or bf16 operands, all of one dtype".into());
    }
    let ptr = |x: &StridedOperand, what: &str| -> Result<*mut u8, CpuError> { base(mem, x, what) };
    let (a, b) = (&call.inputs[0], &call.inputs[1]);
    let of = |o: &StridedOperand| (o.sizes.clone(), o.strides.clone());
    let written = (
        call.out.sizes.clone(),
        coil_graph::contiguous_strides(&call.out.sizes),
    );
    // The forward convolution's (input, weight, output).
    let (x, w, y) = match grad {
        None => (of(a), of(b), written),
        Some(coil_lower::ConvGrad::Input) => (written, of(b), of(a)),
        Some(coil_lower::ConvGrad::Weight) => (of(a), written, of(b)),
    };
    let key = crate::dnnl::ConvKey {
        dtype,
        grad,
        conv: conv.clone(),
        x,
        w,
        out: y,
    };
    let bias = call.inputs.get(2).map(|b| ptr(b, "bias")).transpose()?;
    // SAFETY: `base` checked that each operand's strided extent lies inside its buffer.
    unsafe {
        dnnl.convolution(
            &key,
            [
                ptr(a, "first operand")? as *const u8,
                ptr(b, "second operand")? as *const u8,
            ],
            bias.map(|b| b as *const u8),
            ptr(&call.out, "output")?,
        )
    }
    .map_err(|e| CpuError::Runtime(format!("{}: {e}", call.kind.kernel_name())))
}
