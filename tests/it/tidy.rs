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

/// `tools/README.md` gives every script (and folder) of `tools/` a line.
#[test]
fn every_tool_has_a_line_in_its_readme() {
    let root = repo_root();
    let readme = std::fs::read_to_string(root.join("tools/README.md")).expect("tools/README.md");
    let mut missing = Vec::new();
    for e in std::fs::read_dir(root.join("tools"))
        .expect("tools/")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == "README.md" || name.starts_with('.') || name == "__pycache__" {
            continue;
        }
        let shown = if e.path().is_dir() {
            format!("`{name}/`")
        } else {
            format!("`{name}`")
        };
        if !readme.contains(&format!("- {shown}")) {
            missing.push(name);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "tools without a line in tools/README.md: {missing:#?}"
    );
}

/// The section of `docs/architecture.md` that names every source file with its opening doc
/// line.
const EVERY_FILE: &str = "## Every source file";

/// `docs/architecture.md` names every source file (`src/` of the crates, the examples and the
/// Python package's native module) with what its `//!` opening says, so a file that moves or
/// appears cannot go unmentioned. `UPDATE_EXPECT=1` (`cargo xtask bless`) rewrites the list.
#[test]
fn architecture_names_every_source_file() {
    let root = repo_root();
    let path = root.join("docs/architecture.md");
    let arch = std::fs::read_to_string(&path).expect("readable");
    let mut want = String::from(
        "Generated from each file's opening doc comment by the tidy test\n\
         `architecture_names_every_source_file` (`cargo xtask bless` rewrites it).\n\n",
    );
    for dir in ["crates", "examples", "python/src"] {
        for f in files_with_suffix(&root.join(dir), ".rs") {
            let rel = f.strip_prefix(&root).unwrap_or(&f).display().to_string();
            if !rel.contains("/src/") && !rel.starts_with("python/src/") {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("readable");
            want.push_str(&format!("- `{rel}`: {}\n", opening(&text)));
        }
    }
    let start = arch
        .find(EVERY_FILE)
        .map(|i| i + EVERY_FILE.len() + 2)
        .unwrap_or(arch.len());
    let end = arch[start.min(arch.len())..]
        .find("\n## ")
        .map_or(arch.len(), |i| start + i + 1);
    let have = arch.get(start..end).unwrap_or("");
    if have == want {
        return;
    }
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        let mut text = if arch.contains(EVERY_FILE) {
            arch[..start].to_string()
        } else {
            format!("{}\n{EVERY_FILE}\n\n", arch.trim_end())
        };
        text.push_str(&want);
        text.push_str(arch.get(end..).unwrap_or(""));
        std::fs::write(&path, text).expect("writable");
        return;
    }
    let have_lines: std::collections::BTreeSet<&str> = have.lines().collect();
    let stale: Vec<&str> = want.lines().filter(|l| !have_lines.contains(l)).collect();
    panic!(
        "docs/architecture.md's '{EVERY_FILE}' is out of date (run `cargo xtask bless`); \
         lines to add or change: {stale:#?}"
    );
}

/// A file's opening doc comment up to its first sentence's end (or blank doc line).
fn opening(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let Some(doc) = line.trim_start().strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(doc);
        if doc.ends_with('.') || doc.ends_with(':') {
            break;
        }
    }
    out
}
