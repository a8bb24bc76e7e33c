//! coil-cache: the persistent compile cache, a directory of content-addressed entries.
//!
//! **Takes**: a [`Key`] built from every part that changes a compiled result (a
//! [`KeyBuilder`] of named parts: the source text, the target, the options, coil's version)
//! and the bytes of the result (machine code: cubins, object code).
//! **Gives**: [`Cache::get`] (a hit, a miss, off, or a corrupt entry detected and removed),
//! [`Cache::put`], [`Cache::stats`] and [`Cache::clear`] for `coil cache`.
//! **Must not know about**: what the bytes are; graphs, kernels, devices.
//!
//! Safety, as the compile cache promises it:
//! - an entry is written to a file of its own beside its place and renamed into it, so two
//!   processes writing the same entry each leave a whole one and a reader never sees half;
//! - every entry carries its length and the SHA-256 of its bytes: a truncated or corrupted
//!   one is reported once (a warning at target `cache`), removed and recompiled by the
//!   caller, never returned;
//! - a directory that cannot be written (read-only, full) is a warning, not an error: the
//!   compile goes on without the cache;
//! - after a write, entries least recently used (read or written) are removed until the
//!   directory holds at most the cap.
//!
//! Where it lives: `COIL_CACHE_DIR`, else `$XDG_CACHE_HOME/coil`, else `~/.cache/coil`;
//! `COIL_CACHE=0` turns it off; `COIL_CACHE_MAX_MB` caps it (default 1024).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

/// The default size cap in bytes (1 GiB).
pub const DEFAULT_CAP_BYTES: u64 = 1 << 30;

const MAGIC: &[u8; 8] = b"COILC01\n";
const HEADER: usize = 8 + 32 + 8;

/// A cache key: the SHA-256 of a [`KeyBuilder`]'s parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Key {
    /// The key in hexadecimal (an entry's file name).
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// Builds a [`Key`] from named parts. Each part is length-prefixed, so no two sequences of
/// parts give the same bytes.
#[derive(Clone, Debug, Default)]
pub struct KeyBuilder(Sha256);

impl KeyBuilder {
    /// A key of no parts yet.
    pub fn new() -> Self {
        KeyBuilder(Sha256::new())
    }

    /// Adds a part `name` with value `value`.
    pub fn part(mut self, name: &str, value: impl AsRef<[u8]>) -> Self {
        let value = value.as_ref();
        for piece in [name.as_bytes(), value] {
            self.0.update((piece.len() as u64).to_le_bytes());
            self.0.update(piece);
        }
        self
    }

    /// The key.
    pub fn finish(self) -> Key {
        Key(self.0.finalize().into())
    }
}

/// What a lookup found.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The entry's bytes.
    Hit(Vec<u8>),
    /// No entry.
    Miss,
    /// An entry failed its check (truncated, corrupted): it was removed.
    Corrupt,
    /// The cache is off.
    Off,
}

impl Lookup {
    /// `"hit"`, `"miss"` (a corrupt entry is a miss) or `"off"`, as reports give it.
    pub fn word(&self) -> &'static str {
        match self {
            Lookup::Hit(_) => "hit",
            Lookup::Miss | Lookup::Corrupt => "miss",
            Lookup::Off => "off",
        }
    }
}

/// What the cache directory holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// The directory.
    pub dir: PathBuf,
    /// Entries.
    pub entries: u64,
    /// Their bytes.
    pub bytes: u64,
    /// The size cap.
    pub cap_bytes: u64,
}

/// A persistent cache in a directory (or off).
#[derive(Debug)]
pub struct Cache {
    dir: Option<PathBuf>,
    cap_bytes: u64,
    warned_write: AtomicBool,
    warned_corrupt: AtomicBool,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Cache {
    /// The cache the environment describes (see the crate's docs).
    pub fn from_env() -> Cache {
        if std::env::var("COIL_CACHE").is_ok_and(|v| v == "0" || v.eq_ignore_ascii_case("off")) {
            return Cache::off();
        }
        let cap = std::env::var("COIL_CACHE_MAX_MB")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(DEFAULT_CAP_BYTES, |mb| mb << 20);
        match default_dir() {
            Some(dir) => Cache::at(dir, cap),
            None => Cache::off(),
        }
    }

    /// A cache in `dir` holding at most `cap_bytes`.
    pub fn at(dir: impl Into<PathBuf>, cap_bytes: u64) -> Cache {
        Cache {
            dir: Some(dir.into()),
            cap_bytes,
            warned_write: AtomicBool::new(false),
            warned_corrupt: AtomicBool::new(false),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// A cache that holds nothing.
    pub fn off() -> Cache {
        Cache {
            dir: None,
            ..Cache::at(PathBuf::new(), 0)
        }
    }

    /// Whether the cache is on.
    pub fn is_on(&self) -> bool {
        self.dir.is_some()
    }

    /// The directory (None when off).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Hits and misses of this process's lookups so far.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    fn path(&self, namespace: &str, key: &Key) -> Option<PathBuf> {
        let hex = key.hex();
        Some(
            self.dir
                .as_ref()?
                .join(namespace)
                .join(&hex[..2])
                .join(format!("{hex}.bin")),
        )
    }

    /// The entry `key` of `namespace` (`cubin`, `object`).
    pub fn get(&self, namespace: &str, key: &Key) -> Lookup {
        let Some(path) = self.path(namespace, key) else {
            return Lookup::Off;
        };
        let bytes = match fs::read(&path) {
            Ok(b) => b,
            Err(_) => {
                self.misses.fetch_add(1, Ordering::Relaxed);
                return Lookup::Miss;
            }
        };
        match check(&bytes) {
            Some(payload) => {
                // Least recently used means read too: a hit is a use.
                if let Ok(f) = fs::File::options().write(true).open(&path) {
                    let _ = f.set_modified(SystemTime::now());
                }
                self.hits.fetch_add(1, Ordering::Relaxed);
                Lookup::Hit(payload.to_vec())
            }
            None => {
                if !self.warned_corrupt.swap(true, Ordering::Relaxed) {
                    tracing::warn!(target: "cache", path = %path.display(), "a corrupt compile-cache entry: removed, recompiling");
                }
                let _ = fs::remove_file(&path);
                self.misses.fetch_add(1, Ordering::Relaxed);
                Lookup::Corrupt
            }
        }
    }

    /// Stores `bytes` as entry `key` of `namespace`, then evicts down to the cap. A failure
    /// to write is a warning (once) and leaves the cache as it was.
    pub fn put(&self, namespace: &str, key: &Key, bytes: &[u8]) {
        let Some(path) = self.path(namespace, key) else {
            return;
        };
        if let Err(e) = write_entry(&path, bytes) {
            if !self.warned_write.swap(true, Ordering::Relaxed) {
                tracing::warn!(target: "cache", dir = %path.display(), %e, "the compile cache cannot be written: compiling without it");
            }
            return;
        }
        self.evict();
    }

    /// Removes entries least recently used first until at most the cap is held.
    pub fn evict(&self) {
        let Some(dir) = &self.dir else { return };
        let mut entries = list(dir);
        let mut total: u64 = entries.iter().map(|e| e.1).sum();
        if total <= self.cap_bytes {
            return;
        }
        entries.sort_by_key(|e| e.2);
        for (path, bytes, _) in entries {
            if total <= self.cap_bytes {
                break;
            }
            if fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(bytes);
            }
        }
    }

    /// What the directory holds.
    pub fn stats(&self) -> Stats {
        let dir = self.dir.clone().unwrap_or_default();
        let entries = if self.dir.is_some() {
            list(&dir)
        } else {
            Vec::new()
        };
        Stats {
            entries: entries.len() as u64,
            bytes: entries.iter().map(|e| e.1).sum(),
            dir,
            cap_bytes: self.cap_bytes,
        }
    }

    /// Removes every entry; returns how many.
    pub fn clear(&self) -> u64 {
        let Some(dir) = &self.dir else { return 0 };
        let mut n = 0;
        for (path, _, _) in list(dir) {
            if fs::remove_file(path).is_ok() {
                n += 1;
            }
        }
        n
    }
}

/// `COIL_CACHE_DIR`, else `$XDG_CACHE_HOME/coil`, else `$HOME/.cache/coil`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("COIL_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("coil"));
    }
    let home = std::env::var_os("HOME").filter(|d| !d.is_empty())?;
    Some(PathBuf::from(home).join(".cache").join("coil"))
}

/// The payload of a whole, unchanged entry.
fn check(bytes: &[u8]) -> Option<&[u8]> {
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return None;
    }
    let digest = &bytes[8..40];
    let len = u64::from_le_bytes(bytes[40..48].try_into().ok()?);
    let payload = &bytes[HEADER..];
    if payload.len() as u64 != len || Sha256::digest(payload).as_slice() != digest {
        return None;
    }
    Some(payload)
}

fn write_entry(path: &Path, payload: &[u8]) -> std::io::Result<()> {
    let parent = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(parent)?;
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let aside = parent.join(format!(
        ".{}.{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::File::create(&aside)?;
        f.write_all(MAGIC)?;
        f.write_all(&Sha256::digest(payload))?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(payload)?;
        f.sync_all()?;
        fs::rename(&aside, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&aside);
    }
    result
}

/// Every entry under `dir`: its path, bytes and last use.
fn list(dir: &Path) -> Vec<(PathBuf, u64, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = fs::read_dir(&d) else { continue };
        for entry in read.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "bin") {
                let used = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                out.push((path, meta.len(), used));
            }
        }
    }
    out
}
