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

const HELP: &str = "\
cargo xtask <command>

commands:
  setup                 install what coil needs to build (LLVM 19 from Debian) when missing
  test [ARGS...]        set up, then run every test of the workspace (ARGS go to cargo test)
  run-model ARGS...     set up, then build (release) and run `coil run-model ARGS...`;
                        `cargo xtask run-model --help` lists the options
  bless                 rewrite golden files (expect-test) from the current output, then test
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("setup") => setup(),
        Some("test") => setup().and_then(|()| test(&args[1..])),
        Some("run-model") => setup().and_then(|()| run_model(&args[1..])),
        Some("bless") => setup().and_then(|()| bless()),
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

/// Installs LLVM 19 (and the libraries llvm-sys links) from Debian when missing.
fn setup() -> Result<(), String> {
    if llvm_installed() {
        return Ok(());
    }
    eprintln!(
        "xtask: LLVM 19 is missing; installing {} from Debian (one time, a few minutes)",
        LLVM_PACKAGES.join(" ")
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
    run(apt(&["update", "-q"]))?;
    let mut install = vec!["install", "-y", "-q", "--no-install-recommends"];
    install.extend_from_slice(LLVM_PACKAGES);
    run(apt(&install))?;
    if !llvm_installed() {
        return Err(format!(
            "apt-get finished but {LLVM_PREFIX} still lacks llvm-config or libPolly"
        ));
    }
    Ok(())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(false)
}

/// Runs every test of the workspace (unit, integration, doc tests).
fn test(extra: &[String]) -> Result<(), String> {
    let mut args = vec!["test", "--workspace"];
    args.extend(extra.iter().map(String::as_str));
    run(cargo(&args))
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

/// Rewrites expect-test golden text, then runs the tests again to show they pass.
fn bless() -> Result<(), String> {
    let mut cmd = cargo(&["test", "--workspace"]);
    cmd.env("UPDATE_EXPECT", "1");
    run(cmd)?;
    test(&[])
}
