//! `sort` and `topk`: values and int64 indices along a dim, NaN above every number (ATen's
//! order), equal values in their original order (a stable sort; ATen's `sort.stable`, and the
//! order its CPU `topk` gives ties). `topk(sorted=False)` returns them sorted too.

use coil_graph::{IndexingKind, Tensor, TensorMeta, normalize_dim};

use crate::error::{OpError, fail};
use crate::host::{Vals, i64_tensor, take_at};
use crate::interp::Args;

/// Runs `sort` or `topk`.
pub(crate) fn eval(
    kind: IndexingKind,
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    let x = a.tensor("self")?;
    let sizes = x.sizes().to_vec();
    let d = if sizes.is_empty() {
        0
    } else {
        normalize_dim(a.b.int("dim")?, sizes.len())?
    };
    let len = sizes.get(d).copied().unwrap_or(1);
    let (descending, k) = if kind == IndexingKind::Topk {
        let k = a.b.int("k")?;
        if k < 0 || k as usize > len {
            return fail(format!(
                "topk: selected index k = {k} out of range (size {len})"
            ));
        }
        (a.b.bool("largest")?, k as usize)
    } else {
        (a.b.bool("descending")?, len)
    };
    let [values_meta, _] = metas else {
        return fail(format!("{kind:?} has two outputs"));
    };
    let inner: usize = sizes.get(d + 1..).map_or(1, |s| s.iter().product());
    let outer: usize = sizes.get(..d).map_or(1, |s| s.iter().product());
    // Each element's key: an order-preserving u64 of its value (NaN above every number, -0
    // equal to 0), complemented when descending; with the position after it, every key
    // differs, so an unstable sort of the pairs gives the stable order.
    let keys: Vec<u64> = match Vals::of(x) {
        Vals::F(v) => v
            .iter()
            .map(|&f| {
                if f.is_nan() {
                    u64::MAX
                } else {
                    let b = (if f == 0.0 { 0.0 } else { f }).to_bits();
                    if b >> 63 == 1 { !b } else { b | 1 << 63 }
                }
            })
            .collect(),
        Vals::I(v) => v.iter().map(|&i| (i as u64) ^ (1 << 63)).collect(),
    };
    let keys: Vec<u64> = if descending {
        keys.into_iter().map(|k| !k).collect()
    } else {
        keys
    };
    let mut offs = vec![0usize; outer * k * inner];
    let mut idx = vec![0i64; outer * k * inner];
    let mut lane: Vec<(u64, usize)> = Vec::with_capacity(len);
    for o in 0..outer {
        for i in 0..inner {
            lane.clear();
            lane.extend((0..len).map(|j| (keys[(o * len + j) * inner + i], j)));
            if k < len {
                lane.select_nth_unstable(k.saturating_sub(1).min(len - 1));
                lane.truncate(k);
            }
            lane.sort_unstable();
            for (r, &(_, j)) in lane.iter().enumerate() {
                let at = (o * k + r) * inner + i;
                offs[at] = (o * len + j) * inner + i;
                idx[at] = j as i64;
            }
        }
    }
    let out_sizes = values_meta.sizes.clone();
    Ok(vec![
        take_at(x, &offs, out_sizes.clone())?,
        i64_tensor(out_sizes, idx)?,
    ])
}
