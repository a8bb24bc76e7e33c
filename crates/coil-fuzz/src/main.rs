//! `coil-fuzz`: runs the mutation fuzzer (`cargo xtask fuzz --minutes N` starts it) and writes
//! each minimized find to `fuzz-finds/` for a regression test.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::process::ExitCode;
use std::time::Duration;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut minutes = 1.0f64;
    let mut seed = 0u64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let value = it.next().and_then(|v| v.parse::<f64>().ok());
        match (a.as_str(), value) {
            ("--minutes", Some(v)) => minutes = v,
            ("--seed", Some(v)) => seed = v as u64,
            _ => {
                eprintln!("usage: coil-fuzz [--minutes N] [--seed S]");
                return ExitCode::from(2);
            }
        }
    }
    // Nine tenths of the time on graph texts, one tenth on kernel texts.
    let mut report = coil_fuzz::run(
        seed,
        usize::MAX,
        Duration::from_secs_f64(minutes * 54.0),
        25,
    );
    let kernels = coil_fuzz::run_kernels(seed, usize::MAX, Duration::from_secs_f64(minutes * 6.0));
    println!(
        "coil-fuzz: {} graph texts ({} accepted, {} rejected with an error), {} kernel texts ({} read, {} rejected), {} panics",
        report.executions,
        report.accepted,
        report.rejected,
        kernels.executions,
        kernels.accepted,
        kernels.rejected,
        report.finds.len() + kernels.finds.len()
    );
    report.finds.extend(kernels.finds);
    if report.finds.is_empty() {
        return ExitCode::SUCCESS;
    }
    let dir = std::path::Path::new("fuzz-finds");
    let _ = std::fs::create_dir_all(dir);
    for (i, f) in report.finds.iter().enumerate() {
        let path = dir.join(format!("find_{seed}_{i}.py"));
        let text = format!("# {}\n{}", f.message.replace('\n', " "), f.text);
        match std::fs::write(&path, text) {
            Ok(()) => println!("  {}: {}", path.display(), f.message),
            Err(e) => eprintln!("  {}: {e}", path.display()),
        }
    }
    ExitCode::FAILURE
}
