//! A backend that interprets the kernel IR element by element: host memory behind handles,
//! kernels evaluated with the lowering's reference semantics, naive matmuls.

use std::collections::HashMap;
use std::sync::Mutex;

use coil_codegen::{
    Backend, BackendError, BufferHandle, BuildOptions, CompiledKernels, KExpr, Kernel, MatmulCall,
    StageKind,
};
use coil_graph::DType;
use coil_lower::{Acc, Const, LowerConfig, Scalar, Var, eval_binary, eval_unary};
use half::{bf16, f16};

/// Host memory and a kernel interpreter.
#[derive(Default)]
pub(crate) struct InterpBackend {
    memory: Mutex<HashMap<u64, Vec<u8>>>,
    next: Mutex<u64>,
}

struct Interpreted {
    kernels: Vec<Kernel>,
    memory: *const Mutex<HashMap<u64, Vec<u8>>>,
}

// SAFETY: the pointer targets the backend's memory, which outlives the compiled kernels in
// these tests (the backend is kept in an Arc beside the model); access goes through the mutex.
unsafe impl Send for Interpreted {}
unsafe impl Sync for Interpreted {}

fn runtime(msg: impl Into<String>) -> BackendError {
    BackendError::Runtime(msg.into())
}

fn read(bytes: &[u8], dtype: DType, i: usize) -> Scalar {
    let at = |n: usize| &bytes[i * n..(i + 1) * n];
    match dtype {
        DType::F32 => Scalar::F(f32::from_le_bytes(at(4).try_into().unwrap()) as f64),
        DType::F64 => Scalar::F(f64::from_le_bytes(at(8).try_into().unwrap())),
        DType::F16 => Scalar::F(f16::from_le_bytes(at(2).try_into().unwrap()).to_f64()),
        DType::BF16 => Scalar::F(bf16::from_le_bytes(at(2).try_into().unwrap()).to_f64()),
        DType::I32 => Scalar::I(i32::from_le_bytes(at(4).try_into().unwrap()) as i64),
        DType::I64 => Scalar::I(i64::from_le_bytes(at(8).try_into().unwrap())),
        DType::Bool => Scalar::B(bytes[i] != 0),
    }
}

fn write(bytes: &mut [u8], dtype: DType, i: usize, v: Scalar) {
    let v = v.cast(dtype);
    let (n, b): (usize, Vec<u8>) = match (dtype, v) {
        (DType::F32, Scalar::F(x)) => (4, (x as f32).to_le_bytes().to_vec()),
        (DType::F64, Scalar::F(x)) => (8, x.to_le_bytes().to_vec()),
        (DType::F16, Scalar::F(x)) => (2, f16::from_f64(x).to_le_bytes().to_vec()),
        (DType::BF16, Scalar::F(x)) => (2, bf16::from_f64(x).to_le_bytes().to_vec()),
        (DType::I32, Scalar::I(x)) => (4, (x as i32).to_le_bytes().to_vec()),
        (DType::I64, Scalar::I(x)) => (8, x.to_le_bytes().to_vec()),
        (DType::Bool, Scalar::B(x)) => (1, vec![x as u8]),
        _ => unreachable!("cast gives the dtype's kind"),
    };
    bytes[i * n..(i + 1) * n].copy_from_slice(&b);
}

fn points(ranges: &[usize]) -> Vec<Vec<i64>> {
    let mut out = vec![vec![]];
    for &r in ranges {
        out = out
            .into_iter()
            .flat_map(|p| (0..r as i64).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

impl Interpreted {
    fn run(&self, k: &Kernel, args: &[BufferHandle]) -> Result<(), BackendError> {
        // SAFETY: see the Send/Sync note.
        let memory = unsafe { &*self.memory };
        let mut mem = memory.lock().map_err(|_| runtime("poisoned"))?;
        let mut bufs: Vec<Vec<u8>> = args
            .iter()
            .map(|h| mem.get(&h.0).cloned().ok_or_else(|| runtime("bad handle")))
            .collect::<Result<_, _>>()?;
        let n = k.ranges.len();
        for outer in points(&k.ranges) {
            let mut finished: HashMap<u32, Scalar> = HashMap::new();
            for stage in &k.stages {
                let inner = if stage.kind == StageKind::Reduction {
                    points(&k.reduction_ranges)
                } else {
                    vec![vec![]]
                };
                let mut accs: Vec<Acc> = stage
                    .accumulators
                    .iter()
                    .map(|a| Acc::new(a.reduction_type))
                    .collect();
                for (pos, r) in inner.iter().enumerate() {
                    let var = |v: Var| {
                        if (v.n as usize) < n {
                            outer[v.n as usize]
                        } else {
                            r[v.n as usize - n]
                        }
                    };
                    let mut vals: HashMap<u32, Scalar> = HashMap::new();
                    for &v in &stage.values {
                        let dtype = k.dtype(v);
                        let get = |x: coil_codegen::ValueId| vals[&x.0];
                        let val = match k.expr(v) {
                            KExpr::Load { arg, index, mask } => {
                                if mask.is_some_and(|m| get(m).as_f64() == 0.0) {
                                    Scalar::zero(dtype)
                                } else {
                                    let i = index.eval(&var);
                                    read(&bufs[arg.0 as usize], k.arg(*arg).dtype, i as usize)
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
                            KExpr::Acc(a) => finished[&a.0].cast(dtype),
                            KExpr::Cast(x) => get(*x).cast(dtype),
                            KExpr::Unary(op, a) => eval_unary(*op, get(*a), dtype)
                                .map_err(|e| runtime(e.to_string()))?,
                            KExpr::Binary(op, a, b) => eval_binary(*op, get(*a), get(*b), dtype)
                                .map_err(|e| runtime(e.to_string()))?,
                            KExpr::Where(c, a, b) => {
                                if get(*c).as_f64() != 0.0 {
                                    get(*a)
                                } else {
                                    get(*b)
                                }
                            }
                        };
                        vals.insert(v.0, val);
                    }
                    for (acc, a) in accs.iter_mut().zip(&stage.accumulators) {
                        acc.combine(a.reduction_type, vals[&a.value.0], pos as i64);
                    }
                    for s in &stage.stores {
                        let dtype = k.arg(s.arg).dtype;
                        write(
                            &mut bufs[s.arg.0 as usize],
                            dtype,
                            s.index.eval(&var) as usize,
                            vals[&s.value.0],
                        );
                    }
                }
                for (acc, a) in accs.into_iter().zip(&stage.accumulators) {
                    finished.insert(a.id.0, acc.finish(a.dtype));
                }
            }
        }
        for (h, b) in args.iter().zip(bufs) {
            mem.insert(h.0, b);
        }
        Ok(())
    }
}

impl CompiledKernels for Interpreted {
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        let k = self
            .kernels
            .get(index)
            .ok_or_else(|| runtime("no such kernel"))?;
        self.run(k, args)
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
    fn name(&self) -> &'static str {
        "interp"
    }

    fn device(&self) -> String {
        "host (kernel IR interpreter)".into()
    }

    fn lower_config(&self) -> LowerConfig {
        LowerConfig::cpu()
    }

    fn loop_compat(&self) -> &dyn coil_sched::LoopCompat {
        &coil_sched::CppLoops
    }

    fn sched_config(&self) -> coil_sched::SchedConfig {
        let mut c = coil_sched::SchedConfig::cpu();
        c.backend_name = "interp".into();
        c
    }

    fn build_options(&self) -> BuildOptions {
        BuildOptions::default()
    }

    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        Ok(Box::new(Interpreted {
            kernels: kernels.to_vec(),
            memory: &self.memory,
        }))
    }

    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let mut next = self.next.lock().map_err(|_| runtime("poisoned"))?;
        *next += 1;
        self.memory
            .lock()
            .map_err(|_| runtime("poisoned"))?
            .insert(*next, vec![0; bytes]);
        Ok(BufferHandle(*next))
    }

    fn free(&self, buffer: BufferHandle) {
        if let Ok(mut m) = self.memory.lock() {
            m.remove(&buffer.0);
        }
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut m = self.memory.lock().map_err(|_| runtime("poisoned"))?;
        let b = m.get_mut(&buffer.0).ok_or_else(|| runtime("bad handle"))?;
        b[..bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let m = self.memory.lock().map_err(|_| runtime("poisoned"))?;
        let b = m.get(&buffer.0).ok_or_else(|| runtime("bad handle"))?;
        let n = out.len();
        out.copy_from_slice(&b[..n]);
        Ok(())
    }

    fn matmul(&self, call: &MatmulCall) -> Result<(), BackendError> {
        let mut m = self.memory.lock().map_err(|_| runtime("poisoned"))?;
        let (a, b) = (m[&call.a.buffer.0].clone(), m[&call.b.buffer.0].clone());
        let out = m
            .get_mut(&call.out.buffer.0)
            .ok_or_else(|| runtime("bad handle"))?;
        let batched = call.a.sizes.len() == 3;
        let (batch, mm, kk, nn) = if batched {
            (
                call.a.sizes[0],
                call.a.sizes[1],
                call.a.sizes[2],
                call.b.sizes[2],
            )
        } else {
            (1, call.a.sizes[0], call.a.sizes[1], call.b.sizes[1])
        };
        let at = |op: &coil_codegen::StridedOperand, bb: usize, i: usize, j: usize| {
            let s = &op.strides;
            let (sb, si, sj) = if batched {
                (s[0], s[1], s[2])
            } else {
                (0, s[0], s[1])
            };
            op.offset + bb * sb + i * si + j * sj
        };
        for bb in 0..batch {
            for i in 0..mm {
                for j in 0..nn {
                    let mut acc = 0.0f64;
                    for p in 0..kk {
                        acc += read(&a, call.a.dtype, at(&call.a, bb, i, p)).as_f64()
                            * read(&b, call.b.dtype, at(&call.b, bb, p, j)).as_f64();
                    }
                    write(out, call.out.dtype, at(&call.out, bb, i, j), Scalar::F(acc));
                }
            }
        }
        Ok(())
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        Ok(())
    }
}
