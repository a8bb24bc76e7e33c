//! The kernel-boundary filetests: every `kir/*.kir` file is read, run on the reference
//! evaluator (whose results must equal the file's blessed `# expect` lines; `UPDATE_EXPECT=1`,
//! which `cargo xtask bless` sets, rewrites them), then on the CPU backend, coil-cuda's PTX on
//! its emulator and the C backend, each compared with the evaluator. `# golden: ptx` files
//! also keep the offline PTX beside them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use coil_filetests::{FileTest, Outputs, compare, expect_lines, run, runs_on};
use coil_kernel::{Backend, Compiler, InterpBackend};

fn kir_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("kir")
}

fn files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(kir_dir())
        .expect("kir/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .collect();
    files.sort();
    files
}

fn blessing() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some()
}

fn backends() -> Vec<(&'static str, Arc<dyn Backend>)> {
    let mut b: Vec<(&'static str, Arc<dyn Backend>)> = Vec::new();
    if let Ok(cpu) = coil_cpu::CpuBackend::new() {
        b.push(("cpu", Arc::new(cpu)));
    }
    b.push(("ptx-emulated", Arc::new(coil_cuda::CudaBackend::emulated())));
    if let Ok(c) = coil_backend_c::CBackend::new() {
        b.push(("c", Arc::new(c)));
    }
    b
}

/// Checks one file; returns its failures.
fn check(path: &Path, backends: &[(&'static str, Arc<dyn Backend>)]) -> Vec<String> {
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let test = match FileTest::parse(&name, &text) {
        Ok(t) => t,
        Err(e) => return vec![e.to_string()],
    };
    let mut failures = Vec::new();
    let oracle: Outputs = match run(&test, &InterpBackend::new()) {
        Ok(o) => o,
        Err(e) => return vec![format!("{name}: the evaluator: {e}")],
    };
    let lines = expect_lines(&oracle.buffers);
    if blessing() {
        let mut out = test.body.clone();
        for l in &lines {
            out.push_str("# expect ");
            out.push_str(l);
            out.push('\n');
        }
        if out != text
            && let Err(e) = std::fs::write(path, out)
        {
            failures.push(format!("{name}: {e}"));
        }
    } else if lines != test.expect {
        failures.push(format!(
            "{name}: the evaluator's results changed (cargo xtask bless):\n  now:  {}\n  file: {}",
            lines.join("\n        "),
            test.expect.join("\n        ")
        ));
    }
    for (bname, backend) in backends {
        if !runs_on(&test, backend.as_ref()) {
            continue;
        }
        match run(&test, backend.as_ref()) {
            Ok(got) => {
                for d in compare(&oracle.buffers, &got.buffers) {
                    failures.push(format!("{name} on {bname}: {d}"));
                }
            }
            Err(e) => failures.push(format!("{name} on {bname}: {e}")),
        }
    }
    if test.golden_ptx {
        // Offline, the backend renders PTX and runs nothing: compile only.
        let offline = coil_cuda::CudaBackend::offline();
        match offline.compile(&test.kernels).map(|c| c.source()) {
            Ok(ptx) => {
                let golden = path.with_extension("ptx");
                if blessing() {
                    if let Err(e) = std::fs::write(&golden, &ptx) {
                        failures.push(format!("{name}: {e}"));
                    }
                } else if std::fs::read_to_string(&golden).ok().as_deref() != Some(ptx.as_str()) {
                    failures.push(format!(
                        "{name}: the PTX differs from {} (cargo xtask bless)",
                        golden.display()
                    ));
                }
            }
            Err(e) => failures.push(format!("{name} offline PTX: {e}")),
        }
    }
    failures
}

#[test]
fn every_kir_file_gives_the_evaluators_results_on_every_backend() {
    let files = files();
    assert!(
        files.len() >= 40,
        "{} filetests, expected at least 40",
        files.len()
    );
    let backends = backends();
    let failures: Vec<String> = files.iter().flat_map(|f| check(f, &backends)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn malformed_files_are_errors_with_their_line() {
    let bad = "# input arg0: floats x 2\nkernel k (pointwise) ranges=[1] reduction_ranges=[]\n";
    let e = FileTest::parse("bad", bad).unwrap_err().to_string();
    assert!(e.starts_with("bad.kir:1:"), "{e}");
    let e = FileTest::parse("bad", "# extern: mm m=2 q=3\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown extern field 'q=3'"), "{e}");
    let e = FileTest::parse("bad", "# nothing here\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no kernel"), "{e}");
}
