//! Where the GPU examples look for cuBLAS, shared by `cuda_zoo` and `gpu_selfcheck` (binaries
//! may read the environment and start processes; the library below them does neither):
//! `$COIL_CUBLAS_DIR`, then the `nvidia` Python package of `python3`/`python` (PyTorch's
//! wheels: `nvidia/cu13/lib`, `nvidia/cublas/lib`).

use std::path::PathBuf;

/// Makes cuBLAS loadable ([`coil_cuda::preload_cublas`] over the directories above), printing
/// the libraries that failed to load with `who` in front; says where it was found.
pub(crate) fn preload_cublas(who: &str) -> String {
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("COIL_CUBLAS_DIR") {
        dirs.push(d.into());
    }
    for python in ["python3", "python"] {
        let out = std::process::Command::new(python)
            .args([
                "-c",
                "import nvidia, sys; print('\\n'.join(list(nvidia.__path__)))",
            ])
            .output();
        if let Ok(out) = out {
            for line in String::from_utf8_lossy(&out.stdout).lines() {
                let root = PathBuf::from(line.trim());
                dirs.push(root.join("cu13/lib"));
                dirs.push(root.join("cublas/lib"));
            }
        }
    }
    let (found, errors) = coil_cuda::preload_cublas(&dirs);
    for e in errors {
        eprintln!("{who}: {e}");
    }
    found
}
