//! `cargo xtask`: coil's developer commands. Each does its own set-up (LLVM 19 from Debian), so
//! a fresh clone needs nothing but `cargo xtask run-model seed_model` and `cargo xtask test`.
//!
//! This crate has no dependencies on purpose: it must build before LLVM is installed, then
//! install it, then build and run the crates that link it.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const LLVM_PREFIX: &str = "/usr/lib/llvm-19";
const LLVM_PACKAGES: &[&str] = &["llvm-19-dev", "libpolly-19-dev", "libzstd-dev"];
/// Libraries the CPU backend loads at run time when present, installed best effort: Debian's
/// package, the library it provides, and what runs without it.
const OPTIONAL_LIBRARIES: &[(&str, &str, &str)] = &[
    (
        "libdnnl-dev",
        "/usr/lib/x86_64-linux-gnu/libdnnl.so.2",
        "CPU convolutions use im2col, matmuls the gemm crate",
    ),
    (
        "libopenblas-dev",
        "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
        "run-model --matmul32 openblas is unavailable",
    ),
];

const HELP: &str = "\
cargo xtask <command>

commands:
  setup                 install what coil needs when missing: LLVM 19 from Debian (to build),
                        oneDNN and OpenBLAS (libdnnl-dev, libopenblas-dev: loaded at run time
                        for CPU matmuls and convolutions; best effort)
  test [ARGS...]        set up, then run every test of the workspace (ARGS go to cargo test);
                        installs NVIDIA's ptxas (PyPI nvidia-cuda-nvcc) into .venv so the
                        CUDA backend's PTX is assembled (best effort; COIL_PTXAS overrides);
                        without ARGS, then the Python package's tests: torch, torchvision,
                        timm, transformers and pytest into .venv, `pip install ./python`,
                        pytest python/tests (skipped with a warning when the disk has less
                        than 8 GiB free, an error with COIL_REQUIRE_PYTHON_TESTS=1;
                        COIL_FREE_TEST_BUILD=1 removes target/debug before them)
  python [PYTHON]       set up, then build and install the coil Python package (torch.compile's
                        backend=coil) into PYTHON's environment (default: python3 on PATH),
                        as `PYTHON -m pip install ./python` with LLVM found
  run-model ARGS...     set up, then build (release) and run `coil run-model ARGS...`;
                        `cargo xtask run-model --help` lists the options
  bless                 rewrite golden files (expect-test) from the current output, then test
  fuzz [--minutes N] [--seed S]
                        run the mutation fuzzer (crates/coil-fuzz) for N minutes (default 1);
                        minimized finds go to fuzz-finds/ (copy them to
                        crates/coil-fuzz/regressions/ once fixed)
  gpu-bundle [DIR]      set up, build the release `coil`, `cuda_zoo` and `gpu_selfcheck` and
                        put them, the zoo, the run script and the PyTorch baseline into DIR
                        (default gpu-bundle/, git-ignored): copy DIR to a GPU machine and run
                        `DIR/run.sh` there (results go to $OUT, or DIR/results)
  gpu-bundle --pack     the same, then DIR without the zoo as one xz tarball,
                        gpu-carry/bundle.tar.xz (git-ignored; about 30 MB): for a machine that
                        gets the repository's files and a few carried ones; there, unpack it
                        and link the checkout's crates/coil-models/models as its models/
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup(),
        Some("test") => setup().and_then(|()| test(&args[1..])),
        Some("run-model") => setup().and_then(|()| run_model(&args[1..])),
        Some("python") => setup().and_then(|()| install_python_package(args.get(1))),
        Some("bless") => setup().and_then(|()| bless()),
        Some("fuzz") => setup().and_then(|()| fuzz(&args[1..])),
        Some("gpu-bundle") if args.get(1).map(String::as_str) == Some("--pack") => setup()
            .and_then(|()| gpu_bundle(None))
            .and_then(|()| pack_gpu_bundle()),
        Some("gpu-bundle") => setup().and_then(|()| gpu_bundle(args.get(1).map(String::as_str))),
        Some("help" | "--help" | "-h") | None => {
            print!("{HELP}");
            Ok(())
        }
        Some(other) => Err(format!("unknown command '{other}'\n\n{HELP}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// A `cargo` command in the workspace root with LLVM's prefix set.
fn cargo(args: &[&str]) -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(workspace_root())
        .args(args)
        .env("LLVM_SYS_191_PREFIX", LLVM_PREFIX);
    cmd
}

fn run(mut cmd: Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

fn llvm_installed() -> bool {
    Path::new(LLVM_PREFIX).join("bin/llvm-config").exists()
        && Path::new(LLVM_PREFIX).join("lib/libLLVMCore.a").exists()
        && Path::new(LLVM_PREFIX).join("lib/libPolly.a").exists()
}

/// The optional libraries missing here (Debian's packages are for x86-64; elsewhere the CPU
/// backend runs without them).
fn optional_missing() -> Vec<&'static (&'static str, &'static str, &'static str)> {
    OPTIONAL_LIBRARIES
        .iter()
        .filter(|(_, lib, _)| cfg!(target_arch = "x86_64") && !Path::new(lib).exists())
        .collect()
}

/// Installs LLVM 19 (and the libraries llvm-sys links) from Debian when missing, and oneDNN
/// and OpenBLAS (best effort: the CPU backend runs without them).
fn setup() -> Result<(), String> {
    let llvm = llvm_installed();
    let optional = optional_missing();
    if llvm && optional.is_empty() {
        return Ok(());
    }
    let mut packages: Vec<&str> = Vec::new();
    if !llvm {
        packages.extend_from_slice(LLVM_PACKAGES);
    }
    packages.extend(optional.iter().map(|(p, _, _)| *p));
    eprintln!(
        "xtask: installing {} from Debian (one time, a few minutes)",
        packages.join(" ")
    );
    let sudo = !is_root();
    let apt = |args: &[&str]| {
        let mut cmd = if sudo {
            Command::new("sudo")
        } else {
            Command::new("apt-get")
        };
        if sudo {
            cmd.arg("apt-get");
        }
        cmd.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        cmd
    };
    let install = |list: &[&str]| {
        let mut args = vec!["install", "-y", "-q", "--no-install-recommends"];
        args.extend_from_slice(list);
        run(apt(&args))
    };
    let updated = run(apt(&["update", "-q"]));
    if !llvm {
        updated?;
        if install(&packages).is_err() {
            // Retry with LLVM alone: it is what building needs.
            install(LLVM_PACKAGES)?;
        }
        if !llvm_installed() {
            return Err(format!(
                "apt-get finished but {LLVM_PREFIX} still lacks llvm-config or libPolly"
            ));
        }
    } else if let Err(e) = updated {
        eprintln!("xtask: apt-get update failed ({e})");
    }
    // The optional libraries never fail the command.
    for (package, lib, without) in optional {
        if !Path::new(lib).exists() && install(&[package]).is_err() {
            eprintln!("xtask: {package} not installed; {without}");
        }
    }
    // The downloaded packages are not needed once installed (disk is short on some machines).
    let _ = apt(&["clean"]).status();
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(false)
}

/// Runs every test of the workspace (unit, integration, doc tests). First makes NVIDIA's
/// `ptxas` available to coil-cuda's tests (best effort, see [`ensure_ptxas`]).
fn fuzz(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["run", "--release", "--quiet", "-p", "coil-fuzz", "--"];
    args.extend(extra.iter().map(String::as_str));
    run(cargo(&args))
}

fn test(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["test", "--workspace"];
    args.extend(extra.iter().map(String::as_str));
    let mut cmd = cargo(&args);
    if std::env::var_os("COIL_PTXAS").is_none()
        && let Some(ptxas) = ensure_ptxas()
    {
        cmd.env("COIL_PTXAS", ptxas);
    }
    run(cmd)?;
    // Arguments narrow the cargo tests; the Python tests run with the whole suite only.
    if extra.is_empty() {
        if std::env::var(FREE_TEST_BUILD).as_deref() == Ok("1") {
            free_test_build();
        }
        python_tests()?;
    }
    Ok(())
}

/// Set to 1 (CI does), the debug build the Rust tests ran from is removed before the Python
/// tests install torch: about 3.5 GB of disk that a clean clone never reuses.
const FREE_TEST_BUILD: &str = "COIL_FREE_TEST_BUILD";

fn free_test_build() {
    let debug = workspace_root().join("target/debug");
    eprintln!(
        "xtask: {FREE_TEST_BUILD}=1: removing {} before the Python tests",
        debug.display()
    );
    if let Err(e) = std::fs::remove_dir_all(&debug) {
        eprintln!("xtask: could not remove {}: {e}", debug.display());
    }
}

/// `cargo xtask python [PYTHON]`: the `coil` package built (maturin, through pip) and installed
/// into `PYTHON`'s environment.
fn install_python_package(python: Option<&String>) -> Result<(), String> {
    let python = python.map_or("python3", String::as_str);
    let mut c = Command::new(python);
    c.args(["-m", "pip", "install", "./python"])
        .current_dir(workspace_root())
        .env("LLVM_SYS_191_PREFIX", LLVM_PREFIX);
    run(c)?;
    eprintln!("xtask: installed; torch.compile(model, backend=\"coil\") works in {python}");
    Ok(())
}

/// What the Python package's tests import (PyPI; torch's wheel brings CUDA libraries).
const PYTHON_TEST_PACKAGES: &[&str] = &["torch", "torchvision", "timm", "transformers", "pytest"];

/// Free disk the test packages need before their install starts, in GiB: about 6 installed
/// (torch with its CUDA libraries, triton, transformers) and room for the largest wheel
/// waiting to be unpacked (see `install_test_packages.py`).
const PYTHON_TEST_PACKAGES_GIB: u64 = 8;

/// Installs [`PYTHON_TEST_PACKAGES`] a few wheels at a time, so that the downloads never wait on
/// disk beside the installed files all at once.
const INSTALL_TEST_PACKAGES: &str = include_str!("install_test_packages.py");

/// The exit status `install_test_packages.py` gives when the disk is too full.
const SHORT_OF_DISK: i32 = 3;

/// Set to 1, a disk too full for the Python test packages fails `cargo xtask test` instead of
/// skipping the Python tests with a warning.
const REQUIRE_PYTHON_TESTS: &str = "COIL_REQUIRE_PYTHON_TESTS";

/// The `torch.compile(backend="coil")` tests: the packages they need into `.venv` (once), the
/// `coil` package built and installed there (`pip install ./python`, maturin), then pytest.
///
/// A disk too full for torch (about 8 GiB free needed) skips them with a warning that says so,
/// unless `COIL_REQUIRE_PYTHON_TESTS=1`: the Rust tests have run by then, and the machine, not
/// the code, is what is short.
fn python_tests() -> Result<(), String> {
    let root = workspace_root();
    let venv = root.join(".venv");
    let python = venv.join("bin/python");
    if !python.exists() {
        run({
            let mut c = Command::new("python3");
            c.args(["-m", "venv"]).arg(&venv);
            c
        })
        .map_err(|e| format!("the Python tests need a virtualenv: {e}"))?;
    }
    let have = Command::new(&python)
        .args([
            "-c",
            "import torch, torchvision, timm, transformers, pytest",
        ])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        eprintln!(
            "xtask: installing {} into .venv for the Python tests (one time, about 6 GB)",
            PYTHON_TEST_PACKAGES.join(" ")
        );
        let mut install = Command::new(&python);
        install
            .args(["-c", INSTALL_TEST_PACKAGES])
            .arg(PYTHON_TEST_PACKAGES_GIB.to_string())
            .args(PYTHON_TEST_PACKAGES)
            .current_dir(&root);
        let status = install
            .status()
            .map_err(|e| format!("cannot start {}: {e}", python.display()))?;
        if status.code() == Some(SHORT_OF_DISK) {
            let why = "the disk is too full for torch and its CUDA libraries (said above)";
            if std::env::var(REQUIRE_PYTHON_TESTS).as_deref() == Ok("1") {
                return Err(format!("the Python tests cannot run: {why}"));
            }
            eprintln!(
                "xtask: WARNING: the Python tests did NOT run: {why}. The Rust tests above \
                 passed. Free some disk and run `cargo xtask test` again, or set \
                 {REQUIRE_PYTHON_TESTS}=1 to make this an error."
            );
            return Ok(());
        }
        if !status.success() {
            return Err(format!(
                "installing the Python test packages failed ({status})"
            ));
        }
    }
    eprintln!("xtask: building and installing the coil Python package (pip install ./python)");
    let mut pip = Command::new(&python);
    pip.args([
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-cache-dir",
        "--disable-pip-version-check",
        "./python",
    ])
    .current_dir(&root)
    .env("LLVM_SYS_191_PREFIX", LLVM_PREFIX);
    run(pip)?;
    let mut pytest = Command::new(&python);
    pytest
        .args([
            "-m",
            "pytest",
            "python/tests",
            "-q",
            "-p",
            "no:cacheprovider",
        ])
        .current_dir(&root);
    run(pytest)
}

/// The PyPI package that ships `ptxas` for CUDA 13 (as `nvidia/cu13/bin/ptxas`).
const NVCC_REQUIREMENT: &str = "nvidia-cuda-nvcc>=13,<14";

/// Best effort: NVIDIA's `ptxas` in a repo-local, git-ignored `.venv` (PyPI `nvidia-cuda-nvcc`),
/// so coil-cuda's tests assemble the PTX they render. Creates the virtualenv and installs the
/// package on first use; when Python, venv or pip fails it says so and returns None (the
/// tests then skip assembling), never failing the test command.
fn ensure_ptxas() -> Option<PathBuf> {
    let venv = workspace_root().join(".venv");
    if let Some(p) = venv_ptxas(&venv) {
        return Some(p);
    }
    let python = venv.join("bin/python");
    if !python.exists() {
        eprintln!("xtask: creating .venv for ptxas ({NVCC_REQUIREMENT})");
        let created = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success());
        if !created {
            eprintln!(
                "xtask: `python3 -m venv .venv` failed; coil-cuda's tests will not assemble PTX"
            );
            return None;
        }
    }
    eprintln!("xtask: installing {NVCC_REQUIREMENT} into .venv (one time, ~100 MB)");
    let installed = Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(["--retries", "1", "--timeout", "30", NVCC_REQUIREMENT])
        .status()
        .is_ok_and(|s| s.success());
    let found = venv_ptxas(&venv);
    if !installed || found.is_none() {
        eprintln!(
            "xtask: could not install {NVCC_REQUIREMENT}; coil-cuda's tests will not assemble PTX"
        );
    }
    found
}

/// `ptxas` inside `.venv/lib/python*/site-packages/nvidia/{cu13,cuda_nvcc}/bin`.
fn venv_ptxas(venv: &Path) -> Option<PathBuf> {
    let entries = std::fs::read_dir(venv.join("lib")).ok()?;
    entries.flatten().find_map(|e| {
        ["cu13", "cuda_nvcc"]
            .iter()
            .map(|d| {
                e.path()
                    .join("site-packages/nvidia")
                    .join(d)
                    .join("bin/ptxas")
            })
            .find(|p| p.is_file())
    })
}

/// Builds the `coil` binary in release mode and runs `coil run-model ...`.
fn run_model(args: &[String]) -> Result<(), String> {
    run(cargo(&["build", "--release", "--quiet", "-p", "coil-cli"]))?;
    let bin = workspace_root().join("target/release/coil");
    let mut cmd = Command::new(bin);
    cmd.arg("run-model").args(args);
    let status = cmd
        .status()
        .map_err(|e| format!("cannot start coil: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        // coil has already said why; pass its exit code on.
        std::process::exit(status.code().unwrap_or(1));
    }
}

/// Builds the release binaries a GPU machine needs and gathers them with the zoo and the
/// scripts into one folder.
fn gpu_bundle(dir: Option<&str>) -> Result<(), String> {
    let root = workspace_root();
    run(cargo(&["build", "--release", "--quiet", "-p", "coil-cli"]))?;
    run(cargo(&[
        "build",
        "--release",
        "--quiet",
        "-p",
        "coil-cuda",
        "--example",
        "cuda_zoo",
        "--example",
        "gpu_selfcheck",
    ]))?;
    let bundle = dir.map_or_else(|| root.join("gpu-bundle"), PathBuf::from);
    std::fs::create_dir_all(&bundle)
        .map_err(|e| format!("cannot create {}: {e}", bundle.display()))?;
    let copy = |from: &Path, to: &str| -> Result<(), String> {
        let dest = bundle.join(to);
        std::fs::copy(from, &dest)
            .map(|_| ())
            .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), dest.display()))
    };
    for (from, to) in [
        ("target/release/coil", "coil"),
        ("target/release/examples/cuda_zoo", "cuda_zoo"),
        ("target/release/examples/gpu_selfcheck", "gpu_selfcheck"),
        ("tools/run_gpu.sh", "run.sh"),
        ("tools/torch_baseline.py", "torch_baseline.py"),
        ("tools/torch_graph_bench.py", "torch_graph_bench.py"),
        ("tools/torch_reference.py", "torch_reference.py"),
        ("tools/gpu_summary.py", "gpu_summary.py"),
    ] {
        copy(&root.join(from), to)?;
    }
    // Debug symbols are most of a release binary's size; the bundle travels.
    for bin in ["coil", "cuda_zoo", "gpu_selfcheck"] {
        let _ = Command::new("strip").arg(bundle.join(bin)).status();
    }
    copy_dir(
        &root.join("crates/coil-models/models"),
        &bundle.join("models"),
    )?;
    println!(
        "xtask: GPU bundle in {} (run `./run.sh` there on a machine with an NVIDIA GPU and PyTorch)",
        bundle.display()
    );
    Ok(())
}

/// `gpu-bundle/` without its zoo (the repository carries it) as `gpu-carry/bundle.tar.xz`: a
/// release `coil` links LLVM statically and is most of the bundle's 100 MB; compressed, the
/// rest fits a transfer limit of 64 MB beside the repository.
fn pack_gpu_bundle() -> Result<(), String> {
    let root = workspace_root();
    let carry = root.join("gpu-carry");
    std::fs::create_dir_all(&carry)
        .map_err(|e| format!("cannot create {}: {e}", carry.display()))?;
    let tools = ["gpu_compile_bench.sh"];
    for t in tools {
        std::fs::copy(root.join("tools").join(t), root.join("gpu-bundle").join(t))
            .map_err(|e| format!("cannot copy tools/{t}: {e}"))?;
    }
    let out = carry.join("bundle.tar.xz");
    let script = format!(
        "tar -C '{}' --exclude=./models -cf - . | xz -T0 -6 > '{}'",
        root.join("gpu-bundle").display(),
        out.display()
    );
    run({
        let mut c = Command::new("sh");
        c.args(["-c", &script]);
        c
    })?;
    println!(
        "xtask: {} ({} MB); on the GPU machine, carrying gpu-carry:\n  \
         mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu-carry/bundle.tar.xz && \
         ln -s $PWD/crates/coil-models/models /tmp/b/models && /tmp/b/run.sh",
        out.display(),
        std::fs::metadata(&out).map_or(0, |m| m.len() >> 20)
    );
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("cannot read {}: {e}", from.display()))?;
        let path = entry.path();
        let dest = to.join(entry.file_name());
        if path.is_dir() {
            copy_dir(&path, &dest)?;
        } else {
            std::fs::copy(&path, &dest)
                .map_err(|e| format!("cannot copy {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Rewrites expect-test golden text, then runs the tests again to show they pass.
fn bless() -> Result<(), String> {
    let mut cmd = cargo(&["test", "--workspace"]);
    cmd.env("UPDATE_EXPECT", "1");
    run(cmd)?;
    test(&[])
}
