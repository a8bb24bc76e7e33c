//! Adjacent loop ranges of a pointwise kernel merged into one where every index walks them as
//! one (Inductor's `simplify_loops`): a contiguous `[64, 3, 7, 7]` tensor is one loop of 9,408
//! elements, not 4,032 rows of 7, so a backend's vector loop runs on full vectors instead of a
//! 7-element tail per row. Two ranges `p_d` (size `s_d`) and `p_{d+1}` (size `s_{d+1}`) merge
//! when every index expression of the kernel (loads, stores and index values) is affine in
//! them with `coef(p_d) = coef(p_{d+1}) * s_{d+1}`: the pair is then `q = p_d * s_{d+1} +
//! p_{d+1}` over `s_d * s_{d+1}`, and each expression keeps `coef(p_{d+1}) * q`.

use coil_kernel::{IndexExpr, Kernel, KernelKind, Var, VarPrefix};

/// Merges what can be merged, innermost pairs first, until nothing more does.
pub(crate) fn merge_contiguous_ranges(k: &mut Kernel) {
    if k.kind != KernelKind::Pointwise || !k.reduction_ranges.is_empty() {
        return;
    }
    'again: loop {
        for d in (0..k.ranges.len().saturating_sub(1)).rev() {
            if can_merge(k, d) {
                merge(k, d);
                continue 'again;
            }
        }
        return;
    }
}

fn can_merge(k: &Kernel, d: usize) -> bool {
    let (outer, inner) = (Var::p(d), Var::p(d + 1));
    let inner_size = k.ranges[d + 1] as i64;
    k.index_exprs().all(|e| {
        if e.as_affine().is_none() {
            // Through a floor division or a modulo: only if it leaves the pair alone.
            return !e.contains_var(outer) && !e.contains_var(inner);
        }
        e.coefficient(outer) == e.coefficient(inner) * inner_size
    })
}

fn merge(k: &mut Kernel, d: usize) {
    let outer = Var::p(d);
    let rewrite = |e: &IndexExpr| -> IndexExpr {
        e.subst(&mut |v| (v == outer).then(IndexExpr::zero))
            .rename(&mut |v| match v.prefix {
                VarPrefix::P if v.n as usize > d => Var::p(v.n as usize - 1),
                _ => v,
            })
    };
    k.map_index_exprs(rewrite);
    let inner = k.ranges.remove(d + 1);
    k.ranges[d] *= inner;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_kernels::{affine, copy_kernel};

    #[test]
    fn a_contiguous_nest_becomes_one_loop() {
        let idx = affine(&[(0, 147), (1, 49), (2, 7), (3, 1)]);
        let mut k = copy_kernel(&[64, 3, 7, 7], idx.clone(), idx);
        merge_contiguous_ranges(&mut k);
        assert_eq!(k.ranges, vec![9408]);
        assert_eq!(k.stages[0].stores[0].index, affine(&[(0, 1)]));
    }

    #[test]
    fn a_transposed_read_keeps_the_dims_it_permutes() {
        // y[p0, p1, p2] = x[p0, p2, p1]: only the batch dim could merge, and it does not
        // (its coefficient is 12 in both, but p1's is 1 in the load and 4 in the store).
        let load = affine(&[(0, 12), (1, 1), (2, 3)]);
        let store = affine(&[(0, 12), (1, 4), (2, 1)]);
        let mut k = copy_kernel(&[5, 3, 4], load, store);
        merge_contiguous_ranges(&mut k);
        assert_eq!(k.ranges, vec![5, 3, 4]);
    }

    #[test]
    fn a_broadcast_operand_merges_only_where_it_is_contiguous() {
        // y[p0, p1, p2] = x[p1, p2] (x broadcast over p0): p1 and p2 merge, p0 stays.
        let load = affine(&[(1, 4), (2, 1)]);
        let store = affine(&[(0, 12), (1, 4), (2, 1)]);
        let mut k = copy_kernel(&[5, 3, 4], load, store);
        merge_contiguous_ranges(&mut k);
        assert_eq!(k.ranges, vec![5, 12]);
        assert_eq!(k.stages[0].stores[0].index, affine(&[(0, 12), (1, 1)]));
    }
}
