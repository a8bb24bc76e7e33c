//! Which of a kernel's values are computed once, at its entry: those that depend only on
//! constants and on elements of read-only arguments at fixed positions (no loop variable in
//! the index, no mask), and what is computed from those alone. LLVM cannot hoist them out of
//! the loops itself (it cannot tell the arguments apart), and an optimizer step computes two
//! `pow`s of its step count that way per element. Integer divisions stay where they were (run
//! at the entry of a kernel whose loops run no iteration, a zero divisor would trap).

use std::collections::HashSet;

use coil_codegen::{ArgRole, KExpr, Kernel, ValueId};

use super::ir::Class;

/// The values of `k` to compute at its entry, in kernel order (operands first), leaving out
/// those `keep(v)` says stay where they are.
pub(super) fn entry_invariants(k: &Kernel, keep: impl Fn(ValueId) -> bool) -> Vec<ValueId> {
    let mut fixed: HashSet<ValueId> = HashSet::new();
    let mut hoist = Vec::new();
    for stage in &k.stages {
        for &v in &stage.values {
            let dt = k.dtype(v);
            let ok = match k.expr(v) {
                KExpr::Const(_) => true,
                KExpr::Load {
                    arg,
                    index,
                    mask: None,
                } => {
                    index.as_constant().is_some()
                        && k.args
                            .get(arg.0 as usize)
                            .is_some_and(|a| a.role == ArgRole::Input)
                }
                KExpr::Binary(op, _, _)
                    if op.cost() == coil_kernel::OpCost::Divide
                        && !matches!(Class::of(dt), Class::F32 | Class::F64) =>
                {
                    false
                }
                KExpr::Unary(..) | KExpr::Binary(..) | KExpr::Cast(_) | KExpr::Bitcast(_) => {
                    k.expr(v).operands().iter().all(|o| fixed.contains(o))
                }
                _ => false,
            };
            if !ok || keep(v) {
                continue;
            }
            if fixed.insert(v) {
                hoist.push(v);
            }
        }
    }
    hoist
}
