//! Exports `COIL_SOURCE_HASH`: a hash of the workspace's library sources (`crates/*/src`) and
//! `Cargo.lock`, part of the whole-program compile-cache key (`program_cache.rs`), so that a
//! program cached by a build of other code (a new lowering, a new memory plan) is never loaded
//! by this one, though both call themselves the same version.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        for c in crates.flatten() {
            let src = c.path().join("src");
            println!("cargo:rerun-if-changed={}", src.display());
            sources(&src, &mut files);
        }
    }
    files.push(root.join("Cargo.lock"));
    println!(
        "cargo:rerun-if-changed={}",
        root.join("Cargo.lock").display()
    );
    files.sort();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in &files {
        f.strip_prefix(&root).unwrap_or(f).hash(&mut h);
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    println!("cargo:rustc-env=COIL_SOURCE_HASH={:016x}", h.finish());
}
