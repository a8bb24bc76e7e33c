//! Assembles every reference kernel with NVIDIA's `ptxas` (from the PyPI package
//! `nvidia-cuda-nvcc`, which `cargo xtask test` installs into `.venv`): the PTX the builder
//! renders must assemble for sm_90 without errors and without register spills. Skips with a
//! message when no `ptxas` can be found.

use std::path::{Path, PathBuf};
use std::process::Command;

use coil_cuda::PtxTarget;
use coil_cuda::kernels::{self, ReduceOp};
use coil_cuda::math::MathFn;
use coil_cuda::ptx::{PtxKernel, PtxModule};

/// `$COIL_PTXAS`, else the repository's `.venv` (where `cargo xtask test` installs
/// nvidia-cuda-nvcc), else `ptxas` on `PATH`.
pub(crate) fn find_ptxas() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COIL_PTXAS") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Some(p);
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let lib = root.join(".venv/lib");
    if let Ok(entries) = std::fs::read_dir(&lib) {
        for entry in entries.flatten() {
            let nvidia = entry.path().join("site-packages/nvidia");
            for sub in ["cu13/bin/ptxas", "cuda_nvcc/bin/ptxas"] {
                let p = nvidia.join(sub);
                if p.is_file() {
                    return Some(p);
                }
            }
        }
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("ptxas"))
        .find(|p| p.is_file())
}

/// Runs `ptxas -arch=sm_XY -v` on `text`; Err(stderr) on failure, Ok(its report) otherwise.
pub(crate) fn assemble(ptxas: &Path, name: &str, text: &str, arch: &str) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("coil-cuda-ptxas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let src = dir.join(format!("{name}.ptx"));
    std::fs::write(&src, text).map_err(|e| e.to_string())?;
    let out = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-v")
        .arg("-o")
        .arg(dir.join(format!("{name}.cubin")))
        .arg(&src)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let report =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    if out.status.success() {
        Ok(report)
    } else {
        Err(report)
    }
}

fn reference_kernels(target: PtxTarget) -> Vec<PtxKernel> {
    let mut all = Vec::new();
    for f in MathFn::ALL {
        for vectorized in [true, false] {
            let name = format!("{}_{}", f.name(), if vectorized { "v4" } else { "scalar" });
            all.push(kernels::elementwise(&name, f, vectorized, target).expect("renders"));
        }
    }
    for op in [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod] {
        for (block, vectorized) in [(256, true), (1024, false), (32, true)] {
            let name = format!(
                "row_{}_{block}_{}",
                op.name(),
                if vectorized { "v4" } else { "scalar" }
            );
            all.push(kernels::row_reduce(&name, op, block, vectorized, target).expect("renders"));
        }
    }
    all
}

#[test]
fn every_reference_kernel_assembles_for_sm90_without_spills() {
    let Some(ptxas) = find_ptxas() else {
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "skipping: no ptxas (set COIL_PTXAS, or run `cargo xtask test`, which installs nvidia-cuda-nvcc into .venv)"
            );
        }
        return;
    };
    let mut failures = Vec::new();
    let target = PtxTarget::SM90;
    let mut module = PtxModule::new(target);
    for kernel in reference_kernels(target) {
        match assemble(&ptxas, kernel.name(), &kernel.to_string(), "sm_90") {
            Ok(report) => {
                if report
                    .lines()
                    .any(|l| l.contains("spill") && !l.contains(" 0 bytes spill stores"))
                {
                    failures.push(format!("{} spills registers:\n{report}", kernel.name()));
                }
            }
            Err(log) => failures.push(format!("{} does not assemble:\n{log}", kernel.name())),
        }
        if kernel.name().starts_with("sin") || kernel.name().starts_with("cos") {
            module.push(kernel).expect("distinct names");
        }
    }
    // Several kernels in one module share the 2/pi table.
    let text = module.to_string();
    assert_eq!(
        text.matches(".const .align 8 .b64 coil_two_over_pi")
            .count(),
        1
    );
    if let Err(log) = assemble(&ptxas, "trig_module", &text, "sm_90") {
        failures.push(format!("the trig module does not assemble:\n{log}"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn kernels_for_newer_targets_assemble_too() {
    let Some(ptxas) = find_ptxas() else {
        return;
    };
    for (major, minor) in [(8, 0), (10, 0), (12, 0)] {
        let target = PtxTarget::for_compute_capability(major, minor);
        let k = kernels::elementwise("exp_v4", MathFn::Exp, true, target).expect("renders");
        let arch = target.sm_name();
        if let Err(log) = assemble(&ptxas, &format!("exp_{arch}"), &k.to_string(), &arch) {
            panic!("exp for {target} does not assemble:\n{log}");
        }
    }
}
