//! Differential tests against PyTorch: every graph in `tests/data/ops` (small modules exported
//! by `tools/op_cases.py` with torch.export + run_decompositions, one case per `.py` with its
//! `.safetensors` of `input.<placeholder>` and `output.<i>`) runs through coil-eager and must
//! reproduce PyTorch eager's outputs: same dtype and sizes, ints and bools exactly, floats
//! within a dtype's tolerance (NaN equal to NaN, infinities equal to themselves).
//!
//! Cases on which coil-eager is known to be wrong go to `tests/data/ops_known_bugs` (none now),
//! which this test does not read. Regenerate with `.venv/bin/python tools/op_cases.py`.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use coil_graph::{DType, Data, Tensor};

/// `(rtol, atol)` for a float dtype; `None` means exact (ints, bools).
fn tolerance(dtype: DType) -> Option<(f64, f64)> {
    match dtype {
        DType::Bool | DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => None,
        DType::F32 => Some((1e-5, 1e-6)),
        DType::F64 => Some((1e-10, 1e-12)),
        DType::F16 | DType::BF16 => Some((1e-2, 1e-3)),
    }
}

/// The first element where `got` and `want` differ beyond the tolerance.
fn first_mismatch(got: &[f64], want: &[f64], tol: Option<(f64, f64)>) -> Option<(usize, f64, f64)> {
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (a, b))| {
            let (a, b) = (**a, **b);
            let same = a == b || (a.is_nan() && b.is_nan());
            !same
                && match tol {
                    None => true,
                    Some((rtol, atol)) => {
                        let diff = (a - b).abs();
                        diff.is_nan() || diff > atol + rtol * b.abs()
                    }
                }
        })
        .map(|(i, (a, b))| (i, *a, *b))
}

/// An integer or bool tensor's elements, exactly (an f64 holds int64 values only up to 2^53).
fn exact_values(t: &Tensor) -> Option<Vec<i64>> {
    let c = t.contiguous();
    match &**c.storage() {
        Data::I64(v) => Some(v.clone()),
        Data::I32(v) => Some(v.iter().map(|&x| x as i64).collect()),
        Data::Bool(v) => Some(v.iter().map(|&x| x as i64).collect()),
        _ => None,
    }
}

/// `[i, j, k]` of flat (row-major) position `flat` in `sizes`.
fn unravel(mut flat: usize, sizes: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; sizes.len()];
    for (d, &s) in sizes.iter().enumerate().rev() {
        if s > 0 {
            idx[d] = flat % s;
            flat /= s;
        }
    }
    idx
}

/// Runs one case; `Err` says what went wrong, naming the output index and first mismatch.
fn check_case(py: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(py).map_err(|e| format!("read: {e}"))?;
    let graph = coil_graph::parse(&text).map_err(|e| format!("parse: {e}"))?;
    let st = py.with_extension("safetensors");
    let tensors: BTreeMap<String, Tensor> =
        Tensor::load_safetensors(&st).map_err(|e| format!("load: {e}"))?;
    let inputs = graph
        .inputs()
        .iter()
        .map(|&id| {
            let name = format!("input.{}", graph.node(id).name);
            tensors
                .get(&name)
                .cloned()
                .ok_or_else(|| format!("{} has no tensor {name}", st.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let wants: Vec<&Tensor> = (0..graph.outputs().len())
        .map(|i| {
            tensors
                .get(&format!("output.{i}"))
                .ok_or_else(|| format!("{} has no tensor output.{i}", st.display()))
        })
        .collect::<Result<_, _>>()?;
    if tensors.contains_key(&format!("output.{}", wants.len())) {
        return Err(format!(
            "the graph returns {} outputs but the safetensors has more",
            wants.len()
        ));
    }
    let run = catch_unwind(AssertUnwindSafe(|| coil_eager::run(&graph, &inputs)))
        .map_err(|p| {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("coil_eager::run panicked: {msg}")
        })?
        .map_err(|e| format!("run: {e}"))?;
    if run.outputs.len() != wants.len() {
        return Err(format!(
            "{} outputs, PyTorch gives {}",
            run.outputs.len(),
            wants.len()
        ));
    }
    for (i, (got, want)) in run.outputs.iter().zip(&wants).enumerate() {
        if got.dtype() != want.dtype() {
            return Err(format!(
                "output {i}: dtype {:?}, PyTorch gives {:?}",
                got.dtype(),
                want.dtype()
            ));
        }
        if got.sizes() != want.sizes() {
            return Err(format!(
                "output {i}: sizes {:?}, PyTorch gives {:?}",
                got.sizes(),
                want.sizes()
            ));
        }
        if let (Some(g), Some(w)) = (exact_values(got), exact_values(want)) {
            if let Some(at) = g.iter().zip(&w).position(|(a, b)| a != b) {
                let bad = g.iter().zip(&w).filter(|(a, b)| a != b).count();
                return Err(format!(
                    "output {i} ({:?} {:?}): element {at} {:?} is {}, PyTorch gives {} \
                     ({bad} of {} elements differ)",
                    want.dtype(),
                    want.sizes(),
                    unravel(at, want.sizes()),
                    g[at],
                    w[at],
                    w.len()
                ));
            }
            continue;
        }
        let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
        if let Some((at, a, b)) = first_mismatch(&g, &w, tolerance(want.dtype())) {
            let bad = first_mismatch_count(&g, &w, tolerance(want.dtype()));
            return Err(format!(
                "output {i} ({:?} {:?}): element {at} {:?} is {a}, PyTorch gives {b} \
                 ({bad} of {} elements differ)",
                want.dtype(),
                want.sizes(),
                unravel(at, want.sizes()),
                w.len()
            ));
        }
    }
    Ok(wants.len())
}

fn first_mismatch_count(got: &[f64], want: &[f64], tol: Option<(f64, f64)>) -> usize {
    got.iter()
        .zip(want)
        .filter(|(a, b)| first_mismatch(&[**a], &[**b], tol).is_some())
        .count()
}

fn case_files(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(folder);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "{} holds no cases (run tools/op_cases.py)",
        dir.display()
    );
    files
}

#[test]
fn every_op_case_matches_pytorch() {
    let files = case_files("ops");
    let mut failures = Vec::new();
    let mut outputs = 0;
    for py in &files {
        match check_case(py) {
            Ok(n) => outputs += n,
            Err(e) => failures.push(format!(
                "{}: {e}",
                py.file_name().unwrap().to_string_lossy()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from PyTorch:\n  {}",
        failures.len(),
        files.len(),
        failures.join("\n  ")
    );
    assert!(outputs > 0, "no outputs were compared");
}
