//! Exports `COIL_CODE_LOADER_HASH`: a hash of the source that turns PTX into cubins
//! (`src/jit.rs`: the linker and its options), part of every compile-cache key, so an entry
//! written by a build that made cubins otherwise is never loaded by this one.

use std::hash::{Hash, Hasher};

fn main() {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    println!("cargo:rerun-if-changed=src/jit.rs");
    std::fs::read("src/jit.rs").unwrap_or_default().hash(&mut h);
    println!("cargo:rustc-env=COIL_CODE_LOADER_HASH={:016x}", h.finish());
}
