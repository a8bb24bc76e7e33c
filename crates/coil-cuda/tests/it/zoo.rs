//! The zoo's kernels for the translator's tests: every model lowered with the GPU realize
//! rules, each computed buffer as its own kernel and, where the kernel builder accepts it,
//! every buffer fused into one kernel (what the coil-codegen golden tests do).

use coil_codegen::{BuildOptions, Kernel, build_kernel};
use coil_lower::{BufRef, BufferId, LowerConfig, LoweredGraph};
use coil_models::Size;

/// A model's graph at `size`, through the passes, lowered for the GPU.
pub(crate) fn lowered(name: &str, size: Size) -> Option<LoweredGraph> {
    let g = coil_models::find(name)?.graph(size).ok()?;
    let (g, _) = coil_passes::run_passes(&g, &coil_passes::PassConfig::default()).ok()?;
    coil_lower::lower(&g, &LowerConfig::gpu()).ok()
}

/// Every buffer in one kernel (the outputs stored), if the builder accepts the group.
pub(crate) fn fused(l: &LoweredGraph, name: &str) -> Option<Kernel> {
    let members: Vec<BufferId> = l
        .buffers()
        .iter()
        .filter(|b| b.computed().is_some())
        .map(|b| b.id)
        .collect();
    let outputs: Vec<BufRef> = l.outputs().iter().map(|o| o.buffer).collect();
    let needed = |b: BufferId| outputs.contains(&BufRef::Buffer(b));
    build_kernel(l, &members, &needed, name, &BuildOptions::default()).ok()
}

/// One kernel per computed buffer, each storing its buffer.
pub(crate) fn per_buffer(l: &LoweredGraph) -> Vec<Kernel> {
    l.buffers()
        .iter()
        .filter(|b| b.computed().is_some())
        .enumerate()
        .map(|(i, b)| {
            build_kernel(
                l,
                &[b.id],
                &|_| true,
                &format!("k{i}_{}", b.id),
                &BuildOptions::default(),
            )
            .expect("a single buffer always builds")
        })
        .collect()
}

/// `(label, kernels)` for every model at `size`: the per-buffer kernels plus the fused one.
pub(crate) fn zoo_kernels(size: Size) -> Vec<(String, Vec<Kernel>)> {
    let mut out = Vec::new();
    for m in coil_models::MODELS {
        let Some(l) = lowered(m.name, size) else {
            continue;
        };
        let mut ks = per_buffer(&l);
        if let Some(f) = fused(&l, "fused") {
            ks.push(f);
        }
        out.push((format!("{}_{size:?}", m.name), ks));
    }
    out
}
