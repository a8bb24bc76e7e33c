//! A minimal execution driver over any `dyn Backend`, standing in for the facade in tests and
//! the GPU example: the lowering's buffers in creation order, runs of consecutive computed
//! buffers fused into one kernel where the kernel builder accepts them (and the result is not
//! a one-row looped reduction, which would run on one block), the rest one kernel per buffer, matmuls as library calls; one
//! allocation per buffer.

use std::collections::HashMap;

use coil_codegen::{
    Backend, BufferHandle, BuildOptions, ExternCall, Kernel, StridedOperand, build_kernel,
};
use coil_graph::Tensor;
use coil_lower::{BufRef, BufferId, BufferKind, FixedLayout, LoweredGraph};

/// One step of a program.
#[derive(Clone, Debug)]
#[allow(clippy::large_enum_variant)] // A test driver: steps are few and built once.
pub(crate) enum Step {
    /// Kernel `index` with these buffers (by name), in its argument order.
    Kernel(usize, Vec<String>),
    /// A matmul writing `out` from the operands (name, layout).
    Matmul(Box<MatmulStep>),
}

/// A matmul's operands and result (name, layout).
#[derive(Clone, Debug)]
pub(crate) struct MatmulStep {
    op: coil_lower::MatmulOp,
    a: (String, FixedLayout),
    b: (String, FixedLayout),
    out: (String, FixedLayout),
}

/// Kernels and the steps that run them.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub(crate) kernels: Vec<Kernel>,
    pub(crate) steps: Vec<Step>,
}

fn outputs_of(l: &LoweredGraph) -> Vec<BufRef> {
    l.outputs().iter().map(|o| o.buffer).collect()
}

/// Whether a buffer is read by a buffer outside `group` or returned.
fn needed_outside(l: &LoweredGraph, group: &[BufferId], b: BufferId) -> bool {
    if outputs_of(l).contains(&BufRef::Buffer(b)) {
        return true;
    }
    l.buffers()
        .iter()
        .filter(|o| !group.contains(&o.id))
        .any(|o| match &o.kind {
            BufferKind::Computed(c) => c
                .body
                .loads()
                .into_iter()
                .any(|(_, buf, _)| buf == BufRef::Buffer(b)),
            BufferKind::Extern(e) => e.inputs.iter().any(|i| i.buffer == BufRef::Buffer(b)),
        })
}

/// Builds the program: `fuse` runs of consecutive computed buffers where possible.
pub(crate) fn program(l: &LoweredGraph, fuse: bool, sm_count: u32) -> Program {
    let mut kernels = Vec::new();
    let mut steps = Vec::new();
    let mut run: Vec<BufferId> = Vec::new();
    let opts = BuildOptions::default();
    let caps = coil_cuda::GpuCaps {
        sm_count,
        ..coil_cuda::GpuCaps::h200()
    };
    let flush = |run: &mut Vec<BufferId>, kernels: &mut Vec<Kernel>, steps: &mut Vec<Step>| {
        if run.is_empty() {
            return;
        }
        let group = std::mem::take(run);
        let fused = (fuse && group.len() > 1)
            .then(|| {
                let needed = |b: BufferId| needed_outside(l, &group, b);
                let name = format!("k{}_fused", kernels.len());
                build_kernel(l, &group, &needed, &name, &opts).ok()
            })
            .flatten()
            .filter(|k| {
                !matches!(
                    coil_cuda::render::plan_kernel(k, &caps).strategy,
                    coil_cuda::render::Strategy::Looped { .. }
                ) || k.numel() > 1
            });
        let ks: Vec<Kernel> = match fused {
            Some(k) => vec![k],
            None => group
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    let name = format!("k{}_{b}", kernels.len() + i);
                    build_kernel(l, &[b], &|_| true, &name, &opts).expect("a single buffer builds")
                })
                .collect(),
        };
        for k in ks {
            steps.push(Step::Kernel(
                kernels.len(),
                k.args.iter().map(|a| a.name.clone()).collect(),
            ));
            kernels.push(k);
        }
    };
    for b in l.buffers() {
        match &b.kind {
            BufferKind::Computed(_) => run.push(b.id),
            BufferKind::Extern(e) => {
                flush(&mut run, &mut kernels, &mut steps);
                let [a, bb] = e.inputs.as_slice() else {
                    panic!("a matmul takes two operands");
                };
                let coil_lower::ExternKind::Matmul(op) = e.kind;
                steps.push(Step::Matmul(Box::new(MatmulStep {
                    op,
                    a: (l.name(a.buffer), a.layout.clone()),
                    b: (l.name(bb.buffer), bb.layout.clone()),
                    out: (l.name(BufRef::Buffer(b.id)), b.layout.clone()),
                })));
            }
        }
    }
    flush(&mut run, &mut kernels, &mut steps);
    Program { kernels, steps }
}

/// Allocated buffers of a program run: name -> (handle, bytes).
pub(crate) struct Buffers(pub(crate) HashMap<String, (BufferHandle, usize)>);

/// Allocates every input and buffer of `l` and writes `inputs`.
pub(crate) fn setup(
    backend: &dyn Backend,
    l: &LoweredGraph,
    inputs: &[Tensor],
) -> Result<Buffers, String> {
    let mut map = HashMap::new();
    for (ib, t) in l.inputs().iter().zip(inputs) {
        let bytes = t.contiguous().to_bytes();
        let h = backend
            .alloc(bytes.len().max(4))
            .map_err(|e| e.to_string())?;
        backend.write(h, &bytes).map_err(|e| e.to_string())?;
        map.insert(ib.name.clone(), (h, bytes.len()));
    }
    for b in l.buffers() {
        let bytes = b.layout.storage_len() * b.layout.dtype.itemsize();
        let h = backend.alloc(bytes.max(4)).map_err(|e| e.to_string())?;
        map.insert(l.name(BufRef::Buffer(b.id)), (h, bytes));
    }
    Ok(Buffers(map))
}

fn operand(
    bufs: &Buffers,
    (name, layout): &(String, FixedLayout),
) -> Result<StridedOperand, String> {
    let (h, _) = bufs
        .0
        .get(name)
        .ok_or_else(|| format!("no buffer {name}"))?;
    Ok(StridedOperand {
        buffer: *h,
        dtype: layout.dtype,
        sizes: layout.sizes.clone(),
        strides: layout.strides.clone(),
        offset: layout.offset,
    })
}

/// Runs the steps (no synchronisation).
pub(crate) fn execute(
    backend: &dyn Backend,
    compiled: &dyn coil_codegen::CompiledKernels,
    program: &Program,
    bufs: &Buffers,
) -> Result<(), String> {
    for step in &program.steps {
        match step {
            Step::Kernel(i, names) => {
                let handles: Vec<BufferHandle> = names
                    .iter()
                    .map(|n| {
                        bufs.0
                            .get(n)
                            .map(|(h, _)| *h)
                            .ok_or_else(|| format!("no buffer {n}"))
                    })
                    .collect::<Result<_, _>>()?;
                compiled.launch(*i, &handles).map_err(|e| e.to_string())?;
            }
            Step::Matmul(m) => {
                let call = ExternCall {
                    kind: coil_codegen::ExternKind::Matmul(m.op),
                    inputs: vec![operand(bufs, &m.a)?, operand(bufs, &m.b)?],
                    out: operand(bufs, &m.out)?,
                };
                backend.extern_call(&call).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// Reads the graph's outputs.
pub(crate) fn outputs(
    backend: &dyn Backend,
    l: &LoweredGraph,
    bufs: &Buffers,
) -> Result<Vec<Tensor>, String> {
    l.outputs()
        .iter()
        .map(|o| {
            let name = l.name(o.buffer);
            let (h, bytes) = bufs
                .0
                .get(&name)
                .ok_or_else(|| format!("no buffer {name}"))?;
            let mut raw = vec![0u8; *bytes];
            backend.read(*h, &mut raw).map_err(|e| e.to_string())?;
            let storage_len = bytes / o.layout.dtype.itemsize();
            let t = Tensor::from_bytes(o.layout.dtype, vec![storage_len], &raw)
                .map_err(|e| e.to_string())?;
            let v = t
                .view(
                    o.layout.sizes.clone(),
                    o.layout.strides.clone(),
                    o.layout.offset,
                )
                .map_err(|e| e.to_string())?;
            Ok(v.contiguous())
        })
        .collect()
}

/// Compiles and runs `l` on `inputs` once; the outputs.
pub(crate) fn run(
    backend: &dyn Backend,
    l: &LoweredGraph,
    inputs: &[Tensor],
    fuse: bool,
) -> Result<Vec<Tensor>, String> {
    let p = program(l, fuse, 132);
    let compiled = backend.compile(&p.kernels).map_err(|e| e.to_string())?;
    let bufs = setup(backend, l, inputs)?;
    execute(backend, compiled.as_ref(), &p, &bufs)?;
    backend.synchronize().map_err(|e| e.to_string())?;
    let out = outputs(backend, l, &bufs)?;
    for (h, _) in bufs.0.values() {
        backend.free(*h);
    }
    Ok(out)
}

/// Largest absolute and relative differences (NaNs must match; infinities must be equal).
pub(crate) fn compare(got: &Tensor, want: &Tensor) -> Result<(f64, f64), String> {
    if got.sizes() != want.sizes() {
        return Err(format!("sizes {:?} vs {:?}", got.sizes(), want.sizes()));
    }
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    let mut abs = 0f64;
    let mut rel = 0f64;
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        if a.is_nan() || b.is_nan() {
            if a.is_nan() != b.is_nan() {
                return Err(format!("element {i}: {a} vs {b}"));
            }
            continue;
        }
        if a.is_infinite() || b.is_infinite() {
            if a != b {
                return Err(format!("element {i}: {a} vs {b}"));
            }
            continue;
        }
        let d = (a - b).abs();
        abs = abs.max(d);
        rel = rel.max(d / b.abs().max(1e-6));
    }
    Ok((abs, rel))
}
