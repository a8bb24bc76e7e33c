//! Tensor comparison with a tolerance: what every differential test checks its outputs with.

use coil_graph::Tensor;

/// `got` equals `want` in sizes and dtype, and element by element up to
/// `|got - want| <= atol + rtol * |want|` (NaNs equal each other; infinities must be equal).
pub fn check_close(got: &Tensor, want: &Tensor, atol: f64, rtol: f64) -> Result<(), String> {
    if got.sizes() != want.sizes() {
        return Err(format!("sizes {:?} vs {:?}", got.sizes(), want.sizes()));
    }
    if got.dtype() != want.dtype() {
        return Err(format!("dtype {} vs {}", got.dtype(), want.dtype()));
    }
    let (g, w) = (got.to_f64_vec(), want.to_f64_vec());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * b.abs();
        if !ok {
            return Err(format!("element {i}: got {a}, want {b}"));
        }
    }
    Ok(())
}

/// [`check_close`] for every output, after checking that there are as many as expected.
pub fn check_outputs(got: &[Tensor], want: &[Tensor], atol: f64, rtol: f64) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("{} outputs vs {}", got.len(), want.len()));
    }
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        check_close(g, w, atol, rtol).map_err(|e| format!("output {i}: {e}"))?;
    }
    Ok(())
}
