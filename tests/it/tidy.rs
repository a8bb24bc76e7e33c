//! Tidiness rules the whole repository keeps (rust-analyzer style): every Rust file says what
//! it is for, every crate uses the workspace lints, every library says what it takes, gives,
//! and must not know about.

use coil_tests::{files_with_suffix, repo_root};

#[test]
fn every_rust_file_opens_with_a_doc_line() {
    let root = repo_root();
    let mut missing = Vec::new();
    for dir in ["crates", "examples", "xtask", "benches", "tests"] {
        for f in files_with_suffix(&root.join(dir), ".rs") {
            let text = std::fs::read_to_string(&f).expect("readable");
            if !text.trim_start().starts_with("//!") {
                missing.push(f.strip_prefix(&root).unwrap_or(&f).display().to_string());
            }
        }
    }
    assert!(
        missing.is_empty(),
        "files without a leading //! line: {missing:#?}"
    );
}

#[test]
fn every_crate_uses_the_workspace_lints() {
    let root = repo_root();
    for f in files_with_suffix(&root, "Cargo.toml") {
        if f == root.join("Cargo.toml") {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("readable");
        assert!(
            text.contains("[lints]\nworkspace = true"),
            "{} lacks [lints] workspace = true",
            f.display()
        );
    }
}

#[test]
fn every_library_states_its_contract() {
    let root = repo_root();
    let libs = files_with_suffix(&root.join("crates"), "lib.rs")
        .into_iter()
        .chain(files_with_suffix(&root.join("examples"), "lib.rs"));
    for f in libs {
        let text = std::fs::read_to_string(&f).expect("readable");
        let head: String = text
            .lines()
            .take_while(|l| l.starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        for word in ["**Takes**", "**Gives**", "**Must not know about**"] {
            assert!(
                head.contains(word),
                "{}: the crate doc should say {word}",
                f.display()
            );
        }
    }
}

#[test]
fn nothing_reads_the_shared_folder() {
    let root = repo_root();
    for dir in ["crates", "examples", "xtask", "benches", "tests", "tools"] {
        for suffix in [".rs", ".py", ".toml"] {
            for f in files_with_suffix(&root.join(dir), suffix) {
                let text = std::fs::read_to_string(&f).expect("readable");
                let needle = ["..", "/shared"].concat();
                assert!(
                    !text.contains(&needle),
                    "{} refers to the read-only shared folder",
                    f.display()
                );
            }
        }
    }
}

/// Source files may exceed this many lines only when `docs/architecture.md` lists them under
/// "Files over 800 lines" with the reason.
const LONG_FILE_LINES: usize = 800;

#[test]
fn long_source_files_are_listed_with_a_reason() {
    let root = repo_root();
    let arch = std::fs::read_to_string(root.join("docs/architecture.md")).expect("readable");
    let listed = arch
        .split("## Files over 800 lines")
        .nth(1)
        .expect("docs/architecture.md has a 'Files over 800 lines' section");
    let listed = listed.split("\n## ").next().unwrap_or(listed);
    let mut unlisted = Vec::new();
    for dir in ["crates", "examples"] {
        for f in files_with_suffix(&root.join(dir), ".rs") {
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            if !rel.contains("/src/") {
                continue;
            }
            let lines = std::fs::read_to_string(&f)
                .expect("readable")
                .lines()
                .count();
            if lines > LONG_FILE_LINES && !listed.contains(&format!("`{rel}`")) {
                unlisted.push(format!("{rel} ({lines} lines)"));
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "source files over {LONG_FILE_LINES} lines missing from docs/architecture.md's list: {unlisted:#?}"
    );
}
