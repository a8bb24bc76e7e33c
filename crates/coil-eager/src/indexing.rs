//! Indexing ops (`embedding`, `_embedding_bag`, `index.Tensor`, `index_select`, `gather`,
//! `scatter`, `scatter_add`, `index_put`) and scans (`cumsum`, `cumprod`). Every index is
//! checked: one out of range is an error naming the op, the index and the size, never a read
//! outside a tensor.

use coil_graph::{
    IndexingKind, Scalar, ScanKind, Tensor, TensorMeta, advanced_index, normalize_dim,
};

use crate::error::{OpError, fail};
use crate::host::{
    Val, Vals, for_each_index, i64_tensor, indices, plain_index, strides, take, take_at, tensor,
    values, wrap_index,
};
use crate::interp::Args;

/// Runs an op of the indexing family.
pub(crate) fn eval(
    kind: IndexingKind,
    a: &Args<'_>,
    metas: &[TensorMeta],
) -> Result<Vec<Tensor>, OpError> {
    let out = &metas[0];
    let one = |t: Tensor| Ok(vec![t]);
    use IndexingKind::*;
    match kind {
        Sort | Topk => crate::sort::eval(kind, a, metas),
        Embedding => {
            let w = a.tensor("weight")?;
            let idx = indices(a.tensor("indices")?);
            let (rows, d) = (w.sizes()[0], w.sizes()[1]);
            let mut o = Vec::with_capacity(idx.len() * d);
            for &i in &idx {
                let r = plain_index("embedding", i, rows)?;
                o.extend((r * d..(r + 1) * d).map(Some));
            }
            one(take(w, &o, Scalar::Int(0), out.sizes.clone())?)
        }
        EmbeddingBag => embedding_bag(a, metas),
        Index => {
            let x = a.tensor("self")?;
            let list = a.b.opt_tensors("indices")?;
            let idx: Vec<Option<&Tensor>> = list
                .iter()
                .map(|n| n.map(|n| a.node(n)).transpose())
                .collect::<Result<_, _>>()?;
            let (_, offs) = index_positions(x, &idx)?;
            one(take_at(x, &offs, out.sizes.clone())?)
        }
        IndexSelect => {
            let x = a.tensor("self")?;
            let idx = indices(a.tensor("index")?);
            let sizes = x.sizes();
            if sizes.is_empty() {
                match idx.as_slice() {
                    [i] => plain_index("index_select", *i, 1)?,
                    _ => return fail("index_select(): a 0-d tensor takes one index"),
                };
                return one(x.contiguous());
            }
            let d = normalize_dim(a.b.int("dim")?, sizes.len())?;
            let offs = offsets_along("index_select", &out.sizes, sizes, d, |p, _| idx[p[d]])?;
            one(take_at(x, &offs, out.sizes.clone())?)
        }
        Gather => {
            let x = a.tensor("self")?;
            let it = a.tensor("index")?;
            let idx = indices(it);
            let d = normalize_dim(a.b.int("dim")?, x.sizes().len())?;
            let offs = offsets_along("gather", it.sizes(), x.sizes(), d, |_, n| idx[n])?;
            one(take_at(x, &offs, out.sizes.clone())?)
        }
        Scatter | ScatterAdd => {
            let x = a.tensor("self")?;
            let it = a.tensor("index")?;
            let idx = indices(it);
            let d = normalize_dim(a.b.int("dim")?, x.sizes().len())?;
            let offs = offsets_along(&a.b.schema().name, it.sizes(), x.sizes(), d, |_, n| idx[n])?;
            let mut o = Vals::of(x);
            let src = match a.b.has("src") {
                true => {
                    let s = a.tensor("src")?;
                    Some((Vals::of(s), strides(s.sizes())))
                }
                false => None,
            };
            let value = a.b.opt_scalar("value");
            let mut n = 0;
            for_each_index(it.sizes(), |p| {
                let v = match (&src, value) {
                    (Some((sv, ss)), _) => sv.get((0..p.len()).map(|k| p[k] * ss[k]).sum()),
                    (None, Some(v)) => Val::of_scalar(v),
                    (None, None) => Val::I(0),
                };
                o.put(offs[n], v, kind == ScatterAdd);
                n += 1;
            });
            one(o.into_tensor(out.dtype, out.sizes.clone())?)
        }
        ScatterReduce => one(scatter_reduce(a, out)?),
        IndexPut => {
            let x = a.tensor("self")?;
            let list = a.b.opt_tensors("indices")?;
            let idx: Vec<Option<&Tensor>> = list
                .iter()
                .map(|n| n.map(|n| a.node(n)).transpose())
                .collect::<Result<_, _>>()?;
            let v = a.tensor("values")?;
            let accumulate = a.b.bool("accumulate")?;
            // A boolean mask is its set positions' coordinates (one index per dim it covers),
            // as eager's `nonzero` makes them.
            let expanded = masks_as_indices(x, &idx)?;
            let idx: Vec<Option<&Tensor>> = expanded.iter().map(Option::as_ref).collect();
            let mut o = Vals::of(x);
            let (vv, vsizes) = (Vals::of(v), v.sizes().to_vec());
            let targets = index_positions(x, &idx)?;
            let (rsizes, offs) = targets;
            let fits = vsizes.len() <= rsizes.len()
                && vsizes
                    .iter()
                    .zip(&rsizes[rsizes.len() - vsizes.len()..])
                    .all(|(&v, &r)| v == 1 || v == r);
            if !fits {
                return fail(format!(
                    "shape mismatch: value tensor of shape {vsizes:?} cannot be broadcast to \
                     indexing result of shape {rsizes:?}"
                ));
            }
            // values broadcast to the indexing result's shape.
            let vst = strides(&vsizes);
            let mut n = 0;
            for_each_index(&rsizes, |p| {
                let lead = rsizes.len() - vsizes.len();
                let src: usize = (0..vsizes.len())
                    .map(|k| {
                        if vsizes[k] == 1 {
                            0
                        } else {
                            p[lead + k] * vst[k]
                        }
                    })
                    .sum();
                let dst = offs[n];
                n += 1;
                o.put(dst, vv.get(src), accumulate);
            });
            one(o.into_tensor(out.dtype, out.sizes.clone())?)
        }
    }
}

/// `scatter(reduce=...)` and `scatter_reduce`: each target combines the values scattered into
/// it, in index order, with its own (unless `include_self` is false); `mean` divides by how
/// many values met there (flooring for integers, as PyTorch's); amax and amin propagate NaN.
fn scatter_reduce(a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let x = a.tensor("self")?;
    let it = a.tensor("index")?;
    let idx = indices(it);
    let d = normalize_dim(a.b.int("dim")?, x.sizes().len())?;
    let name = a.b.schema().name.clone();
    let offs = offsets_along(&name, it.sizes(), x.sizes(), d, |_, n| idx[n])?;
    let reduce = a.b.opt_str("reduce").unwrap_or_default();
    let include_self = !a.b.has("include_self") || a.b.bool("include_self")?;
    let src = match a.b.has("src") {
        true => {
            let s = a.tensor("src")?;
            Some((Vals::of(s), strides(s.sizes())))
        }
        false => None,
    };
    let value = a.b.opt_scalar("value");
    let mut vals: Vec<Val> = Vec::with_capacity(offs.len());
    for_each_index(it.sizes(), |p| {
        vals.push(match (&src, value) {
            (Some((sv, ss)), _) => sv.get((0..p.len()).map(|k| p[k] * ss[k]).sum()),
            (None, Some(v)) => Val::of_scalar(v),
            (None, None) => Val::I(0),
        });
    });
    let float = x.dtype().is_float();
    let mut o = Vals::of(x);
    let mut count = vec![0usize; x.numel()];
    for (&at, &v) in offs.iter().zip(&vals) {
        let cur = o.get(at);
        let first = count[at] == 0 && !include_self;
        count[at] += 1;
        let combined = if first {
            v
        } else {
            combine(reduce, cur, v, float)
        };
        o.set(at, combined);
    }
    if reduce == "mean" {
        for (at, &c) in count.iter().enumerate() {
            let n = c + usize::from(include_self);
            if c > 0 && n > 1 {
                let s = o.get(at);
                o.set(
                    at,
                    match s {
                        Val::F(f) => Val::F(f / n as f64),
                        Val::I(i) => Val::I(i.div_euclid(n as i64)),
                    },
                );
            }
        }
    }
    o.into_tensor(out.dtype, out.sizes.clone())
}

/// `cur` combined with `v` by `reduce` (`scatter`'s add/multiply, `scatter_reduce`'s names).
fn combine(reduce: &str, cur: Val, v: Val, float: bool) -> Val {
    let f = |x: Val| match x {
        Val::F(f) => f,
        Val::I(i) => i as f64,
    };
    let i = |x: Val| match x {
        Val::F(f) => f as i64,
        Val::I(i) => i,
    };
    if float {
        let (a, b) = (f(cur), f(v));
        Val::F(match reduce {
            "add" | "sum" | "mean" => a + b,
            "multiply" | "prod" => a * b,
            "amax" if a.is_nan() || b.is_nan() => f64::NAN,
            "amin" if a.is_nan() || b.is_nan() => f64::NAN,
            "amax" => a.max(b),
            _ => a.min(b),
        })
    } else {
        let (a, b) = (i(cur), i(v));
        Val::I(match reduce {
            "add" | "sum" | "mean" => a.wrapping_add(b),
            "multiply" | "prod" => a.wrapping_mul(b),
            "amax" => a.max(b),
            _ => a.min(b),
        })
    }
}

/// `indices` with each boolean mask replaced by the int64 coordinates of its set elements
/// (row-major), one index tensor per dim the mask covers; the mask's sizes must be those dims'.
fn masks_as_indices(
    x: &Tensor,
    indices: &[Option<&Tensor>],
) -> Result<Vec<Option<Tensor>>, OpError> {
    let mut out = Vec::new();
    let mut dim = 0;
    for i in indices {
        match i {
            Some(m) if m.dtype() == coil_graph::DType::Bool => {
                let k = m.sizes().len();
                let covered = x.sizes().get(dim..dim + k);
                if covered != Some(m.sizes()) {
                    return fail(format!(
                        "The shape of the mask {:?} at index {dim} does not match the shape of \
                         the indexed tensor {:?}",
                        m.sizes(),
                        x.sizes()
                    ));
                }
                let vals = m.contiguous().to_f64_vec();
                let st = strides(m.sizes());
                let mut coords: Vec<Vec<i64>> = vec![Vec::new(); k];
                for (flat, _) in vals.iter().enumerate().filter(|(_, v)| **v != 0.0) {
                    for d in 0..k {
                        coords[d].push(((flat / st[d]) % m.sizes()[d]) as i64);
                    }
                }
                for c in coords {
                    let n = c.len();
                    out.push(Some(Tensor::new(coil_graph::Data::I64(c), vec![n])?));
                }
                dim += k;
            }
            other => {
                out.push(other.map(|t| (*t).clone()));
                dim += 1;
            }
        }
    }
    Ok(out)
}

/// Runs a scan (`cumsum`, `cumprod`).
pub(crate) fn eval_scan(kind: ScanKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    scan(kind, a, out)
}

/// For each position `p` of a box of `sizes` (row-major; `n` counts them), the offset in a
/// contiguous tensor of `x_sizes` of `p` with its coordinate along `dim` replaced by
/// `index_at(p, n)`, which must lie in `0..size` (these ops take no negative index); one out of
/// range is an error naming `op` (`index_select`, `gather`, `scatter`).
fn offsets_along(
    op: &str,
    sizes: &[usize],
    x_sizes: &[usize],
    dim: usize,
    index_at: impl Fn(&[usize], usize) -> i64,
) -> Result<Vec<usize>, OpError> {
    let xs = strides(x_sizes);
    let size = x_sizes.get(dim).copied().unwrap_or(1);
    let mut offs = Vec::with_capacity(sizes.iter().product());
    let mut err = None;
    for_each_index(sizes, |p| {
        match plain_index(op, index_at(p, offs.len()), size) {
            Ok(r) => {
                let off = (0..p.len())
                    .map(|k| if k == dim { r } else { p[k] } * xs[k])
                    .sum();
                offs.push(off);
            }
            Err(e) => {
                err.get_or_insert(e);
                offs.push(0);
            }
        }
    });
    match err {
        Some(e) => Err(e),
        None => Ok(offs),
    }
}

/// For `x[indices]`: the result's sizes and, for each result element in row-major order, the
/// offset of the element of (contiguous) `x` it reads.
fn index_positions(
    x: &Tensor,
    idx: &[Option<&Tensor>],
) -> Result<(Vec<usize>, Vec<usize>), OpError> {
    let sizes = x.sizes();
    let shapes: Vec<Option<Vec<usize>>> =
        idx.iter().map(|t| t.map(|t| t.sizes().to_vec())).collect();
    let adv = advanced_index(sizes, &shapes)?;
    let ivals: Vec<Option<(Vec<i64>, Vec<usize>)>> = idx
        .iter()
        .map(|t| t.map(|t| (indices(t), t.sizes().to_vec())))
        .collect();
    let xs = strides(sizes);
    let nb = adv.broadcast.len();
    let kept: Vec<usize> = (0..sizes.len())
        .filter(|d| !adv.indexed.contains(d))
        .collect();
    let mut offs = Vec::with_capacity(adv.sizes.iter().product());
    let mut err = None;
    for_each_index(&adv.sizes, |p| {
        let bpos = &p[adv.at..adv.at + nb];
        let mut off = 0usize;
        // Kept dims fill the result's other positions in order.
        let mut rest = (0..p.len()).filter(|&k| k < adv.at || k >= adv.at + nb);
        for &d in &kept {
            let k = rest.next().unwrap_or(0);
            off += p[k] * xs[d];
        }
        for &d in &adv.indexed {
            let Some((vals, isz)) = &ivals[d] else {
                continue;
            };
            let lead = nb - isz.len();
            let ist = strides(isz);
            let at: usize = (0..isz.len())
                .map(|k| {
                    if isz[k] == 1 {
                        0
                    } else {
                        bpos[lead + k] * ist[k]
                    }
                })
                .sum();
            match wrap_index("index", vals[at], sizes[d]) {
                Ok(r) => off += r * xs[d],
                Err(e) => {
                    err.get_or_insert(e);
                }
            }
        }
        offs.push(off);
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok((adv.sizes, offs))
}

/// `_embedding_bag`: bags given by `offsets`, reduced by sum (weighted), mean or max; entries
/// equal to `padding_idx` are skipped.
fn embedding_bag(a: &Args<'_>, metas: &[TensorMeta]) -> Result<Vec<Tensor>, OpError> {
    let w = a.tensor("weight")?;
    let idx = indices(a.tensor("indices")?);
    let offsets = indices(a.tensor("offsets")?);
    let mode = a.b.int("mode")?;
    let last = a.b.bool("include_last_offset")?;
    let padding = a.b.int("padding_idx")?;
    let psw = a.opt_tensor("per_sample_weights")?.map(values);
    let (rows, d) = (w.sizes()[0], w.sizes()[1]);
    let wv = values(w);
    let bags = metas[0].sizes[0];
    if offsets.first().is_some_and(|&o| o != 0) {
        return fail(format!(
            "embedding_bag: offsets[0] has to be 0, got {}",
            offsets[0]
        ));
    }
    let mut out = vec![0.0; bags * d];
    let mut offset2bag = vec![0i64; idx.len()];
    let mut bag_size = vec![0i64; bags];
    let mut max_idx = vec![-1i64; if mode == 2 { bags * d } else { bags }];
    for b in 0..bags {
        let start = offsets[b];
        let end = if b + 1 < offsets.len() {
            offsets[b + 1]
        } else {
            idx.len() as i64
        };
        let end = if last && b + 1 == bags {
            offsets[b + 1].min(idx.len() as i64)
        } else {
            end
        };
        if start < 0 || end < start || end > idx.len() as i64 {
            return fail(format!(
                "embedding_bag: offsets must be non-decreasing and within the {} indices, got bag {b} = [{start}, {end})",
                idx.len()
            ));
        }
        let row = &mut out[b * d..(b + 1) * d];
        let mut first = true;
        for j in start as usize..end as usize {
            offset2bag[j] = b as i64;
            if padding >= 0 && idx[j] == padding {
                continue;
            }
            let r = plain_index("embedding_bag", idx[j], rows)?;
            bag_size[b] += 1;
            let scale = psw.as_ref().map_or(1.0, |p| p[j]);
            for k in 0..d {
                let v = wv[r * d + k];
                if mode == 2 {
                    if first || v > row[k] {
                        row[k] = v;
                        max_idx[b * d + k] = r as i64;
                    }
                } else {
                    row[k] += v * scale;
                }
            }
            first = false;
        }
        if mode == 1 && bag_size[b] > 0 {
            row.iter_mut().for_each(|v| *v /= bag_size[b] as f64);
        }
    }
    // The auxiliary outputs as PyTorch's CPU kernel leaves them (they feed only backward):
    // sum mode keeps no offset2bag (without a padding_idx), zero bag sizes and max indices;
    // mean mode's max indices are the bag sizes; an empty bag's max index is 0.
    if mode == 0 {
        bag_size.iter_mut().for_each(|b| *b = 0);
        max_idx.iter_mut().for_each(|m| *m = 0);
    } else if mode == 1 {
        max_idx = bag_size.clone();
    } else {
        max_idx.iter_mut().for_each(|m| *m = (*m).max(0));
    }
    offset2bag.truncate(metas[1].sizes[0]);
    Ok(vec![
        tensor(metas[0].dtype, metas[0].sizes.clone(), out)?,
        i64_tensor(metas[1].sizes.clone(), offset2bag)?,
        i64_tensor(metas[2].sizes.clone(), bag_size)?,
        i64_tensor(metas[3].sizes.clone(), max_idx)?,
    ])
}

/// `cumsum` / `cumprod` along one dim, accumulated in f64 (integers in i64), each partial
/// result cast to the output dtype.
fn scan(kind: ScanKind, a: &Args<'_>, out: &TensorMeta) -> Result<Tensor, OpError> {
    let x = a.tensor("self")?;
    let sizes = x.sizes();
    let d = normalize_dim(a.b.int("dim")?, sizes.len())?;
    let (len, inner) = if sizes.is_empty() {
        (1, 1)
    } else {
        (sizes[d], sizes[d + 1..].iter().product::<usize>())
    };
    let outer: usize = if sizes.is_empty() {
        1
    } else {
        sizes[..d].iter().product()
    };
    let prod = kind == ScanKind::Cumprod;
    if !out.dtype.is_float() {
        let xv = indices(&x.to_dtype(coil_graph::DType::I64));
        let mut o = xv.clone();
        for oi in 0..outer {
            for ii in 0..inner {
                let mut acc: i64 = if prod { 1 } else { 0 };
                for k in 0..len {
                    let at = (oi * len + k) * inner + ii;
                    acc = if prod {
                        acc.wrapping_mul(xv[at])
                    } else {
                        acc.wrapping_add(xv[at])
                    };
                    o[at] = acc;
                }
            }
        }
        return Ok(Tensor::new(coil_graph::Data::I64(o), out.sizes.clone())?.to_dtype(out.dtype));
    }
    let xv = values(x);
    let mut o = xv.clone();
    let log = kind == ScanKind::Logcumsumexp;
    for oi in 0..outer {
        for ii in 0..inner {
            let mut acc = if log {
                f64::NEG_INFINITY
            } else if prod {
                1.0
            } else {
                0.0
            };
            for k in 0..len {
                let at = (oi * len + k) * inner + ii;
                acc = if log {
                    coil_kernel::scalar::log_add_exp(acc, xv[at])
                } else if prod {
                    acc * xv[at]
                } else {
                    acc + xv[at]
                };
                o[at] = acc;
            }
        }
    }
    tensor(out.dtype, out.sizes.clone(), o)
}
