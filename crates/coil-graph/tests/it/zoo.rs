//! Test helpers: the model zoo read from disk, and small graph texts.

use std::path::PathBuf;

/// Every `*.py` of `coil-models/models/`, `tiny/` and `large/`, as (relative path, text),
/// sorted by path.
pub(crate) fn zoo_files() -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../coil-models/models");
    let mut files = Vec::new();
    for dir in ["", "tiny", "large"] {
        let entries = std::fs::read_dir(root.join(dir)).expect("the zoo directory exists");
        for entry in entries {
            let path = entry.expect("readable directory entry").path();
            if path.extension().is_some_and(|e| e == "py") {
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                let rel = if dir.is_empty() {
                    name
                } else {
                    format!("{dir}/{name}")
                };
                let text = std::fs::read_to_string(&path).expect("readable zoo file");
                files.push((rel, text));
            }
        }
    }
    files.sort();
    files
}

/// The text without its comment lines (`# No stacktrace found for following nodes`), which
/// the printer cannot know about.
pub(crate) fn strip_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// A module around body lines: line 1 is the class line, line 2 the `def` with `params`
/// (written after `self`, e.g. `, x: "f32[4]"`), and body line `i` is line `i + 3`, indented
/// by 8 spaces (its first character is at column 9).
pub(crate) fn module(params: &str, body: &[&str]) -> String {
    let mut s = format!("class GraphModule(torch.nn.Module):\n    def forward(self{params}):\n");
    for line in body {
        s.push_str("        ");
        s.push_str(line);
        s.push('\n');
    }
    s
}
