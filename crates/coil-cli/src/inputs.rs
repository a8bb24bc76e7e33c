//! run-model's inputs: seeded random tensors for a graph, a graph and its saved tensors cast
//! to a 16-bit float dtype (`--dtype`), and a graph with symbolic sizes read for the sizes of
//! its saved inputs.

use std::collections::BTreeMap;

use coil_graph::{DType, Data, Graph, Tensor};
use rand::{Rng, SeedableRng};

/// The graph with its f32 values replaced by `dtype` (a 16-bit run of an f32 graph), and the
/// saved tensors cast to match: inputs to their new dtype; PyTorch's f32 outputs dropped
/// (the checks are then against eager in float64).
#[allow(clippy::type_complexity)]
pub(crate) fn in_dtype(
    graph: Graph,
    tensors: Option<(BTreeMap<String, Tensor>, String)>,
    dtype: Option<DType>,
) -> Result<(Graph, Option<(BTreeMap<String, Tensor>, String)>), String> {
    let Some(d) = dtype.filter(|&d| d != DType::F32) else {
        return Ok((graph, tensors));
    };
    let graph = graph
        .cast_to(DType::F32, d)
        .map_err(|e| format!("in {d}: {e}"))?;
    let tensors = tensors.map(|(t, source)| {
        let cast = t
            .into_iter()
            .filter(|(k, _)| !k.starts_with("output."))
            .map(|(k, v)| {
                let v = if v.dtype() == DType::F32 {
                    v.to_dtype(d)
                } else {
                    v
                };
                (k, v)
            })
            .collect();
        (cast, format!("{source}, cast to {d}"))
    });
    Ok((graph, tensors))
}

/// Inputs drawn from a fixed-seed generator: floats uniform in [-1, 1), ints in [0, 10), bools
/// fair coins.
pub(crate) fn random_inputs(graph: &Graph, seed: u64) -> Vec<Tensor> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    graph
        .inputs()
        .iter()
        .map(|&id| {
            let meta = graph.node(id).meta();
            let n = meta.numel();
            let data = match meta.dtype {
                DType::F32 => Data::F32((0..n).map(|_| rng.gen_range(-1.0f32..1.0)).collect()),
                DType::Bool => Data::Bool((0..n).map(|_| rng.r#gen::<bool>()).collect()),
                d if d.is_int() => Data::from_f64(d, (0..n).map(|_| rng.gen_range(0..10) as f64)),
                d => Data::from_f64(d, (0..n).map(|_| rng.gen_range(-1.0..1.0))),
            };
            Tensor::new(data, meta.sizes.clone()).expect("numel matches the meta")
        })
        .collect()
}

/// A graph file with symbolic sizes read for one binding of its symbols.
pub(crate) struct BoundGraph {
    /// The static graph of the binding.
    pub(crate) graph: Graph,
    /// The inputs file's tensors.
    pub(crate) tensors: BTreeMap<String, Tensor>,
    /// The symbols' values.
    pub(crate) bindings: coil_graph::Bindings,
    /// Where the tensors came from, with the binding.
    pub(crate) source: String,
}

/// A graph file with symbolic sizes read for the binding its `--inputs` give (each tensor
/// input's sizes bind the symbols of its annotation).
pub(crate) fn parse_symbolic(
    text: &str,
    file: &str,
    inputs: Option<&std::path::Path>,
) -> Result<BoundGraph, String> {
    let Some(path) = inputs else {
        return Err(format!(
            "{file} has symbolic sizes: give --inputs FILE.safetensors, whose tensors' sizes \
             bind them"
        ));
    };
    let t = Tensor::load_safetensors(path).map_err(|e| e.to_string())?;
    let names = coil_graph::tensor_inputs(text).map_err(|e| format!("{file}: {e}"))?;
    let sizes = names
        .iter()
        .map(|n| {
            t.get(&format!("input.{n}"))
                .map(|v| v.sizes().to_vec())
                .ok_or_else(|| format!("{}: no tensor input.{n}", path.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let b = coil_graph::bind_inputs(text, &sizes).map_err(|e| format!("{file}: {e}"))?;
    let graph = coil_graph::parse_bound(text, &b).map_err(|e| format!("{file} ({b}): {e}"))?;
    Ok(BoundGraph {
        graph,
        tensors: t,
        source: format!("{} (sizes {b})", path.display()),
        bindings: b,
    })
}
