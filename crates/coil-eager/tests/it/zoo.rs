//! Every zoo model at its tiny size against the outputs PyTorch produced for it.

/// Passes when `|got - want| <= max(1e-5, 1e-4 * |want|)` everywhere.
fn max_violation(got: &[f64], want: &[f64]) -> Option<(usize, f64, f64)> {
    got.iter()
        .zip(want)
        .enumerate()
        .find(|(_, (a, b))| {
            let ok = (*a - *b).abs() <= (1e-4 * b.abs()).max(1e-5) || (a.is_nan() && b.is_nan());
            !ok
        })
        .map(|(i, (a, b))| (i, *a, *b))
}

#[test]
fn every_model_matches_pytorch() {
    for m in coil_models::MODELS {
        let case = m.tiny_case().unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let run = coil_eager::run(&case.graph, &case.inputs)
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert_eq!(run.outputs.len(), case.outputs.len(), "{}", m.name);
        for (i, (got, want)) in run.outputs.iter().zip(&case.outputs).enumerate() {
            assert_eq!(got.dtype(), want.dtype(), "{} output {i}", m.name);
            assert_eq!(got.sizes(), want.sizes(), "{} output {i}", m.name);
            if let Some((at, a, b)) = max_violation(&got.to_f64_vec(), &want.to_f64_vec()) {
                panic!(
                    "{} output {i}: element {at} is {a}, PyTorch gives {b}",
                    m.name
                );
            }
        }
    }
}
