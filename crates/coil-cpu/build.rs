//! Exports `COIL_CODE_LOADER_HASH`: a hash of the sources that turn optimised IR into loaded
//! machine code (`src/jit.rs`, `src/orc.rs`), part of every compile-cache key, so an entry
//! written by a build that emitted or linked objects otherwise is never loaded by this one.

use std::hash::{Hash, Hasher};

fn main() {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for f in ["src/jit.rs", "src/orc.rs"] {
        println!("cargo:rerun-if-changed={f}");
        std::fs::read(f).unwrap_or_default().hash(&mut h);
    }
    println!("cargo:rustc-env=COIL_CODE_LOADER_HASH={:016x}", h.finish());
}
