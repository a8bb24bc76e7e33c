//! The architecture invariants of `docs/architecture.md` that a test can check: dependencies
//! point down the pipeline only, coil-testkit is only ever a dev-dependency and knows no
//! backend, and nothing below the CLI reads the environment, prints or starts a process (the
//! facade may start Graphviz for the debug directory's picture).

use coil_tests::{files_with_suffix, repo_root};

/// Each library crate and the workspace crates its `[dependencies]` may name.
const ALLOWED: &[(&str, &[&str])] = &[
    // The backend boundary: below everything, so a backend needs nothing else.
    ("coil-kernel", &[]),
    ("coil-graph", &["coil-kernel"]),
    ("coil-eager", &["coil-kernel", "coil-graph"]),
    ("coil-passes", &["coil-kernel", "coil-graph", "coil-eager"]),
    // Host fallbacks run one op through the reference interpreter.
    ("coil-lower", &["coil-kernel", "coil-graph", "coil-eager"]),
    ("coil-sched", &["coil-kernel", "coil-graph", "coil-lower"]),
    (
        "coil-codegen",
        &["coil-kernel", "coil-graph", "coil-lower", "coil-sched"],
    ),
    (
        "coil-cpu",
        &[
            "coil-kernel",
            "coil-graph",
            "coil-lower",
            "coil-sched",
            "coil-codegen",
            "coil-cache",
        ],
    ),
    ("coil-ptx", &["coil-kernel", "coil-graph"]),
    (
        "coil-cuda",
        &[
            "coil-kernel",
            "coil-graph",
            "coil-lower",
            "coil-sched",
            "coil-codegen",
            "coil-ptx",
            "coil-cache",
        ],
    ),
    (
        "coil",
        &[
            "coil-kernel",
            "coil-graph",
            "coil-passes",
            "coil-lower",
            "coil-sched",
            "coil-codegen",
            // The whole program's compile-cache entry (`Options::cache`).
            "coil-cache",
        ],
    ),
    ("coil-models", &["coil-kernel", "coil-graph"]),
    (
        "coil-testkit",
        &[
            "coil-kernel",
            "coil-graph",
            "coil",
            "coil-codegen",
            "coil-sched",
            "coil-eager",
            "coil-models",
        ],
    ),
    // Backends stand on the boundary alone.
    ("coil-backend-c", &["coil-kernel"]),
    // The compile cache stores bytes: it depends on no stage.
    ("coil-cache", &[]),
    ("coil-filetests", &["coil-kernel"]),
];

/// The package name and the workspace crates (`coil*`) of a manifest's `[dependencies]`.
fn dependencies(manifest: &str) -> (String, Vec<String>) {
    let mut name = String::new();
    let mut deps = Vec::new();
    let mut section = "";
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if section == "[package]" && line.starts_with("name") {
            name = line.split('"').nth(1).unwrap_or_default().to_string();
        }
        if section == "[dependencies]" && line.starts_with("coil") {
            let dep = line.split(['.', '=', ' ']).next().unwrap_or_default();
            deps.push(dep.to_string());
        }
    }
    (name, deps)
}

#[test]
fn dependencies_point_down_the_pipeline() {
    let root = repo_root();
    let mut seen = Vec::new();
    for dir in ["crates", "examples"] {
        for f in files_with_suffix(&root.join(dir), "Cargo.toml") {
            let (name, deps) = dependencies(&std::fs::read_to_string(&f).expect("readable"));
            if name == "coil-cli" || name == "coil-fuzz" {
                continue; // the commands may use every crate
            }
            let Some((_, allowed)) = ALLOWED.iter().find(|(n, _)| *n == name) else {
                panic!("{name} ({}) is not in this test's table", f.display());
            };
            for d in &deps {
                assert!(
                    allowed.contains(&d.as_str()),
                    "{name} depends on {d}, which is not below it in the pipeline"
                );
            }
            seen.push(name);
        }
    }
    assert!(seen.len() >= ALLOWED.len(), "{seen:?}");
}

#[test]
fn the_testkit_is_only_a_dev_dependency() {
    let root = repo_root();
    for f in files_with_suffix(&root, "Cargo.toml") {
        let (name, deps) = dependencies(&std::fs::read_to_string(&f).expect("readable"));
        assert!(
            !deps.iter().any(|d| d == "coil-testkit"),
            "{name} has coil-testkit among its [dependencies]"
        );
    }
}

#[test]
fn nothing_below_the_cli_reads_the_environment_prints_or_starts_processes() {
    let root = repo_root();
    let mut found = Vec::new();
    for dir in ["crates", "examples"] {
        for f in files_with_suffix(&root.join(dir), ".rs") {
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            // Binaries, tests and examples are above the libraries. The compile cache's
            // settings are environment variables, read by `Cache::from_env` alone, which only
            // the CLI and the Python module call (backends are handed a cache).
            if !rel.contains("/src/")
                || rel.starts_with("crates/coil-cli/")
                || rel == "crates/coil-cache/src/lib.rs"
                || rel == "crates/coil-fuzz/src/main.rs"
            {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("readable");
            for (i, line) in text.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                let env = code.contains("env::var") || code.contains("env::args");
                let print = ["println!(", "eprintln!(", "print!(", "eprint!("]
                    .iter()
                    .any(|p| code.contains(p));
                // The facade starts Graphviz's `dot` for the debug directory's picture, and
                // the C backend example its C compiler: both are what they are for.
                let process = code.contains("Command::new")
                    && !rel.starts_with("crates/coil/src/")
                    && !rel.starts_with("examples/c-backend/");
                if env || print || process {
                    found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
