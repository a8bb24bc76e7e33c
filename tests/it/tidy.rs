//! Tidiness rules the whole repository keeps (rust-analyzer style): every Rust file says what
//! it is for, every crate uses the workspace lints, every library says what it takes, gives,
//! and must not know about.

use coil_tests::{files_with_suffix, repo_root};

#[test]
fn every_rust_file_opens_with_a_doc_line() {
    let root = repo_root();
    let mut missing = Vec::new();
    for dir in ["crates", "xtask", "benches", "tests"] {
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
    for f in files_with_suffix(&root.join("crates"), "lib.rs") {
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
    for dir in ["crates", "xtask", "benches", "tests", "tools"] {
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
