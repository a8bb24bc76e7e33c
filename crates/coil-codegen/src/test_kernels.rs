//! Small kernels for the loop transformations' unit tests (`merge.rs`, `tile.rs`).

use coil_kernel::{
    ArgId, ArgRole, DType, IndexExpr, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind,
    StageKind, Var,
};

/// `sum(c * p_v)` over `(v, c)`.
pub(crate) fn affine(terms: &[(usize, i64)]) -> IndexExpr {
    terms.iter().fold(IndexExpr::zero(), |acc, &(v, c)| {
        acc.add(&IndexExpr::var(Var::p(v)).scale(c))
    })
}

/// A pointwise f32 copy over `ranges`: `y[store] = x[load]`.
pub(crate) fn copy_kernel(ranges: &[usize], load: IndexExpr, store: IndexExpr) -> Kernel {
    let mut b = KernelBuilder::new();
    b.begin_stage(StageKind::Outer);
    let arg = |name: &str, role| KernelArg {
        name: name.into(),
        dtype: DType::F32,
        len: ranges.iter().product(),
        role,
    };
    let v = b.value(
        KExpr::Load {
            arg: ArgId(0),
            index: load,
            mask: None,
        },
        DType::F32,
    );
    b.store(ArgId(1), store, v);
    b.finish(
        "k".into(),
        KernelKind::Pointwise,
        ranges.to_vec(),
        vec![],
        vec![arg("x", ArgRole::Input), arg("y", ArgRole::Output)],
    )
}
