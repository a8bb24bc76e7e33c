//! The reference evaluator of the kernel IR: every kernel run element by element with the
//! lowering's scalar semantics (`scalar::unary` / `scalar::binary`, PyTorch's casts,
//! accumulators in f64 for floats), and [`InterpBackend`], a whole backend built on it (host
//! memory behind handles, naive extern matmuls). It is the oracle a new backend compares
//! against and the smallest complete example of the [`Backend`] contract (`docs/codegen.md`).
//! Slow on purpose: clarity over speed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use half::{bf16, f16};

use crate::backend::{
    Backend, BackendError, BufferHandle, CompiledKernels, Compiler, ExternCall, Runtime,
    StridedOperand,
};
use crate::kernel::{KExpr, Kernel, StageKind, StoreMode, ValueId};
use crate::scalar::{Acc, Scalar, binary as eval_binary, unary as eval_unary};
use crate::{Const, DType, Device, ExternKind, MatmulOp, Target, Var};

fn runtime(msg: impl Into<String>) -> BackendError {
    BackendError::Runtime(msg.into())
}

/// Element `i` of a buffer of `dtype` elements, or an error naming the access.
fn read(
    bytes: &[u8],
    dtype: DType,
    i: i64,
    what: &dyn Fn() -> String,
) -> Result<Scalar, BackendError> {
    let n = dtype.itemsize();
    let at = usize::try_from(i)
        .ok()
        .and_then(|i| bytes.get(i * n..(i + 1) * n))
        .ok_or_else(|| {
            runtime(format!(
                "{} reads element {i} of {}",
                what(),
                bytes.len() / n
            ))
        })?;
    let b4 = || [at[0], at[1], at[2], at[3]];
    let b8 = || [at[0], at[1], at[2], at[3], at[4], at[5], at[6], at[7]];
    Ok(match dtype {
        DType::F32 => Scalar::F(f32::from_le_bytes(b4()) as f64),
        DType::F64 => Scalar::F(f64::from_le_bytes(b8())),
        DType::F16 => Scalar::F(f16::from_le_bytes([at[0], at[1]]).to_f64()),
        DType::BF16 => Scalar::F(bf16::from_le_bytes([at[0], at[1]]).to_f64()),
        DType::U8 => Scalar::I(at[0] as i64),
        DType::I8 => Scalar::I(at[0] as i8 as i64),
        DType::I16 => Scalar::I(i16::from_le_bytes([at[0], at[1]]) as i64),
        DType::I32 => Scalar::I(i32::from_le_bytes(b4()) as i64),
        DType::I64 => Scalar::I(i64::from_le_bytes(b8())),
        DType::Bool => Scalar::B(at[0] != 0),
    })
}

/// Writes `v` (cast to `dtype`) as element `i`, or an error naming the access.
fn write(
    bytes: &mut [u8],
    dtype: DType,
    i: i64,
    v: Scalar,
    what: &dyn Fn() -> String,
) -> Result<(), BackendError> {
    let n = dtype.itemsize();
    let len = bytes.len() / n;
    let at = usize::try_from(i)
        .ok()
        .and_then(|i| bytes.get_mut(i * n..(i + 1) * n))
        .ok_or_else(|| runtime(format!("{} writes element {i} of {len}", what())))?;
    let encoded: Vec<u8> = match (dtype, v.cast(dtype)) {
        (DType::F32, Scalar::F(x)) => (x as f32).to_le_bytes().to_vec(),
        (DType::F64, Scalar::F(x)) => x.to_le_bytes().to_vec(),
        (DType::F16, Scalar::F(x)) => f16::from_f64(x).to_le_bytes().to_vec(),
        (DType::BF16, Scalar::F(x)) => bf16::from_f64(x).to_le_bytes().to_vec(),
        (DType::U8 | DType::I8, Scalar::I(x)) => vec![x as u8],
        (DType::I16, Scalar::I(x)) => (x as i16).to_le_bytes().to_vec(),
        (DType::I32, Scalar::I(x)) => (x as i32).to_le_bytes().to_vec(),
        (DType::I64, Scalar::I(x)) => x.to_le_bytes().to_vec(),
        (DType::Bool, Scalar::B(x)) => vec![x as u8],
        (d, s) => return Err(runtime(format!("cannot store {s:?} as {d}"))),
    };
    at.copy_from_slice(&encoded);
    Ok(())
}

/// Calls `f` with every point of `ranges` (row-major); none when a range is 0, one (the empty
/// point) when there are no ranges.
fn for_each_point(
    ranges: &[usize],
    mut f: impl FnMut(&[i64], usize) -> Result<(), BackendError>,
) -> Result<(), BackendError> {
    if ranges.contains(&0) {
        return Ok(());
    }
    let mut point = vec![0i64; ranges.len()];
    let mut pos = 0usize;
    loop {
        f(&point, pos)?;
        pos += 1;
        let mut d = ranges.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            point[d] += 1;
            if (point[d] as usize) < ranges[d] {
                break;
            }
            point[d] = 0;
        }
    }
}

/// The value of an index variable: an outer or reduction variable at the point
/// `(outer, inner)`, or an indirect index's value.
fn point(v: Var, n: usize, outer: &[i64], inner: &[i64], vals: &[Scalar]) -> i64 {
    let i = v.n as usize;
    if v.indirect_node().is_some() {
        vals[i].as_i64()
    } else if i < n {
        outer[i]
    } else {
        inner.get(i - n).copied().unwrap_or(0)
    }
}

/// Runs `kernel` on `args` (one byte buffer per kernel argument, in argument order, each
/// holding at least `len` elements of the argument's dtype), with the IR's semantics: for every
/// outer point, the stages in order; a reduction stage loops over every reduction point and
/// then finishes its accumulators. Out-of-range accesses are errors naming the kernel.
pub fn eval_kernel(kernel: &Kernel, args: &mut [Vec<u8>]) -> Result<(), BackendError> {
    if args.len() != kernel.args.len() {
        return Err(runtime(format!(
            "{} takes {} arguments, got {}",
            kernel.name,
            kernel.args.len(),
            args.len()
        )));
    }
    let n = kernel.ranges.len();
    let mut vals: Vec<Scalar> = vec![Scalar::B(false); kernel.values.len()];
    for_each_point(&kernel.ranges, |outer, _| {
        let mut finished: HashMap<u32, Scalar> = HashMap::new();
        for stage in &kernel.stages {
            let inner: &[usize] = match stage.kind {
                StageKind::Reduction => &kernel.reduction_ranges,
                StageKind::Outer => &[],
            };
            let mut accs: Vec<Acc> = stage
                .accumulators
                .iter()
                .map(|a| Acc::new(a.reduction_type))
                .collect();
            // Each scan's running value, from the start of the row.
            let mut scans: HashMap<ValueId, Acc> = HashMap::new();
            for_each_point(inner, |r, pos| {
                for &v in &stage.values {
                    let dtype = kernel.dtype(v);
                    let get = |x: ValueId| vals[x.0 as usize];
                    let var = |x: Var| point(x, n, outer, r, &vals);
                    let val = match kernel.expr(v) {
                        KExpr::Load { arg, index, mask } => {
                            if mask.is_some_and(|m| get(m).as_f64() == 0.0) {
                                Scalar::zero(dtype)
                            } else {
                                let a = kernel.arg(*arg);
                                let what =
                                    || format!("{} ({v}: load {arg} {})", kernel.name, a.name);
                                read(&args[arg.0 as usize], a.dtype, index.eval(&var), &what)?
                                    .cast(dtype)
                            }
                        }
                        KExpr::Const(c) => match c {
                            Const::Float(x) => Scalar::F(*x),
                            Const::Int(i) => Scalar::I(*i),
                            Const::Bool(b) => Scalar::B(*b),
                        }
                        .cast(dtype),
                        KExpr::Index(i) => Scalar::I(i.eval(&var)).cast(dtype),
                        KExpr::Acc(a) => finished
                            .get(&a.0)
                            .ok_or_else(|| {
                                runtime(format!("{}: {a} read before it is finished", kernel.name))
                            })?
                            .cast(dtype),
                        KExpr::Cast(x) => get(*x).cast(dtype),
                        KExpr::Bitcast(x) => {
                            crate::scalar::bitcast(get(*x), kernel.dtype(*x), dtype)
                        }
                        KExpr::Unary(op, a) => {
                            eval_unary(*op, get(*a), dtype).map_err(|e| runtime(e.to_string()))?
                        }
                        KExpr::Binary(op, a, b) => eval_binary(*op, get(*a), get(*b), dtype)
                            .map_err(|e| runtime(e.to_string()))?,
                        KExpr::Where(c, a, b) => {
                            if get(*c).as_f64() != 0.0 {
                                get(*a)
                            } else {
                                get(*b)
                            }
                        }
                        KExpr::Scan { scan_type, value } => {
                            let acc = scans.entry(v).or_insert_with(|| Acc::new(*scan_type));
                            acc.combine(*scan_type, get(*value), 0);
                            acc.clone().finish(dtype)
                        }
                        KExpr::IndirectIndex {
                            value,
                            size,
                            wrap_negative,
                            flags,
                            check,
                        } => {
                            let raw = get(*value).as_i64();
                            match crate::resolve_indirect(raw, *size, *wrap_negative) {
                                Some(i) => Scalar::I(i),
                                None => {
                                    let f = &mut args[flags.0 as usize];
                                    let what = || format!("{} ({v}: index check)", kernel.name);
                                    let at = 2 * *check as i64;
                                    write(f, DType::I64, at, Scalar::I(1), &what)?;
                                    write(f, DType::I64, at + 1, Scalar::I(raw), &what)?;
                                    Scalar::I(0)
                                }
                            }
                        }
                    };
                    vals[v.0 as usize] = val;
                }
                for (acc, a) in accs.iter_mut().zip(&stage.accumulators) {
                    acc.combine(a.reduction_type, vals[a.value.0 as usize], pos as i64);
                }
                let var = |x: Var| point(x, n, outer, r, &vals);
                for s in &stage.stores {
                    let a = kernel.arg(s.arg);
                    let what = || format!("{} (store {} {})", kernel.name, s.arg, a.name);
                    let at = s.index.eval(&var);
                    let mut v = vals[s.value.0 as usize];
                    if s.mode == StoreMode::AtomicAdd {
                        let old = read(&args[s.arg.0 as usize], a.dtype, at, &what)?;
                        v = eval_binary(crate::Op::Add, old, v.cast(a.dtype), a.dtype)
                            .map_err(|e| runtime(format!("{}: {e}", what())))?;
                    }
                    write(&mut args[s.arg.0 as usize], a.dtype, at, v, &what)?;
                }
                Ok(())
            })?;
            for (acc, a) in accs.into_iter().zip(&stage.accumulators) {
                finished.insert(a.id.0, acc.finish(a.dtype));
            }
        }
        Ok(())
    })
}

/// Host memory behind handles, shared by [`InterpBackend`] and its compiled kernels.
type Memory = Arc<Mutex<HashMap<u64, Vec<u8>>>>;

/// Runs an extern call on `memory` (the reference semantics of each [`ExternKind`]).
fn eval_extern(memory: &mut HashMap<u64, Vec<u8>>, call: &ExternCall) -> Result<(), BackendError> {
    match &call.kind {
        ExternKind::Matmul(op) | ExternKind::FusedMatmul(op, _) => eval_matmul(memory, call, *op),
        ExternKind::Convolution(_)
        | ExternKind::ConvolutionBackward(..)
        | ExternKind::Fallback(_) => Err(runtime(format!(
            "{} is not run by this backend (host fallbacks are the facade's)",
            call.kind.kernel_name()
        ))),
    }
}

fn eval_matmul(
    memory: &mut HashMap<u64, Vec<u8>>,
    call: &ExternCall,
    op: MatmulOp,
) -> Result<(), BackendError> {
    let (a, b) = call.matmul_operands()?;
    let get = |m: &HashMap<u64, Vec<u8>>, o: &StridedOperand| {
        m.get(&o.buffer.0)
            .cloned()
            .ok_or_else(|| runtime(format!("no buffer {}", o.buffer)))
    };
    let (abytes, bbytes) = (get(memory, a)?, get(memory, b)?);
    let bias = call
        .matmul_bias()
        .map(|x| get(memory, x).map(|bytes| (x, bytes)))
        .transpose()?;
    let post = call
        .post_ops()
        .into_iter()
        .map(|(p, o)| {
            o.map(|o| get(memory, o).map(|bytes| (o, bytes)))
                .transpose()
                .map(|o| (p, o))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let batched = op == MatmulOp::Bmm;
    let rank = if batched { 3 } else { 2 };
    let post_operands = post.iter().filter_map(|(_, o)| o.as_ref().map(|(o, _)| *o));
    for o in [a, b, &call.out].into_iter().chain(post_operands) {
        if o.sizes.len() != rank || o.strides.len() != rank {
            return Err(runtime(format!(
                "{}: operand of rank {} (sizes {:?})",
                call.kind.kernel_name(),
                o.sizes.len(),
                o.sizes
            )));
        }
    }
    let (batch, m, k, n) = if batched {
        (a.sizes[0], a.sizes[1], a.sizes[2], b.sizes[2])
    } else {
        (1, a.sizes[0], a.sizes[1], b.sizes[1])
    };
    let at = |o: &StridedOperand, bb: usize, i: usize, j: usize| -> i64 {
        let s = &o.strides;
        let (sb, si, sj) = if batched {
            (s[0], s[1], s[2])
        } else {
            (0, s[0], s[1])
        };
        (o.offset + bb * sb + i * si + j * sj) as i64
    };
    let out = memory
        .get_mut(&call.out.buffer.0)
        .ok_or_else(|| runtime(format!("no buffer {}", call.out.buffer)))?;
    let what = || call.kind.kernel_name().to_string();
    for bb in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut acc = match &bias {
                    Some((x, bytes)) => read(bytes, x.dtype, at(x, bb, i, j), &what)?.as_f64(),
                    None => 0.0f64,
                };
                for p in 0..k {
                    acc += read(&abytes, a.dtype, at(a, bb, i, p), &what)?.as_f64()
                        * read(&bbytes, b.dtype, at(b, bb, p, j), &what)?.as_f64();
                }
                // A fused matmul's post-ops, in f32 as the libraries apply them.
                if !post.is_empty() {
                    acc = acc as f32 as f64;
                }
                for (p, operand) in &post {
                    let x = match operand {
                        Some((o, bytes)) => read(bytes, o.dtype, at(o, bb, i, j), &what)?.as_f64(),
                        None => 0.0,
                    };
                    acc = p.apply(acc, x) as f32 as f64;
                }
                write(
                    out,
                    call.out.dtype,
                    at(&call.out, bb, i, j),
                    Scalar::F(acc),
                    &what,
                )?;
            }
        }
    }
    Ok(())
}

/// A complete backend that interprets the kernel IR ([`eval_kernel`]) on host memory: the
/// CPU's realize and loop rules, kernels named `interp_...`, library matmuls with or without
/// post-ops (the reference for fused matmuls). New memory is filled with `0xff`
/// bytes (NaN for floats, -1 for integers), not zeroed: the contract promises no zeroing, and
/// a plan that read memory before writing it would show here.
#[derive(Default)]
pub struct InterpBackend {
    memory: Memory,
    next: Mutex<u64>,
}

impl InterpBackend {
    /// A backend with no memory allocated.
    pub fn new() -> InterpBackend {
        InterpBackend::default()
    }
}

struct Interpreted {
    kernels: Vec<Kernel>,
    memory: Memory,
}

fn poisoned<T>(_: T) -> BackendError {
    runtime("the interpreter's memory lock is poisoned (a run panicked)")
}

impl CompiledKernels for Interpreted {
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        let k = self
            .kernels
            .get(index)
            .ok_or_else(|| runtime(format!("no kernel {index}")))?;
        let mut mem = self.memory.lock().map_err(poisoned)?;
        let mut bufs: Vec<Vec<u8>> = args
            .iter()
            .map(|h| {
                mem.get(&h.0)
                    .cloned()
                    .ok_or_else(|| runtime(format!("no buffer {h}")))
            })
            .collect::<Result<_, _>>()?;
        eval_kernel(k, &mut bufs)?;
        for (h, b) in args.iter().zip(bufs) {
            mem.insert(h.0, b);
        }
        Ok(())
    }

    fn source(&self) -> String {
        self.kernels
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn source_file_name(&self) -> &'static str {
        "output_code.txt"
    }
}

impl Backend for InterpBackend {
    /// The CPU's rules; library matmuls (naive, in f64).
    fn target(&self) -> Target {
        let mut t = Target::new("interp", "host (kernel IR interpreter)", Device::Cpu);
        t.caps.matmul = vec![DType::F32, DType::F64, DType::F16, DType::BF16];
        t
    }
}

impl Compiler for InterpBackend {
    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        Ok(Box::new(Interpreted {
            kernels: kernels.to_vec(),
            memory: Arc::clone(&self.memory),
        }))
    }
}

impl Runtime for InterpBackend {
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let mut next = self.next.lock().map_err(poisoned)?;
        *next += 1;
        let mut buf = Vec::new();
        buf.try_reserve_exact(bytes)
            .map_err(|_| runtime(format!("cannot allocate {bytes} bytes")))?;
        buf.resize(bytes, 0xff);
        self.memory.lock().map_err(poisoned)?.insert(*next, buf);
        Ok(BufferHandle(*next))
    }

    fn free(&self, buffer: BufferHandle) {
        if let Ok(mut m) = self.memory.lock() {
            m.remove(&buffer.0);
        }
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut m = self.memory.lock().map_err(poisoned)?;
        let b = m
            .get_mut(&buffer.0)
            .ok_or_else(|| runtime(format!("no buffer {buffer}")))?;
        b.get_mut(..bytes.len())
            .ok_or_else(|| runtime(format!("{} bytes do not fit {buffer}", bytes.len())))?
            .copy_from_slice(bytes);
        Ok(())
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let m = self.memory.lock().map_err(poisoned)?;
        let b = m
            .get(&buffer.0)
            .ok_or_else(|| runtime(format!("no buffer {buffer}")))?;
        let src = b
            .get(..out.len())
            .ok_or_else(|| runtime(format!("{buffer} holds fewer than {} bytes", out.len())))?;
        out.copy_from_slice(src);
        Ok(())
    }

    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError> {
        let mut m = self.memory.lock().map_err(poisoned)?;
        eval_extern(&mut m, call)
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        Ok(())
    }
}
