//! A tiny execution driver for the backend tests: lowers a graph, turns chosen groups of its
//! buffers into kernels (`coil_codegen::build_kernel`), compiles them with `CpuBackend`, and runs
//! them in order on backend memory (extern matmuls through `Backend::matmul`), then reads the
//! outputs back with their strided layouts. The scheduler and the facade do this for real.

use std::collections::{HashMap, HashSet};

use coil_codegen::{
    Backend, BufferHandle, BuildOptions, CompiledKernels, ExternCall, StridedOperand, build_kernel,
};
use coil_cpu::CpuBackend;
use coil_graph::{DType, Data, Graph, Tensor};
use coil_lower::{BufRef, BufferId, BufferKind, FixedLayout, LowerConfig, LoweredGraph};
use half::{bf16, f16};

/// The graph after coil-passes, lowered with the CPU rules.
pub(crate) fn lower(g: &Graph) -> LoweredGraph {
    let (g, _) = coil_passes::run_passes(g, &coil_passes::PassConfig::default())
        .unwrap_or_else(|e| panic!("passes: {e}\n{g}"));
    coil_lower::lower(&g, &LowerConfig::cpu()).unwrap_or_else(|e| panic!("lowering: {e}\n{g}"))
}

/// One buffer per kernel (extern buffers alone, as always).
pub(crate) fn per_buffer(l: &LoweredGraph) -> Vec<Vec<BufferId>> {
    l.buffers().iter().map(|b| vec![b.id]).collect()
}

/// Every buffer in one kernel.
pub(crate) fn all_in_one(l: &LoweredGraph) -> Vec<Vec<BufferId>> {
    vec![l.buffers().iter().map(|b| b.id).collect()]
}

/// The buffers `b`'s computation reads.
fn reads_of(l: &LoweredGraph, b: BufferId) -> Vec<BufRef> {
    match &l.buffer(b).kind {
        BufferKind::Computed(c) => c.body.loads().map(|(_, buf, _)| buf).collect(),
        BufferKind::Extern(e) => e.inputs.iter().map(|i| i.buffer).collect(),
    }
}

pub(crate) fn to_bytes(t: &Tensor) -> Vec<u8> {
    let t = t.contiguous();
    let offs = t.offsets();
    let mut out = Vec::new();
    match &**t.storage() {
        Data::Bool(v) => offs.iter().for_each(|&o| out.push(v[o] as u8)),
        Data::I32(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
        Data::I64(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
        Data::F16(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
        Data::BF16(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
        Data::F32(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
        Data::F64(v) => offs.iter().for_each(|&o| out.extend(v[o].to_le_bytes())),
    }
    out
}

pub(crate) fn from_bytes(dtype: DType, bytes: &[u8]) -> Data {
    fn chunks<const N: usize, T>(b: &[u8], f: impl Fn([u8; N]) -> T) -> Vec<T> {
        b.chunks_exact(N)
            .map(|c| f(c.try_into().expect("N bytes")))
            .collect()
    }
    match dtype {
        DType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
        DType::I32 => Data::I32(chunks(bytes, i32::from_le_bytes)),
        DType::I64 => Data::I64(chunks(bytes, i64::from_le_bytes)),
        DType::F16 => Data::F16(chunks(bytes, f16::from_le_bytes)),
        DType::BF16 => Data::BF16(chunks(bytes, bf16::from_le_bytes)),
        DType::F32 => Data::F32(chunks(bytes, f32::from_le_bytes)),
        DType::F64 => Data::F64(chunks(bytes, f64::from_le_bytes)),
    }
}

fn storage_bytes(layout: &FixedLayout) -> usize {
    layout.storage_len() * layout.dtype.itemsize()
}

/// The result of a run.
pub(crate) struct Run {
    /// The graph outputs, contiguous.
    pub(crate) outputs: Vec<Tensor>,
    /// The optimised LLVM IR of the modules, linked into one text.
    pub(crate) source: String,
    /// Kernels compiled.
    pub(crate) kernels: usize,
    /// LLVM modules they were compiled in (one per compiling thread).
    pub(crate) modules: usize,
}

/// Builds, compiles and runs `groups` (in order) on `inputs`.
pub(crate) fn run(
    backend: &CpuBackend,
    l: &LoweredGraph,
    groups: &[Vec<BufferId>],
    inputs: &[Tensor],
) -> Result<Run, String> {
    let outputs: HashSet<BufRef> = l.outputs().iter().map(|o| o.buffer).collect();
    let group_of: HashMap<BufferId, usize> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.iter().map(move |&b| (b, i)))
        .collect();
    let mut read_outside: HashSet<BufferId> = HashSet::new();
    for b in l.buffers() {
        for r in reads_of(l, b.id) {
            if let BufRef::Buffer(src) = r
                && group_of.get(&src) != group_of.get(&b.id)
            {
                read_outside.insert(src);
            }
        }
    }
    // Steps: Ok(kernel index) or Err(extern buffer).
    let mut kernels = Vec::new();
    let mut steps: Vec<Result<usize, BufferId>> = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        if let [b] = g.as_slice()
            && matches!(l.buffer(*b).kind, BufferKind::Extern(_))
        {
            steps.push(Err(*b));
            continue;
        }
        let needed =
            |b: BufferId| outputs.contains(&BufRef::Buffer(b)) || read_outside.contains(&b);
        let names: Vec<String> = g.iter().map(|b| b.to_string()).collect();
        let name = format!("k{i}_{}", names.join("_"));
        let k = build_kernel(l, g, &needed, &name, &BuildOptions::default())
            .map_err(|e| format!("build: {e}"))?;
        steps.push(Ok(kernels.len()));
        kernels.push(k);
    }
    let compiled = backend
        .compile_kernels(&kernels)
        .map_err(|e| e.to_string())?;
    let mut handles: HashMap<BufRef, BufferHandle> = HashMap::new();
    for (i, ib) in l.inputs().iter().enumerate() {
        let h = backend
            .alloc(storage_bytes(&ib.layout))
            .map_err(|e| e.to_string())?;
        let t = &inputs[i];
        if t.dtype() != ib.layout.dtype || t.sizes() != ib.layout.sizes.as_slice() {
            return Err(format!("input {i} does not match {}", ib.name));
        }
        backend.write(h, &to_bytes(t)).map_err(|e| e.to_string())?;
        handles.insert(l.find(&ib.name).expect("input by name"), h);
    }
    for b in l.buffers() {
        let h = backend
            .alloc(storage_bytes(&b.layout))
            .map_err(|e| e.to_string())?;
        handles.insert(BufRef::Buffer(b.id), h);
    }
    let operand = |buf: BufRef, layout: &FixedLayout| StridedOperand {
        buffer: handles[&buf],
        dtype: layout.dtype,
        sizes: layout.sizes.clone(),
        strides: layout.strides.clone(),
        offset: layout.offset,
    };
    for step in &steps {
        match *step {
            Ok(ki) => {
                let args: Vec<BufferHandle> = kernels[ki]
                    .args
                    .iter()
                    .map(|a| handles[&l.find(&a.name).expect("argument by name")])
                    .collect();
                compiled.launch(ki, &args).map_err(|e| e.to_string())?;
            }
            Err(b) => {
                let BufferKind::Extern(e) = &l.buffer(b).kind else {
                    unreachable!("extern steps hold extern buffers")
                };
                let call = ExternCall {
                    kind: e.kind.clone(),
                    inputs: e
                        .inputs
                        .iter()
                        .map(|i| operand(i.buffer, &i.layout))
                        .collect(),
                    out: operand(BufRef::Buffer(b), &l.buffer(b).layout),
                };
                backend.extern_call(&call).map_err(|e| e.to_string())?;
            }
        }
    }
    backend.synchronize().map_err(|e| e.to_string())?;
    let mut outs = Vec::new();
    for o in l.outputs() {
        let own = l.layout(o.buffer);
        let mut bytes = vec![0u8; storage_bytes(own)];
        backend
            .read(handles[&o.buffer], &mut bytes)
            .map_err(|e| e.to_string())?;
        let data = from_bytes(own.dtype, &bytes);
        let n = data.len();
        let flat = Tensor::new(data, vec![n]).map_err(|e| e.to_string())?;
        let view = flat
            .view(
                o.layout.sizes.clone(),
                o.layout.strides.clone(),
                o.layout.offset,
            )
            .map_err(|e| e.to_string())?;
        outs.push(view.contiguous());
    }
    for h in handles.values() {
        backend.free(*h);
    }
    Ok(Run {
        outputs: outs,
        source: compiled.source(),
        kernels: kernels.len(),
        modules: compiled.modules().len(),
    })
}

/// The backend every test shares (2 threads is the machine; 3 makes chunking uneven).
pub(crate) fn backend() -> &'static CpuBackend {
    static B: std::sync::OnceLock<CpuBackend> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 3,
            ..Default::default()
        })
        .expect("cpu backend")
    })
}

/// A backend that streams every aligned vector store past the caches (non-temporal), so the
/// tiny models exercise what only huge buffers get by default.
pub(crate) fn streaming_backend() -> &'static CpuBackend {
    static B: std::sync::OnceLock<CpuBackend> = std::sync::OnceLock::new();
    B.get_or_init(|| {
        CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 2,
            codegen: coil_cpu::CodegenOptions {
                streaming_store_min_bytes: Some(0),
                ..Default::default()
            },
            ..Default::default()
        })
        .expect("cpu backend")
    })
}

/// What coil-eager computes.
pub(crate) fn eager(g: &Graph, inputs: &[Tensor]) -> Vec<Tensor> {
    coil_eager::run(g, inputs)
        .unwrap_or_else(|e| panic!("eager: {e}\n{g}"))
        .outputs
}
