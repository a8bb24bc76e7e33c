//! Strided loops over N-d index spaces, shared by every kernel family: dims are coalesced so a
//! contiguous (or broadcast) operand becomes one long row, and the innermost row is a slice
//! loop the compiler vectorizes.

use crate::elem::Src;

/// An iteration space over `N` operands, split into outer dims (walked with an odometer) and
/// one inner row.
pub(crate) struct Plan<const N: usize> {
    outer_sizes: Vec<usize>,
    outer_strides: Vec<[usize; N]>,
    /// Length of each row (1 for a rank-0 space, 0 for an empty one).
    pub(crate) inner_len: usize,
    /// Each operand's stride along the row.
    pub(crate) inner_strides: [usize; N],
}

impl<const N: usize> Plan<N> {
    /// Plans a walk over `sizes` in row-major order; `strides[k]` are operand `k`'s strides.
    pub(crate) fn new(sizes: &[usize], strides: [&[usize]; N]) -> Plan<N> {
        if sizes.contains(&0) {
            return Plan {
                outer_sizes: vec![],
                outer_strides: vec![],
                inner_len: 0,
                inner_strides: [0; N],
            };
        }
        // Drop size-1 dims, then merge a dim into the next when every operand steps through
        // the pair as through one dim.
        let mut dims: Vec<(usize, [usize; N])> = Vec::with_capacity(sizes.len());
        for (d, &size) in sizes.iter().enumerate() {
            if size == 1 {
                continue;
            }
            let st: [usize; N] = std::array::from_fn(|k| strides[k][d]);
            if let Some((psize, pst)) = dims.last_mut()
                && (0..N).all(|k| pst[k] == st[k] * size)
            {
                *psize *= size;
                *pst = st;
                continue;
            }
            dims.push((size, st));
        }
        let (inner_len, inner_strides) = dims.pop().unwrap_or((1, [0; N]));
        Plan {
            outer_sizes: dims.iter().map(|d| d.0).collect(),
            outer_strides: dims.iter().map(|d| d.1).collect(),
            inner_len,
            inner_strides,
        }
    }

    /// True when the whole space is one row.
    pub(crate) fn is_one_row(&self) -> bool {
        self.outer_sizes.is_empty()
    }

    /// Calls `f` with each operand's offset at the start of every row, in row-major order.
    pub(crate) fn for_each_row(&self, offsets: [usize; N], mut f: impl FnMut([usize; N])) {
        if self.inner_len == 0 {
            return;
        }
        let rank = self.outer_sizes.len();
        let mut idx = vec![0usize; rank];
        let mut cur = offsets;
        loop {
            f(cur);
            let mut d = rank;
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                idx[d] += 1;
                for (c, s) in cur.iter_mut().zip(self.outer_strides[d]) {
                    *c += s;
                }
                if idx[d] < self.outer_sizes[d] {
                    break;
                }
                for (c, s) in cur.iter_mut().zip(self.outer_strides[d]) {
                    *c -= s * self.outer_sizes[d];
                }
                idx[d] = 0;
            }
        }
    }
}

/// `f` applied to each element of `a` over `sizes`, in row-major order.
pub(crate) fn map1<A: Copy, O>(sizes: &[usize], a: &Src<'_, A>, f: impl Fn(A) -> O) -> Vec<O> {
    let mut out = Vec::with_capacity(sizes.iter().product());
    let plan = Plan::new(sizes, [&a.strides]);
    let (n, [sa]) = (plan.inner_len, plan.inner_strides);
    let da = &*a.data;
    plan.for_each_row([a.offset], |[oa]| match sa {
        1 => out.extend(da[oa..oa + n].iter().map(|&x| f(x))),
        _ => out.extend((0..n).map(|i| f(da[oa + i * sa]))),
    });
    out
}

/// `f` applied to each pair of elements of `a` and `b` (broadcast) over `sizes`.
pub(crate) fn map2<A: Copy, B: Copy, O>(
    sizes: &[usize],
    a: &Src<'_, A>,
    b: &Src<'_, B>,
    f: impl Fn(A, B) -> O,
) -> Vec<O> {
    let mut out = Vec::with_capacity(sizes.iter().product());
    let plan = Plan::new(sizes, [&a.strides, &b.strides]);
    let (n, [sa, sb]) = (plan.inner_len, plan.inner_strides);
    let (da, db) = (&*a.data, &*b.data);
    plan.for_each_row([a.offset, b.offset], |[oa, ob]| match (sa, sb) {
        (1, 1) => out.extend(
            da[oa..oa + n]
                .iter()
                .zip(&db[ob..ob + n])
                .map(|(&x, &y)| f(x, y)),
        ),
        (1, 0) => {
            let y = db[ob];
            out.extend(da[oa..oa + n].iter().map(|&x| f(x, y)))
        }
        (0, 1) => {
            let x = da[oa];
            out.extend(db[ob..ob + n].iter().map(|&y| f(x, y)))
        }
        _ => out.extend((0..n).map(|i| f(da[oa + i * sa], db[ob + i * sb]))),
    });
    out
}

/// `f` applied to each triple of elements of `a`, `b`, `c` (broadcast) over `sizes`.
pub(crate) fn map3<A: Copy, B: Copy, C: Copy, O>(
    sizes: &[usize],
    a: &Src<'_, A>,
    b: &Src<'_, B>,
    c: &Src<'_, C>,
    f: impl Fn(A, B, C) -> O,
) -> Vec<O> {
    let mut out = Vec::with_capacity(sizes.iter().product());
    let plan = Plan::new(sizes, [&a.strides, &b.strides, &c.strides]);
    let (n, [sa, sb, sc]) = (plan.inner_len, plan.inner_strides);
    let (da, db, dc) = (&*a.data, &*b.data, &*c.data);
    plan.for_each_row([a.offset, b.offset, c.offset], |[oa, ob, oc]| {
        match (sa, sb, sc) {
            (1, 1, 1) => out.extend(
                da[oa..oa + n]
                    .iter()
                    .zip(&db[ob..ob + n])
                    .zip(&dc[oc..oc + n])
                    .map(|((&x, &y), &z)| f(x, y, z)),
            ),
            (1, 0, 0) => {
                let (y, z) = (db[ob], dc[oc]);
                out.extend(da[oa..oa + n].iter().map(|&x| f(x, y, z)))
            }
            _ => out.extend((0..n).map(|i| f(da[oa + i * sa], db[ob + i * sb], dc[oc + i * sc]))),
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_dims_coalesce_into_one_row() {
        let p = Plan::new(&[4, 8, 16], [&[128, 16, 1], &[0, 0, 1]]);
        assert_eq!(p.outer_sizes, vec![32]);
        assert_eq!(p.inner_len, 16);
        let p = Plan::new(&[4, 8, 16], [&[128, 16, 1], &[0, 0, 0]]);
        assert_eq!((p.inner_len, p.inner_strides), (512, [1, 0]));
        let p = Plan::<1>::new(&[], [&[]]);
        assert_eq!(p.inner_len, 1);
        let mut rows = vec![];
        Plan::new(&[2, 3], [&[1, 2]]).for_each_row([5], |[o]| rows.push(o));
        assert_eq!(rows, vec![5, 6]);
    }
}
