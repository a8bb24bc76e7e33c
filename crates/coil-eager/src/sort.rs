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
    let keys = Vals::of(x);
    let order = |p: usize, q: usize| -> std::cmp::Ordering {
        let ascending = match &keys {
            Vals::F(v) => {
                let (a, b) = (v[p], v[q]);
                match (a.is_nan(), b.is_nan()) {
                    (true, true) => std::cmp::Ordering::Equal,
                    (true, false) => std::cmp::Ordering::Greater,
                    (false, true) => std::cmp::Ordering::Less,
                    _ => a.partial_cmp(&b).unwrap_or(std::cmp::Ordering::Equal),
                }
            }
            Vals::I(v) => v[p].cmp(&v[q]),
        };
        if descending {
            ascending.reverse()
        } else {
            ascending
        }
    };
    let mut offs = Vec::with_capacity(outer * k * inner);
    let mut idx = Vec::with_capacity(outer * k * inner);
    offs.resize(outer * k * inner, 0);
    idx.resize(outer * k * inner, 0i64);
    let mut lane: Vec<usize> = Vec::with_capacity(len);
    for o in 0..outer {
        for i in 0..inner {
            lane.clear();
            lane.extend((0..len).map(|j| (o * len + j) * inner + i));
            // Stable: equal keys keep their order, descending included (the comparison is
            // reversed, not the result).
            lane.sort_by(|&p, &q| order(p, q));
            for (r, &src) in lane.iter().take(k).enumerate() {
                let at = (o * k + r) * inner + i;
                offs[at] = src;
                idx[at] = ((src / inner) % len) as i64;
            }
        }
    }
    let out_sizes = values_meta.sizes.clone();
    Ok(vec![
        take_at(x, &offs, out_sizes.clone())?,
        i64_tensor(out_sizes, idx)?,
    ])
}
