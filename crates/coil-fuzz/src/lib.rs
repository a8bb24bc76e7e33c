//! coil-fuzz: a mutation fuzzer over coil's input, the readable-FX graph text.
//!
//! **Takes**: seed texts (the zoo's models at their tiny and article sizes, and a few small
//! graphs of its own), a random seed and a number of executions or a duration.
//! **Gives**: each mutated text run through [`check`] — parse, then the facade's stages
//! (passes, lowering, scheduling, kernel building, every verifier on, a memory budget) and,
//! for small graphs, coil-eager, the reference evaluator's backend and (now and then) the CPU
//! backend — under `catch_unwind`; a [`Find`] for every panic, minimized by [`minimize`].
//! **Must not know about**: what the stages do inside; it only asks them for errors, which
//! are the expected answer to bad input, never panics.
//!
//! The kernel IR's reader is fuzzed too (`kernels.rs`): mutants of the filetests' kernel
//! texts must read or be rejected with an error, and those that read are evaluated.
//!
//! Mutations: lines deleted, duplicated or swapped; op names swapped for other ops; dtypes
//! swapped; numbers replaced by 0, 1, -1, 2, large, huge and negative values; the text
//! truncated. `cargo xtask fuzz --minutes N` runs it; a bounded, deterministic run is part of
//! `cargo xtask test`; minimized finds become files of `regressions/`, which a test runs.

mod kernels;

pub use kernels::{check_kernel_text, kernel_seeds, mutate_kernel, run_kernels};

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

use coil::Options;
use coil_codegen::{Backend, InterpBackend};
use coil_graph::{DType, Data, Graph, Tensor};

/// Memory budget of every check: inputs, eager's ops and the compiled plan.
const BUDGET: usize = 256 << 20;
/// Graphs whose inputs and buffers total at most this many elements are also run.
const RUN_ELEMENTS: usize = 1 << 14;

/// What a text did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It compiled (and, if small, ran) cleanly.
    Ok,
    /// A stage rejected it with an error (the right answer to bad input).
    Rejected,
    /// Something panicked: the message and where.
    Panic(String),
}

/// A small deterministic generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9e37_79b9_7f4a_7c15)
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.bits() % n as u64) as usize
        }
    }
}

/// Small graphs of the fuzzer's own, beside the zoo (0-d, zero-size and size-1 dims, integer
/// and bool inputs).
const OWN_SEEDS: &[&str] = &[
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[]\", y: \"f32[4, 1]\"):\n        add: \"f32[4, 1]\" = torch.ops.aten.add.Tensor(x, y);  x = y = None\n        sum_1: \"f32[1]\" = torch.ops.aten.sum.dim_IntList(add, [0]);  add = None\n        return (sum_1,)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[0, 3]\", i: \"i64[3]\"):\n        amax: \"f32[3]\" = torch.ops.aten.amax.default(x, [0], False);  x = None\n        mul: \"i64[3]\" = torch.ops.aten.mul.Tensor(i, 2);  i = None\n        return (amax, mul)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[2, 3, 4]\", m: \"b8[2, 3, 4]\"):\n        permute: \"f32[4, 3, 2]\" = torch.ops.aten.permute.default(x, [2, 1, 0]);  x = None\n        clone: \"f32[4, 3, 2]\" = torch.ops.aten.clone.default(permute);  permute = None\n        view: \"f32[24]\" = torch.ops.aten.view.default(clone, [24]);  clone = None\n        argmax: \"i64[]\" = torch.ops.aten.argmax.default(view);  view = None\n        return (argmax, m)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, w: \"f32[5, 3]\", ids: \"i64[2, 2]\", x: \"f32[1, 2, 6, 6]\", k: \"f32[4, 2, 3, 3]\"):\n        emb: \"f32[2, 2, 3]\" = torch.ops.aten.embedding.default(w, ids)\n        cumsum: \"f32[2, 2, 3]\" = torch.ops.aten.cumsum.default(emb, -1)\n        conv: \"f32[1, 4, 6, 6]\" = torch.ops.aten.convolution.default(x, k, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)\n        max_pool2d_with_indices = torch.ops.aten.max_pool2d_with_indices.default(conv, [3, 3], [2, 2], [1, 1])\n        getitem: \"f32[1, 4, 3, 3]\" = max_pool2d_with_indices[0]\n        avg: \"f32[1, 4, 1, 1]\" = torch.ops.aten.avg_pool2d.default(getitem, [3, 3])\n        return (cumsum, avg)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[3, 4]\", i: \"i64[3, 1]\", j: \"i64[2]\"):\n        gather: \"f32[3, 1]\" = torch.ops.aten.gather.default(x, 1, i)\n        index: \"f32[2, 4]\" = torch.ops.aten.index.Tensor(x, [j])\n        flip: \"f32[2, 4]\" = torch.ops.aten.flip.default(index, [0, 1])\n        pad: \"f32[4, 5]\" = torch.ops.aten.constant_pad_nd.default(flip, [0, 1, 1, 1], 0.0)\n        any_1: \"b8[4]\" = torch.ops.aten.any.dim(pad, -1)\n        return (gather, pad, any_1)\n",
];

/// Graphs with symbolic sizes (issue "Dynamic shapes"), as PyTorch prints a dynamic graph: each
/// is bound at several sizes, and on the CPU compiled by the run's one backend, whose machine
/// code is shared across sizes and texts (kernels reused and generalized over sizes), against
/// a compile that makes all its own: the two must agree bit for bit.
const SYMBOLIC_SEEDS: &[&str] = &[
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[s0, 16]\", w: \"f32[16, 8]\"):\n        mean: \"f32[s0, 1]\" = torch.ops.aten.mean.dim(x, [1], True)\n        sub: \"f32[s0, 16]\" = torch.ops.aten.sub.Tensor(x, mean)\n        mm: \"f32[s0, 8]\" = torch.ops.aten.mm.default(sub, w)\n        _softmax: \"f32[s0, 8]\" = torch.ops.aten._softmax.default(mm, -1, False)\n        sum_1: \"f32[8]\" = torch.ops.aten.sum.dim_IntList(mm, [0])\n        return (_softmax, sum_1)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, q: \"f32[2, s0, 4]\", k: \"f32[2, s0, 4]\"):\n        permute: \"f32[2, 4, s0]\" = torch.ops.aten.permute.default(k, [0, 2, 1])\n        bmm: \"f32[2, s0, s0]\" = torch.ops.aten.bmm.default(q, permute)\n        _softmax: \"f32[2, s0, s0]\" = torch.ops.aten._softmax.default(bmm, -1, False)\n        clone: \"f32[2, 4, s0]\" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)\n        sum_1: \"f32[2, s0]\" = torch.ops.aten.sum.dim_IntList(_softmax, [1])\n        return (_softmax, clone, sum_1)\n",
    "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[s0, 3, 5]\", b: \"f32[5]\"):\n        add: \"f32[s0, 3, 5]\" = torch.ops.aten.add.Tensor(x, b)\n        amax: \"f32[s0, 5]\" = torch.ops.aten.amax.default(add, [1])\n        permute: \"f32[5, s0, 3]\" = torch.ops.aten.permute.default(add, [2, 0, 1])\n        clone: \"f32[5, s0, 3]\" = torch.ops.aten.clone.default(permute, memory_format = torch.contiguous_format)\n        cumsum: \"f32[s0, 3, 5]\" = torch.ops.aten.cumsum.default(add, 0)\n        return (amax, clone, cumsum)\n",
];

/// The sizes a symbolic text's symbols are bound to, one after another.
const SYMBOLIC_SIZES: &[i64] = &[3, 7, 12, 5];

/// The seed texts: every zoo model at its tiny and article sizes, the real models, and the
/// fuzzer's own (graphs with symbolic sizes among them).
pub fn seeds() -> Vec<String> {
    let mut out: Vec<String> = OWN_SEEDS.iter().map(|s| s.to_string()).collect();
    out.extend(SYMBOLIC_SEEDS.iter().map(|s| s.to_string()));
    for m in coil_models::MODELS {
        out.push(m.article.to_string());
        if let Some(t) = m.tiny {
            out.push(t.text.to_string());
        }
    }
    out.extend(coil_models::REAL_MODELS.iter().map(|m| m.text.to_string()));
    out
}

const DTYPES: &[&str] = &["f32", "f64", "f16", "bf16", "i64", "i32", "b8"];
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "-2",
    "1024",
    "65536",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "1e308",
    "0.5",
];

/// One mutation of `text`; `ops` are op names (`torch.ops.aten.x.y`) to swap in.
pub fn mutate(text: &str, ops: &[String], rng: &mut Rng) -> String {
    let lines: Vec<&str> = text.lines().collect();
    // Body lines: after the `def forward` line, before the last.
    let body = 2..lines.len().saturating_sub(1).max(2);
    let pick_body = |rng: &mut Rng| body.start + rng.below(body.len().max(1));
    match rng.below(7) {
        0 if body.len() > 1 => {
            let i = pick_body(rng);
            let mut l = lines.clone();
            l.remove(i.min(l.len() - 1));
            l.join("\n") + "\n"
        }
        1 if !body.is_empty() => {
            let i = pick_body(rng).min(lines.len() - 1);
            let mut l = lines.clone();
            l.insert(i, lines[i]);
            l.join("\n") + "\n"
        }
        2 if body.len() > 1 => {
            let (i, j) = (pick_body(rng), pick_body(rng));
            let mut l = lines.clone();
            let n = l.len() - 1;
            l.swap(i.min(n), j.min(n));
            l.join("\n") + "\n"
        }
        3 if !ops.is_empty() => {
            let found: Vec<usize> = text
                .match_indices("torch.ops.aten.")
                .map(|(i, _)| i)
                .collect();
            let Some(&at) = found.get(rng.below(found.len())) else {
                return text.to_string();
            };
            let end = text[at..].find('(').map_or(text.len(), |e| at + e);
            let op = &ops[rng.below(ops.len())];
            format!("{}{op}{}", &text[..at], &text[end..])
        }
        4 => {
            let mut found: Vec<(usize, &str)> = Vec::new();
            for d in DTYPES {
                let pattern = format!("\"{d}[");
                found.extend(text.match_indices(&pattern).map(|(i, _)| (i + 1, *d)));
            }
            let Some(&(at, d)) = found.get(rng.below(found.len())) else {
                return text.to_string();
            };
            let new = DTYPES[rng.below(DTYPES.len())];
            format!("{}{new}{}", &text[..at], &text[at + d.len()..])
        }
        5 => {
            let numbers: Vec<(usize, usize)> = number_spans(text);
            let Some(&(a, b)) = numbers.get(rng.below(numbers.len())) else {
                return text.to_string();
            };
            let new = NUMBERS[rng.below(NUMBERS.len())];
            format!("{}{new}{}", &text[..a], &text[b..])
        }
        _ => {
            let mut cut = rng.below(text.len().max(1));
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text[..cut].to_string()
        }
    }
}

/// Byte spans of the integer literals of `text` (digits not part of a name).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit()
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// The op names (`torch.ops.aten.add.Tensor`) the seeds use.
pub fn op_names(seeds: &[String]) -> Vec<String> {
    let mut ops: Vec<String> = seeds
        .iter()
        .flat_map(|s| {
            s.match_indices("torch.ops.aten.")
                .map(|(i, _)| {
                    let end = s[i..].find('(').map_or(s.len(), |e| i + e);
                    s[i..end].to_string()
                })
                .collect::<Vec<_>>()
        })
        .collect();
    ops.sort();
    ops.dedup();
    ops
}

/// Deterministic inputs of the graph's signature: small floats, small integers, alternating
/// bools.
fn inputs(g: &Graph) -> Option<Vec<Tensor>> {
    g.inputs()
        .iter()
        .enumerate()
        .map(|(k, &id)| {
            let meta = g.node(id).meta();
            let n = meta.numel();
            let values = (0..n).map(|i| ((i * 7 + k * 3) % 11) as f64 / 4.0 - 1.0);
            let data = match meta.dtype {
                DType::Bool => Data::Bool((0..n).map(|i| i % 2 == 0).collect()),
                d if d.is_int() => Data::from_f64(d, (0..n).map(|i| ((i + k) % 5) as f64)),
                d => Data::from_f64(d, values),
            };
            Tensor::new(data, meta.sizes.clone()).ok()
        })
        .collect()
}

/// Runs `text` through every stage; `cpu` also compiles and runs small graphs on the CPU
/// backend (LLVM: slower).
pub fn check(text: &str, cpu: Option<&Arc<dyn Backend>>) -> Outcome {
    quiet_panics();
    let result = catch_unwind(AssertUnwindSafe(|| stages(text, cpu)));
    match result {
        Ok(true) => Outcome::Ok,
        Ok(false) => Outcome::Rejected,
        Err(payload) => Outcome::Panic(panic_message(&*payload)),
    }
}

/// A caught panic's message and where it happened.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "a panic".into());
    let at = LAST_PANIC.with(|l| l.borrow().clone());
    format!("{msg} at {at}")
}

/// `true` when every stage accepted the text.
fn stages(text: &str, cpu: Option<&Arc<dyn Backend>>) -> bool {
    if coil_graph::is_symbolic(text) {
        return symbolic_stages(text, cpu);
    }
    let Ok(g) = coil_graph::parse(text) else {
        return false;
    };
    graph_stages(&g, cpu)
}

/// The names of the size symbols in `text`'s `forward` signature (`s0`, `s27`).
fn symbols(text: &str) -> Vec<String> {
    let Some(sig) = text
        .lines()
        .find(|l| l.trim_start().starts_with("def forward"))
    else {
        return vec![];
    };
    let b = sig.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts =
            b[i] == b's' && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'));
        let mut j = i + 1;
        while starts && j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        let ends = j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_');
        if starts && j > i + 1 && ends {
            out.push(sig[i..j].to_string());
            i = j;
        } else {
            i += 1;
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A text with symbolic sizes: bound at each of [`SYMBOLIC_SIZES`] (every symbol the same
/// size), each binding through every stage; on the CPU, the shared backend's results must equal,
/// bit for bit, those of a compile that makes all its own code (a difference is a find).
fn symbolic_stages(text: &str, cpu: Option<&Arc<dyn Backend>>) -> bool {
    let names = symbols(text);
    for &n in SYMBOLIC_SIZES {
        let mut b = coil_graph::Bindings::new();
        for s in &names {
            b.insert(s, n);
        }
        let Ok(g) = coil_graph::parse_bound(text, &b) else {
            return false;
        };
        if !graph_stages(&g, cpu) {
            return false;
        }
        let Some(shared) = cpu else { continue };
        let Some(ins) = inputs(&g) else { continue };
        let own = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
            threads: 1,
            compile_every_size: true,
            ..Default::default()
        });
        let Ok(own) = own else { continue };
        let own: Arc<dyn Backend> = Arc::new(own);
        let options = Options::default();
        let run = |backend: &Arc<dyn Backend>| {
            coil::compile(&g, backend.clone(), &options)
                .ok()
                .and_then(|m| m.run(&ins).ok())
        };
        if let (Some(a), Some(o)) = (run(shared), run(&own)) {
            let bits = |t: &Tensor| {
                t.to_f64_vec()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect::<Vec<_>>()
            };
            let same = a.len() == o.len() && a.iter().zip(&o).all(|(x, y)| bits(x) == bits(y));
            assert!(
                same,
                "machine code shared across sizes computes other results than the size's own ({b})"
            );
        }
    }
    true
}

/// `true` when every stage accepted the graph.
fn graph_stages(g: &Graph, cpu: Option<&Arc<dyn Backend>>) -> bool {
    let options = Options {
        verify: true,
        max_memory: Some(BUDGET),
        ..Options::default()
    };
    let interp: Arc<dyn Backend> = Arc::new(InterpBackend::new());
    let Ok(prepared) = coil::prepare(g, interp.as_ref(), &options) else {
        return false;
    };
    let elements: usize = g
        .inputs()
        .iter()
        .map(|&i| g.node(i).meta().numel())
        .chain(
            prepared
                .artifacts
                .lowered
                .buffers()
                .iter()
                .map(|b| b.layout.numel()),
        )
        .fold(0, usize::saturating_add);
    if elements > RUN_ELEMENTS {
        return true;
    }
    let Some(ins) = inputs(g) else {
        return false;
    };
    if coil_eager::run_within(g, &ins, BUDGET).is_err() {
        return false;
    }
    let mut backends = vec![interp];
    backends.extend(cpu.cloned());
    for b in backends {
        let Ok(model) = coil::compile(g, b, &options) else {
            return false;
        };
        if model.run(&ins).is_err() {
            return false;
        }
    }
    true
}

thread_local! {
    static LAST_PANIC: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Panics of checked texts are recorded (where they happened), not printed.
fn quiet_panics() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if std::thread::current()
                .name()
                .is_some_and(|n| n.starts_with("coil-fuzz"))
            {
                let at = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                LAST_PANIC.with(|l| *l.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
}

/// The smallest text (by removing lines, then characters from the end of each line) that
/// still panics at the same place as `text`.
pub fn minimize(text: &str, cpu: Option<&Arc<dyn Backend>>) -> String {
    let Outcome::Panic(first) = check(text, cpu) else {
        return text.to_string();
    };
    let place = |m: &str| m.rsplit(" at ").next().unwrap_or_default().to_string();
    let target = place(&first);
    let same = |t: &str| matches!(check(t, cpu), Outcome::Panic(m) if place(&m) == target);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut i = 0;
    while i < lines.len() {
        let mut fewer = lines.clone();
        fewer.remove(i);
        if same(&(fewer.join("\n") + "\n")) {
            lines = fewer;
        } else {
            i += 1;
        }
    }
    lines.join("\n") + "\n"
}

/// A panic found: the minimized text and the message.
#[derive(Clone, Debug)]
pub struct Find {
    /// The smallest text that panics at the same place.
    pub text: String,
    /// The panic's message and location.
    pub message: String,
}

/// What a run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Texts checked.
    pub executions: usize,
    /// Accepted by every stage.
    pub accepted: usize,
    /// Rejected with an error.
    pub rejected: usize,
    /// Panics, one per place.
    pub finds: Vec<Find>,
}

/// Runs the fuzzer from `seed` for `executions` texts or until `duration` has passed,
/// whichever comes first; every `cpu_every`-th small graph also goes through the CPU backend.
/// Runs on a thread named `coil-fuzz` (its panics are recorded, not printed).
pub fn run(seed: u64, executions: usize, duration: Duration, cpu_every: usize) -> Report {
    run_with(Vec::new(), seed, executions, duration, cpu_every)
}

/// [`run`] with `extra` seed texts beside [`seeds`] (random graphs from coil-testkit, in the
/// fuzzer's tests; the testkit is a dev-dependency, so the binary has only the zoo's).
pub fn run_with(
    extra: Vec<String>,
    seed: u64,
    executions: usize,
    duration: Duration,
    cpu_every: usize,
) -> Report {
    let handle = std::thread::Builder::new()
        .name("coil-fuzz".into())
        .stack_size(64 << 20)
        .spawn(move || fuzz(extra, seed, executions, duration, cpu_every))
        .expect("the fuzzer's thread starts");
    handle.join().unwrap_or_default()
}

fn fuzz(
    extra: Vec<String>,
    seed: u64,
    executions: usize,
    duration: Duration,
    cpu_every: usize,
) -> Report {
    let mut seeds = seeds();
    seeds.extend(extra);
    let ops = op_names(&seeds);
    let cpu: Option<Arc<dyn Backend>> = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
        threads: 1,
        ..Default::default()
    })
    .ok()
    .map(|b| Arc::new(b) as Arc<dyn Backend>);
    let mut rng = Rng::new(seed);
    let mut report = Report::default();
    let start = Instant::now();
    let mut places: Vec<String> = Vec::new();
    while report.executions < executions && start.elapsed() < duration {
        let mut text = seeds[rng.below(seeds.len())].clone();
        for _ in 0..1 + rng.below(3) {
            text = mutate(&text, &ops, &mut rng);
        }
        let with_cpu = (cpu_every > 0 && report.executions % cpu_every == 0)
            .then_some(())
            .and(cpu.as_ref());
        report.executions += 1;
        match check(&text, with_cpu) {
            Outcome::Ok => report.accepted += 1,
            Outcome::Rejected => report.rejected += 1,
            Outcome::Panic(message) => {
                let place = message
                    .rsplit(" at ")
                    .next()
                    .unwrap_or_default()
                    .to_string();
                if !places.contains(&place) {
                    places.push(place);
                    let text = minimize(&text, with_cpu);
                    report.finds.push(Find { text, message });
                }
            }
        }
    }
    report
}
