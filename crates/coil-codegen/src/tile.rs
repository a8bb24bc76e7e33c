//! A pointwise kernel that reads a tensor transposed (contiguous along its next-to-last range,
//! strided along its last, while it writes contiguously along the last) loops over square
//! tiles of the two innermost ranges (Inductor's `tile2d` on the CPU): `[a, b]` becomes
//! `[a / t, b / t, t, t]`, so that the `t` rows a tile reads stay in cache while each is read
//! `t` times, instead of every element of a column coming from another line. Only where `t`
//! divides both ranges and every index is affine in them.

use coil_kernel::{IndexExpr, KExpr, Kernel, KernelKind, Var};

/// Tiles `k`'s two innermost ranges by `t` where a load is transposed against the stores.
pub(crate) fn tile_transposes(k: &mut Kernel, t: usize) {
    let n = k.ranges.len();
    if k.kind != KernelKind::Pointwise || !k.reduction_ranges.is_empty() || n < 2 || t < 2 {
        return;
    }
    let (a, b) = (n - 2, n - 1);
    if !k.ranges[a].is_multiple_of(t)
        || !k.ranges[b].is_multiple_of(t)
        || k.ranges[a] < 2 * t
        || k.ranges[b] < 2 * t
    {
        return;
    }
    let (va, vb) = (Var::p(a), Var::p(b));
    let affine = k
        .index_exprs()
        .all(|e| e.as_affine().is_some() || (!e.contains_var(va) && !e.contains_var(vb)));
    let stores_contiguous = k
        .stages
        .iter()
        .flat_map(|s| &s.stores)
        .all(|st| st.index.coefficient(vb) == 1);
    let transposed_load = k.values.iter().any(|(e, _)| {
        matches!(e, KExpr::Load { index, .. }
            if index.coefficient(va) == 1 && index.coefficient(vb).abs() > 1)
    });
    if !affine || !stores_contiguous || !transposed_load {
        return;
    }
    let tt = t as i64;
    // Old p_a = t * p_a + p_(a+2), old p_b = t * p_(a+1) + p_(a+3).
    let rewrite = |e: &IndexExpr| -> IndexExpr {
        e.subst(&mut |v| {
            if v == va {
                Some(
                    IndexExpr::var(Var::p(a))
                        .scale(tt)
                        .add(&IndexExpr::var(Var::p(a + 2))),
                )
            } else if v == vb {
                Some(
                    IndexExpr::var(Var::p(a + 1))
                        .scale(tt)
                        .add(&IndexExpr::var(Var::p(a + 3))),
                )
            } else {
                None
            }
        })
    };
    k.map_index_exprs(rewrite);
    let (ra, rb) = (k.ranges[a], k.ranges[b]);
    k.ranges.truncate(a);
    k.ranges.extend([ra / t, rb / t, t, t]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_kernels::{affine, copy_kernel};

    #[test]
    fn a_transpose_is_tiled_and_reads_the_same_elements() {
        // y[p0, p1] = x[p1, p0] over [64, 32].
        let mut k = copy_kernel(
            &[64, 32],
            affine(&[(0, 1), (1, 64)]),
            affine(&[(0, 32), (1, 1)]),
        );
        tile_transposes(&mut k, 16);
        assert_eq!(k.ranges, vec![4, 2, 16, 16]);
        // p0 = 16 q0 + q2, p1 = 16 q1 + q3.
        assert_eq!(
            k.stages[0].stores[0].index,
            affine(&[(0, 512), (2, 32), (1, 16), (3, 1)])
        );
    }

    #[test]
    fn contiguous_copies_and_uneven_sizes_are_left_alone() {
        let mut k = copy_kernel(
            &[64, 32],
            affine(&[(0, 32), (1, 1)]),
            affine(&[(0, 32), (1, 1)]),
        );
        tile_transposes(&mut k, 16);
        assert_eq!(k.ranges, vec![64, 32]);
        let mut k = copy_kernel(
            &[60, 32],
            affine(&[(0, 1), (1, 60)]),
            affine(&[(0, 32), (1, 1)]),
        );
        tile_transposes(&mut k, 16);
        assert_eq!(k.ranges, vec![60, 32]);
    }
}
