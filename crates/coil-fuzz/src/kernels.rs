//! The kernel-text half of the fuzzer: mutants of kernel IR text (the filetests' `.kir`
//! files) read by coil-kernel's reader and, when they read and verify, run on the reference
//! evaluator over zeroed buffers. A malformed text must be an error with its line and column;
//! nothing may panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use coil_kernel::{Op, eval_kernel, parse_kernels};

use crate::{Outcome, Report, Rng};

/// Kernels whose buffers hold at most this many elements in all are also evaluated.
const EVAL_ELEMENTS: usize = 1 << 14;

/// The seed texts: every `.kir` file of coil-filetests that holds kernels.
pub fn kernel_seeds() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../coil-filetests/kir");
    let mut out: Vec<(std::path::PathBuf, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "kir"))
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .filter(|(_, t)| t.contains("\nkernel "))
        .collect();
    out.sort();
    out.into_iter().map(|(_, t)| t).collect()
}

const OPS: &[Op] = &[
    Op::Neg,
    Op::Exp,
    Op::Log,
    Op::Sqrt,
    Op::Add,
    Op::Mul,
    Op::TrueDiv,
    Op::FloorDiv,
    Op::Pow,
    Op::Maximum,
    Op::Eq,
    Op::Where,
    Op::LogicalNot,
];
const DTYPES: &[&str] = &["f32", "f64", "f16", "bf16", "i64", "i32", "b8"];
const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "7",
    "4294967296",
    "9223372036854775807",
    "nan",
    "inf",
    "v0",
    "v999",
    "acc0",
    "arg0",
    "arg9",
    "p0",
    "p5",
    "ind0",
    "(",
    ")",
    "[",
    "]",
    ",",
    "//",
    "ModularIndexing(p0, 0, 0)",
    "reduction loop:",
    "outer:",
];

/// One mutation of a kernel text.
pub fn mutate_kernel(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if lines.is_empty() {
        return String::new();
    }
    let i = rng.below(lines.len());
    match rng.below(8) {
        0 => {
            lines.remove(i);
        }
        1 => {
            let l = lines[i].clone();
            lines.insert(rng.below(lines.len() + 1), l);
        }
        2 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        3 => {
            // A word replaced by a token, a dtype or an op name.
            let words: Vec<&str> = lines[i].split(' ').collect();
            let w = rng.below(words.len());
            let new = match rng.below(3) {
                0 => TOKENS[rng.below(TOKENS.len())].to_string(),
                1 => DTYPES[rng.below(DTYPES.len())].to_string(),
                _ => format!("{}(v0)", OPS[rng.below(OPS.len())].name()),
            };
            let mut words: Vec<String> = words.iter().map(|s| s.to_string()).collect();
            words[w] = new;
            lines[i] = words.join(" ");
        }
        4 => {
            // A character deleted.
            let l = &lines[i];
            if !l.is_empty() {
                let at = rng.below(l.chars().count());
                lines[i] = l
                    .chars()
                    .enumerate()
                    .filter(|(k, _)| *k != at)
                    .map(|(_, c)| c)
                    .collect();
            }
        }
        5 => {
            // Digits replaced.
            lines[i] = lines[i]
                .chars()
                .map(|c| {
                    if c.is_ascii_digit() && rng.below(3) == 0 {
                        char::from(b'0' + rng.below(10) as u8)
                    } else {
                        c
                    }
                })
                .collect();
        }
        6 => lines.truncate(i),
        _ => {
            let l = lines[i].clone();
            let cut = rng.below(l.len() + 1);
            lines[i] = l.get(..cut).unwrap_or(&l).to_string();
        }
    }
    lines.join("\n") + "\n"
}

/// Reads `text` and, if it reads, evaluates its kernels on zeroed buffers, under
/// `catch_unwind`.
pub fn check_kernel_text(text: &str) -> Outcome {
    crate::quiet_panics();
    let result = catch_unwind(AssertUnwindSafe(|| match parse_kernels(text) {
        Err(_) => false,
        Ok(kernels) => {
            for k in &kernels {
                let elements: usize = k.args.iter().map(|a| a.len).sum();
                if elements > EVAL_ELEMENTS {
                    continue;
                }
                let mut bufs: Vec<Vec<u8>> = k
                    .args
                    .iter()
                    .map(|a| vec![0u8; a.len * a.dtype.itemsize()])
                    .collect();
                // An error (integer division by zero, say) is an answer too.
                let _ = eval_kernel(k, &mut bufs);
            }
            true
        }
    }));
    match result {
        Ok(true) => Outcome::Ok,
        Ok(false) => Outcome::Rejected,
        Err(payload) => Outcome::Panic(crate::panic_message(&*payload)),
    }
}

/// Mutates the kernel seeds from `seed` for `executions` texts or `duration`, on a thread
/// named `coil-fuzz`; every panic is a find (the text as mutated, not minimized).
pub fn run_kernels(seed: u64, executions: usize, duration: Duration) -> Report {
    let handle = std::thread::Builder::new()
        .name("coil-fuzz-kernels".into())
        .spawn(move || {
            let seeds = kernel_seeds();
            let mut rng = Rng::new(seed);
            let mut report = Report::default();
            let start = Instant::now();
            while report.executions < executions && start.elapsed() < duration && !seeds.is_empty()
            {
                let mut text = seeds[rng.below(seeds.len())].clone();
                for _ in 0..1 + rng.below(3) {
                    text = mutate_kernel(&text, &mut rng);
                }
                report.executions += 1;
                match check_kernel_text(&text) {
                    Outcome::Ok => report.accepted += 1,
                    Outcome::Rejected => report.rejected += 1,
                    Outcome::Panic(message) => {
                        if !report.finds.iter().any(|f| f.message == message) {
                            report.finds.push(crate::Find { text, message });
                        }
                    }
                }
            }
            report
        })
        .expect("the fuzzer's thread starts");
    handle.join().unwrap_or_default()
}
