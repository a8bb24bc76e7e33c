//! The kernel-IR-to-PTX translator on the zoo: every model's kernels (tiny, article and large
//! sizes; per buffer and fused) render, and assemble with NVIDIA's `ptxas -arch=sm_90` where
//! it is installed.

use coil_cuda::ptx::PtxModule;
use coil_cuda::render::render_kernel;
use coil_cuda::{GpuCaps, PtxTarget};
use coil_models::Size;

use crate::ptxas::{assemble, find_ptxas};
use crate::zoo::zoo_kernels;

fn module_of(kernels: &[coil_codegen::Kernel]) -> Result<PtxModule, String> {
    let mut module = PtxModule::new(PtxTarget::SM90);
    for k in kernels {
        let r = render_kernel(k, &GpuCaps::h200(), PtxTarget::SM90)
            .map_err(|e| format!("{}: {e}", k.name))?;
        for l in r.launches {
            module.push(l.kernel).map_err(|e| e.to_string())?;
        }
    }
    Ok(module)
}

#[test]
fn every_zoo_kernel_renders() {
    for size in [Size::Tiny, Size::Article, Size::Large] {
        for (label, ks) in zoo_kernels(size) {
            if let Err(e) = module_of(&ks) {
                panic!("{label}: {e}");
            }
        }
    }
}

#[test]
fn every_zoo_kernel_assembles_for_sm90() {
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
    let mut spills = Vec::new();
    for size in [Size::Tiny, Size::Article, Size::Large] {
        for (label, ks) in zoo_kernels(size) {
            let module = match module_of(&ks) {
                Ok(m) => m,
                Err(e) => {
                    failures.push(format!("{label}: {e}"));
                    continue;
                }
            };
            match assemble(&ptxas, &label, &module.to_string(), "sm_90") {
                Ok(report) => {
                    for line in report.lines() {
                        if line.contains("spill") && !line.contains(" 0 bytes spill stores") {
                            spills.push(format!("{label}: {line}"));
                        }
                    }
                }
                Err(log) => failures.push(format!("{label} does not assemble:\n{log}")),
            }
        }
    }
    #[allow(clippy::print_stderr)]
    for s in &spills {
        eprintln!("spill: {s}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
