//! The fuzzer's tests: every regression in `regressions/` (minimized finds of earlier runs)
//! is now accepted or rejected with an error, never a panic; and a bounded, deterministic run
//! finds nothing.

use std::time::Duration;

use coil_fuzz::{Outcome, check};

#[test]
fn every_regression_is_an_answer_not_a_panic() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("regressions/") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let got = check(&text, None);
        assert!(
            !matches!(got, Outcome::Panic(_)),
            "{}: {got:?}",
            path.display()
        );
        n += 1;
    }
    assert!(n > 0, "no regressions in {}", dir.display());
}

/// Fails with every find (message and minimized text) when the run found any.
fn assert_no_finds(report: &coil_fuzz::Report) {
    let finds: Vec<String> = report
        .finds
        .iter()
        .map(|f| format!("{}\n{}", f.message, f.text))
        .collect();
    assert!(
        finds.is_empty(),
        "{} executions:\n{}",
        report.executions,
        finds.join("\n---\n")
    );
}

#[test]
fn a_bounded_run_finds_nothing() {
    // About a minute on the CI machine: a fixed seed, so the same texts every time.
    let report = coil_fuzz::run(1, 150_000, Duration::from_secs(90), 50);
    assert_no_finds(&report);
    assert!(report.accepted > 0 && report.rejected > 0, "{report:?}");
}

/// Mutants of random graphs (coil-testkit's generator, every op family, edge dims included)
/// never panic either: a bounded, deterministic run over 300 of them.
#[test]
fn random_graph_mutants_never_panic() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let configs = [
        coil_testkit::GraphConfig::default(),
        coil_testkit::GraphConfig {
            rank: 0..4,
            dim: 0..3,
            ..coil_testkit::GraphConfig::default()
        },
    ];
    let mut texts = Vec::new();
    for config in &configs {
        let strategy = coil_testkit::random_graph(config);
        for _ in 0..150 {
            let case = strategy
                .new_tree(&mut runner)
                .expect("a random graph")
                .current();
            texts.push(case.graph.to_string());
        }
    }
    let report = coil_fuzz::run_with(texts, 7, 200_000, Duration::from_secs(40), 50);
    assert_no_finds(&report);
    assert!(report.accepted > 0, "{report:?}");
}

/// Mutants of the filetests' kernel texts: the reader and the evaluator answer every one with
/// a value or an error, never a panic (a bounded, deterministic run).
#[test]
fn kernel_text_mutants_never_panic() {
    let report = coil_fuzz::run_kernels(7, 30_000, Duration::from_secs(30));
    assert_no_finds(&report);
    assert!(report.accepted > 0 && report.rejected > 0, "{report:?}");
}

/// The fuzzer's graphs with symbolic sizes, unmutated: each accepted at every size it binds,
/// the CPU backend's shared machine code (reused and generalized across sizes and texts)
/// computing what each size's own code does.
#[test]
fn symbolic_seeds_run_at_every_size_with_shared_code_equal_to_their_own() {
    let cpu: std::sync::Arc<dyn coil_codegen::Backend> = std::sync::Arc::new(
        coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 1,
            ..Default::default()
        })
        .unwrap(),
    );
    let symbolic: Vec<String> = coil_fuzz::seeds()
        .into_iter()
        .filter(|s| coil_graph::is_symbolic(s))
        .collect();
    assert!(symbolic.len() >= 3);
    // Twice: the second pass binds every size to code the first made.
    for _ in 0..2 {
        for text in &symbolic {
            assert_eq!(
                coil_fuzz::check(text, Some(&cpu)),
                coil_fuzz::Outcome::Ok,
                "{text}"
            );
        }
    }
}
