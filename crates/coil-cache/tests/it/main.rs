//! The compile cache's safety properties.

use std::fs;
use std::path::{Path, PathBuf};

use coil_cache::{Cache, Key, KeyBuilder, Lookup};

fn key(parts: &[(&str, &str)]) -> Key {
    parts
        .iter()
        .fold(KeyBuilder::new(), |b, (n, v)| b.part(n, v))
        .finish()
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out
}

const PARTS: [(&str, &str); 5] = [
    ("source", ".entry k() { ret; }"),
    ("target", "sm_90 driver 13000"),
    ("options", "O4"),
    ("version", "coil 0.1.0"),
    ("shapes", "f32[2,3]"),
];

#[test]
fn an_entry_is_found_under_its_key_and_every_part_changed_on_its_own_misses() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path(), 1 << 20);
    let k = key(&PARTS);
    assert_eq!(cache.get("cubin", &k), Lookup::Miss);
    cache.put("cubin", &k, b"machine code");
    assert_eq!(
        cache.get("cubin", &k),
        Lookup::Hit(b"machine code".to_vec())
    );
    assert_eq!(
        cache.get("object", &k),
        Lookup::Miss,
        "namespaces are apart"
    );
    for i in 0..PARTS.len() {
        let mut parts = PARTS;
        let changed = format!("{} changed", parts[i].1);
        parts[i].1 = &changed;
        assert_eq!(
            cache.get("cubin", &key(&parts)),
            Lookup::Miss,
            "part {}",
            PARTS[i].0
        );
    }
    // Moving bytes from one part to the next is another key.
    assert_ne!(key(&[("a", "bc")]), key(&[("a", "b"), ("", "c")]));
    assert_eq!(cache.counts(), (1, 2 + PARTS.len() as u64));
}

#[test]
fn a_truncated_or_corrupted_entry_is_removed_and_never_returned() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path(), 1 << 20);
    let k = key(&PARTS);
    let payload: Vec<u8> = (0..4096u32).map(|i| (i * 7) as u8).collect();
    for damage in 0..3 {
        cache.put("cubin", &k, &payload);
        let found = entries(dir.path());
        let [file] = &found[..] else {
            panic!("one entry: {found:?}")
        };
        let mut bytes = fs::read(file).unwrap();
        match damage {
            0 => bytes.truncate(bytes.len() / 2),
            1 => {
                let n = bytes.len();
                bytes[n - 100] ^= 1;
            }
            _ => bytes[0] = b'X',
        }
        fs::write(file, &bytes).unwrap();
        assert_eq!(cache.get("cubin", &k), Lookup::Corrupt, "damage {damage}");
        assert!(
            entries(dir.path()).is_empty(),
            "the corrupt entry is removed"
        );
        assert_eq!(cache.get("cubin", &k), Lookup::Miss);
    }
    cache.put("cubin", &k, &payload);
    assert_eq!(cache.get("cubin", &k), Lookup::Hit(payload));
}

#[test]
fn writers_of_one_entry_at_once_each_leave_a_whole_one() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(&PARTS);
    let payload: Vec<u8> = (0..1 << 16).map(|i: u32| (i % 251) as u8).collect();
    // Threads of this process, and another process (this test binary again).
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_writes_the_shared_entry"])
        .env("COIL_CACHE_TEST_DIR", dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let cache = Cache::at(dir.path(), 1 << 30);
                for _ in 0..20 {
                    cache.put("cubin", &k, &payload);
                    match cache.get("cubin", &k) {
                        Lookup::Hit(b) => assert_eq!(b, payload),
                        other => panic!("a reader saw {other:?}"),
                    }
                }
            });
        }
    });
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "the child ran"
    );
    let files = entries(dir.path());
    assert_eq!(files.len(), 1, "no file left aside: {files:?}");
    assert_eq!(
        Cache::at(dir.path(), 1 << 30).get("cubin", &k),
        Lookup::Hit(payload)
    );
}

/// The other process of `writers_of_one_entry_at_once_each_leave_a_whole_one` (does nothing
/// when run on its own).
#[test]
fn child_writes_the_shared_entry() {
    let Some(dir) = std::env::var_os("COIL_CACHE_TEST_DIR") else {
        return;
    };
    let cache = Cache::at(PathBuf::from(dir), 1 << 30);
    let k = key(&PARTS);
    let payload: Vec<u8> = (0..1 << 16).map(|i: u32| (i % 251) as u8).collect();
    for _ in 0..40 {
        cache.put("cubin", &k, &payload);
        assert_eq!(cache.get("cubin", &k), Lookup::Hit(payload.clone()));
    }
}

#[test]
fn eviction_keeps_the_cap_removing_the_least_recently_used() {
    let dir = tempfile::tempdir().unwrap();
    let entry = 10_000usize;
    let cap = 5 * (entry as u64 + 48); // five entries with their headers
    let cache = Cache::at(dir.path(), cap);
    let keys: Vec<Key> = (0..12).map(|i| key(&[("n", &i.to_string())])).collect();
    for (i, k) in keys.iter().enumerate() {
        cache.put("object", k, &vec![i as u8; entry]);
        std::thread::sleep(std::time::Duration::from_millis(15));
        // Entry 0 is read after every write: used most recently, it stays.
        assert!(
            matches!(cache.get("object", &keys[0]), Lookup::Hit(_)),
            "after {i}"
        );
        assert!(cache.stats().bytes <= cap, "after {i}: {:?}", cache.stats());
    }
    let stats = cache.stats();
    assert_eq!(stats.entries, 5);
    for (i, k) in keys.iter().enumerate() {
        let kept = matches!(cache.get("object", k), Lookup::Hit(_));
        assert_eq!(kept, i == 0 || i >= 8, "entry {i}");
    }
    assert_eq!(cache.clear(), 5);
    assert_eq!(cache.stats().entries, 0);
}

#[test]
fn a_cache_that_cannot_be_written_is_no_error_and_off_holds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    // A file where the directory should be: nothing can be written under it.
    let blocked = dir.path().join("not-a-dir");
    fs::write(&blocked, b"").unwrap();
    let cache = Cache::at(&blocked, 1 << 20);
    let k = key(&PARTS);
    cache.put("cubin", &k, b"x");
    cache.put("cubin", &k, b"x");
    assert_eq!(cache.get("cubin", &k), Lookup::Miss);
    let off = Cache::off();
    off.put("cubin", &k, b"x");
    assert_eq!(off.get("cubin", &k), Lookup::Off);
    assert_eq!(off.get("cubin", &k).word(), "off");
    assert!(!off.is_on());
}
