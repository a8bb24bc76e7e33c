//! Autotuning's choices in the compile cache: the plan a kernel's first launch found fastest
//! among its candidates, kept under the kernel's IR and the device, so that a later compile of
//! the same kernel (a new process included) renders, loads and times only that plan instead of
//! every candidate. A choice changes speed, never results (every candidate computes the same
//! values), so an entry that is missing, damaged or names no plan any more only means tuning
//! again.

use coil_cache::{Cache, Key, KeyBuilder, Lookup};
use coil_codegen::Kernel;

use crate::GpuCaps;

/// The cache namespace of autotuning choices.
const NAMESPACE: &str = "tune";

/// The key of `kernel`'s choice on a device of `caps`.
pub(super) fn key(kernel: &Kernel, caps: &GpuCaps) -> Key {
    KeyBuilder::new()
        .part("kernel", kernel.to_string())
        .part("device", format!("{caps:?}"))
        .part(
            "coil",
            concat!("coil-cuda ", env!("CARGO_PKG_VERSION"), " tune v1"),
        )
        .finish()
}

/// The index of the chosen plan in `candidate_plans`' list, if one was kept.
pub(super) fn lookup(cache: &Cache, key: &Key) -> Option<usize> {
    match cache.get(NAMESPACE, key) {
        Lookup::Hit(bytes) => Some(u32::from_le_bytes(bytes.as_slice().try_into().ok()?) as usize),
        _ => None,
    }
}

/// Keeps `index` (in `candidate_plans`' list) as the choice under `key`.
pub(super) fn store(cache: &Cache, key: &Key, index: usize) {
    if let Ok(i) = u32::try_from(index) {
        cache.put(NAMESPACE, key, &i.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = "\
kernel per_fused_argmax_0 (persistent reduction) ranges=[5] reduction_ranges=[7]
  arg0 x: i64[35] in
  arg1 buf0: i64[5] out
  reduction loop:
    v0: i64 = load arg0[7*p0 + p1]
    acc0: i64 = argmax(v0)
  outer:
    v1: i64 = acc0
    store arg1[p0] = v1
";

    #[test]
    fn a_kept_choice_is_found_under_its_kernel_and_device_only() {
        let dir = std::env::temp_dir().join(format!("coil-tune-{}", std::process::id()));
        let cache = Cache::at(&dir, 1 << 20);
        let kernel = coil_codegen::parse_kernels(KERNEL).unwrap().remove(0);
        let h200 = GpuCaps::h200();
        let key = super::key(&kernel, &h200);
        assert_eq!(lookup(&cache, &key), None);
        store(&cache, &key, 3);
        assert_eq!(lookup(&cache, &key), Some(3));
        // Another device, another kernel: other keys.
        let other_device = GpuCaps {
            sm_count: 114,
            ..h200
        };
        assert_eq!(lookup(&cache, &super::key(&kernel, &other_device)), None);
        let other = coil_codegen::parse_kernels(
            &KERNEL
                .replace("ranges=[5]", "ranges=[4]")
                .replace("i64[35]", "i64[28]")
                .replace("i64[5]", "i64[4]"),
        )
        .unwrap()
        .remove(0);
        assert_eq!(lookup(&cache, &super::key(&other, &h200)), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
