//! The kernel IR's verifier (Cranelift's `verify_if` between stages): what `docs/codegen.md`
//! promises a backend, checked. Values are defined before use and only in their own stage,
//! accumulators are read only after the stage that finishes them, index expressions use only
//! the variables their stage has, and every unmasked load and every store stays inside its
//! argument's storage.

use std::collections::HashSet;

use crate::{IndexExpr, ReductionType, Var, VarRanges};

use crate::kernel::{AccId, ArgId, ArgRole, KExpr, Kernel, StageKind, StoreMode, ValueId};

/// A broken promise of the kernel IR: the kernel, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("kernel {kernel} is invalid: {msg}")]
pub struct VerifyError {
    /// The kernel's name.
    pub kernel: String,
    /// What is wrong, naming the value, stage or argument.
    pub msg: String,
}

impl Kernel {
    /// Checks the kernel against the IR's contract.
    pub fn verify(&self) -> Result<(), VerifyError> {
        let err = |msg: String| VerifyError {
            kernel: self.name.clone(),
            msg,
        };
        let n = self.ranges.len();
        // Indirect indices lie in `0..size` once checked.
        let indirect: Vec<(Var, usize)> = self
            .values
            .iter()
            .enumerate()
            .filter_map(|(i, (e, _))| match e {
                KExpr::IndirectIndex { size, .. } => Some((Var::indirect(i), *size)),
                _ => None,
            })
            .collect();
        let outer = VarRanges::new(
            self.outer_vars()
                .into_iter()
                .chain(indirect.iter().copied())
                .collect(),
        );
        let all = VarRanges::new(
            self.outer_vars()
                .into_iter()
                .chain(self.reduction_vars())
                .chain(indirect.iter().copied())
                .collect(),
        );
        let mut finished: HashSet<AccId> = HashSet::new();
        let mut seen_values: HashSet<ValueId> = HashSet::new();
        for (si, stage) in self.stages.iter().enumerate() {
            let ranges = match stage.kind {
                StageKind::Outer => &outer,
                StageKind::Reduction => &all,
            };
            let in_scope = |index: &IndexExpr| -> Result<(), String> {
                for v in index.vars() {
                    if v.indirect_node().is_some() {
                        continue; // an operand, checked as one
                    }
                    let ok = v.prefix == Var::p(0).prefix
                        && match stage.kind {
                            StageKind::Outer => (v.n as usize) < n,
                            StageKind::Reduction => ranges.get(v).is_some(),
                        };
                    if !ok {
                        return Err(format!(
                            "stage {si} indexes with {v}, which it has no loop for"
                        ));
                    }
                }
                Ok(())
            };
            let in_range = |what: &str, arg: ArgId, index: &IndexExpr| -> Result<(), String> {
                let Some(a) = self.args.get(arg.0 as usize) else {
                    return Err(format!("stage {si}: {what} of {arg}, which does not exist"));
                };
                if self.numel() == 0 || (stage.kind == StageKind::Reduction && self.rnumel() == 0) {
                    return Ok(()); // an empty loop touches nothing
                }
                let (lo, hi) = index.bounds(ranges);
                if lo < 0 || hi >= a.len as i128 {
                    return Err(format!(
                        "stage {si}: {what} {arg}[{index}] reaches [{lo}, {hi}], outside {}'s {} elements",
                        a.name, a.len
                    ));
                }
                Ok(())
            };
            if stage.kind == StageKind::Outer && !stage.accumulators.is_empty() {
                return Err(err(format!("outer stage {si} has accumulators")));
            }
            let mut here: HashSet<ValueId> = HashSet::new();
            for &v in &stage.values {
                let Some((expr, _)) = self.values.get(v.0 as usize) else {
                    return Err(err(format!("stage {si} lists {v}, which does not exist")));
                };
                if !seen_values.insert(v) {
                    return Err(err(format!("{v} is listed twice")));
                }
                for o in expr.operands() {
                    if !here.contains(&o) {
                        return Err(err(format!(
                            "{v} reads {o} before it is defined in stage {si} (values are stage-local)"
                        )));
                    }
                }
                match expr {
                    KExpr::Load { arg, index, mask } => {
                        in_scope(index).map_err(err)?;
                        if self.args.get(arg.0 as usize).map(|a| a.role) == Some(ArgRole::Output) {
                            return Err(err(format!("{v} loads {arg}, an output-only argument")));
                        }
                        if mask.is_none() {
                            in_range("load", *arg, index).map_err(err)?;
                        } else if self.args.get(arg.0 as usize).is_none() {
                            return Err(err(format!("{v} loads {arg}, which does not exist")));
                        }
                    }
                    KExpr::Index(index) => in_scope(index).map_err(err)?,
                    KExpr::Bitcast(x) => {
                        let (from, to) = (self.values[x.0 as usize].1, self.values[v.0 as usize].1);
                        if from.itemsize() != to.itemsize() {
                            return Err(err(format!(
                                "{v} bitcasts {x} from {from} to {to}, which differ in size"
                            )));
                        }
                    }
                    KExpr::Acc(a) => {
                        if !finished.contains(a) {
                            return Err(err(format!(
                                "{v} reads {a} before a stage before {si} finishes it"
                            )));
                        }
                    }
                    KExpr::Binary(op, a, b) => {
                        if self.dtype(*a) != self.dtype(*b) {
                            return Err(err(format!(
                                "{v} = {op}({a}, {b}) mixes {} and {}",
                                self.dtype(*a),
                                self.dtype(*b)
                            )));
                        }
                    }
                    KExpr::Scan { scan_type, value } => {
                        if stage.kind != StageKind::Reduction {
                            return Err(err(format!("{v} scans in outer stage {si}")));
                        }
                        if !matches!(
                            scan_type,
                            ReductionType::Sum | ReductionType::Prod | ReductionType::LogAddExp
                        ) {
                            return Err(err(format!("{v} scans with {scan_type}")));
                        }
                        if self.dtype(*value) != self.dtype(v) {
                            return Err(err(format!("{v} scans {value} of another dtype")));
                        }
                    }
                    KExpr::IndirectIndex { value, flags, .. } => {
                        if !self.dtype(*value).is_int() {
                            return Err(err(format!("{v} indexes with {value}, not an integer")));
                        }
                        let ok = self
                            .args
                            .get(flags.0 as usize)
                            .is_some_and(|a| a.role == ArgRole::InOut || a.role == ArgRole::Output);
                        if !ok {
                            return Err(err(format!(
                                "{v}'s flags {flags} are not a written argument"
                            )));
                        }
                    }
                    KExpr::Const(_) | KExpr::Cast(_) | KExpr::Unary(..) | KExpr::Where(..) => {}
                }
                here.insert(v);
            }
            for acc in &stage.accumulators {
                if !here.contains(&acc.value) {
                    return Err(err(format!(
                        "{} reduces {}, not a value of stage {si}",
                        acc.id, acc.value
                    )));
                }
                if acc.reduction_type == ReductionType::LogAddExp {
                    return Err(err(format!(
                        "{} reduces by logaddexp, a scan's only",
                        acc.id
                    )));
                }
            }
            for st in &stage.stores {
                if !here.contains(&st.value) {
                    return Err(err(format!(
                        "a store in stage {si} writes {}, not a value of that stage",
                        st.value
                    )));
                }
                in_scope(&st.index).map_err(err)?;
                match self.args.get(st.arg.0 as usize).map(|a| a.role) {
                    Some(ArgRole::Input) => {
                        return Err(err(format!("stage {si} stores to {}, an input", st.arg)));
                    }
                    None => {
                        return Err(err(format!(
                            "stage {si} stores to {}, which does not exist",
                            st.arg
                        )));
                    }
                    Some(ArgRole::Output) if st.mode == StoreMode::AtomicAdd => {
                        return Err(err(format!(
                            "stage {si} adds to {}, which it does not read",
                            st.arg
                        )));
                    }
                    _ => {}
                }
                in_range("store", st.arg, &st.index).map_err(err)?;
            }
            for acc in &stage.accumulators {
                if !finished.insert(acc.id) {
                    return Err(err(format!("{} is finished twice", acc.id)));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Const, DType, IndexExpr, Op, ReductionType, Var};

    use crate::kernel::{
        ArgId, ArgRole, KExpr, Kernel, KernelArg, KernelBuilder, KernelKind, StageKind,
    };

    fn arg(name: &str, len: usize, role: ArgRole) -> KernelArg {
        KernelArg {
            name: name.into(),
            dtype: DType::F32,
            len,
            role,
        }
    }

    /// `out[p0] = sum_p1 x[8*p0 + p1]` over 4 x 8, with the load's row stride `stride`.
    fn row_sum(stride: i64, out_len: usize) -> Kernel {
        let mut b = KernelBuilder::new();
        b.begin_stage(StageKind::Reduction);
        let index = IndexExpr::var(Var::p(0))
            .scale(stride)
            .add(&IndexExpr::var(Var::p(1)));
        let x = b.value(
            KExpr::Load {
                arg: ArgId(0),
                index,
                mask: None,
            },
            DType::F32,
        );
        let acc = b.reduce(ReductionType::Sum, x, DType::F32);
        b.begin_stage(StageKind::Outer);
        let s = b.value(KExpr::Acc(acc), DType::F32);
        b.store(ArgId(1), IndexExpr::var(Var::p(0)), s);
        b.finish(
            "red_fused_sum_0".into(),
            KernelKind::Reduction { persistent: true },
            vec![4],
            vec![8],
            vec![
                arg("x", 32, ArgRole::Input),
                arg("out", out_len, ArgRole::Output),
            ],
        )
    }

    #[test]
    fn a_well_formed_kernel_verifies() {
        assert_eq!(row_sum(8, 4).verify(), Ok(()));
    }

    #[test]
    fn out_of_range_loads_and_stores_are_caught() {
        let e = row_sum(9, 4).verify().unwrap_err();
        assert!(
            e.msg.contains("load arg0[9*p0 + p1] reaches [0, 34]"),
            "{e}"
        );
        let e = row_sum(8, 3).verify().unwrap_err();
        assert!(e.msg.contains("store arg1[p0] reaches [0, 3]"), "{e}");
    }

    #[test]
    fn values_used_across_stages_or_before_definition_are_caught() {
        let mut k = row_sum(8, 4);
        // The outer stage's store takes the reduction stage's load.
        k.stages[1].stores[0].value = k.stages[0].values[0];
        let e = k.verify().unwrap_err();
        assert!(e.msg.contains("not a value of that stage"), "{e}");

        let mut k = row_sum(8, 4);
        let one = crate::kernel::ValueId(k.values.len() as u32);
        k.values.push((KExpr::Const(Const::Float(1.0)), DType::F32));
        let x = k.stages[0].values[0];
        let sum = crate::kernel::ValueId(k.values.len() as u32);
        k.values.push((KExpr::Binary(Op::Add, x, one), DType::F32));
        k.stages[0].values.push(sum);
        k.stages[0].values.push(one);
        let e = k.verify().unwrap_err();
        assert!(e.msg.contains("before it is defined"), "{e}");
    }

    #[test]
    fn accumulators_read_early_and_stores_to_inputs_are_caught() {
        let mut k = row_sum(8, 4);
        let acc = k.stages[0].accumulators[0].id;
        let early = crate::kernel::ValueId(k.values.len() as u32);
        k.values.push((KExpr::Acc(acc), DType::F32));
        k.stages[0].values.push(early);
        let e = k.verify().unwrap_err();
        assert!(e.msg.contains("before a stage before 0 finishes it"), "{e}");

        let mut k = row_sum(8, 4);
        k.stages[1].stores[0].arg = ArgId(0);
        let e = k.verify().unwrap_err();
        assert!(e.msg.contains("an input"), "{e}");
    }

    #[test]
    fn an_outer_stage_may_not_index_with_reduction_variables() {
        let mut k = row_sum(8, 4);
        k.stages[1].stores[0].index = IndexExpr::var(Var::p(1));
        let e = k.verify().unwrap_err();
        assert!(e.msg.contains("indexes with p1"), "{e}");
    }
}
