//! The lowered graph's verifier (Cranelift's `verify_if` between stages): every buffer a body
//! or an extern kernel reads exists and is defined before its reader, every unmasked load and
//! every store stays inside its buffer, extern operands lie inside the buffers they view, and
//! outputs name buffers that exist.

use crate::error::LowerError;
use crate::index::{IndexExpr, VarRanges};
use crate::ir::{BufRef, BufferKind, FixedLayout};
use crate::{Expr, LoweredGraph};

impl LoweredGraph {
    /// Checks the lowered graph's invariants; an error names the buffer and the access.
    pub fn verify(&self) -> Result<(), LowerError> {
        let bad = |msg: String| Err(LowerError::Invalid(msg));
        let exists = |b: BufRef, reader: usize| match b {
            BufRef::Input(i) => i.index() < self.inputs.len(),
            BufRef::Buffer(id) => id.index() < reader,
            BufRef::IndexChecks => false,
        };
        for (pos, buf) in self.buffers.iter().enumerate() {
            let name = buf.name();
            match &buf.kind {
                BufferKind::Computed(c) => {
                    // Indirect indices lie in `0..size` once checked.
                    let mut vr = c.body.var_ranges.clone();
                    for (id, e) in c.body.exprs.iter() {
                        if let Expr::IndirectIndex { size, .. } = e {
                            vr.push((crate::Var::indirect(id.index()), *size));
                        }
                    }
                    let ranges = VarRanges::new(vr);
                    let empty = c.body.var_ranges.iter().any(|&(_, r)| r == 0);
                    for (_, e) in c.body.exprs.iter() {
                        let Expr::Load {
                            buffer,
                            index,
                            mask,
                        } = e
                        else {
                            continue;
                        };
                        if !exists(*buffer, pos) {
                            return bad(format!(
                                "{name} reads {buffer:?}, which is not defined before it"
                            ));
                        }
                        if mask.is_none() && !empty {
                            let len = self.layout(*buffer).storage_len();
                            in_range(&name, "load of", &self.name(*buffer), index, &ranges, len)?;
                        }
                    }
                    // A scan stores at every point, a reduction once per row.
                    let iter = if c.is_scan() {
                        VarRanges::new(c.body.var_ranges.clone())
                    } else {
                        VarRanges::new(c.body.iter_vars().to_vec())
                    };
                    // A scatter stores into its target, at indirect indices.
                    let (target, iter) = match c.scatter {
                        Some(sc) => {
                            let t = BufRef::Buffer(sc.target);
                            if !exists(t, pos) {
                                return bad(format!(
                                    "{name} scatters into {}, which is not defined before it",
                                    sc.target
                                ));
                            }
                            (t, ranges.clone())
                        }
                        None => (BufRef::Buffer(buf.id), iter),
                    };
                    if !empty {
                        let len = self.layout(target).storage_len();
                        let tname = self.name(target);
                        in_range(&name, "store to", &tname, &c.body.store_index, &iter, len)?;
                    }
                }
                BufferKind::Extern(e) => {
                    if e.inputs.len() != e.kind.arity() {
                        return bad(format!(
                            "{name}: {} takes {} operands, has {}",
                            e.kind.kernel_name(),
                            e.kind.arity(),
                            e.inputs.len()
                        ));
                    }
                    for i in &e.inputs {
                        if !exists(i.buffer, pos) {
                            return bad(format!(
                                "{name} reads {:?}, which is not defined before it",
                                i.buffer
                            ));
                        }
                        view_fits(
                            &name,
                            &self.name(i.buffer),
                            &i.layout,
                            self.layout(i.buffer),
                        )?;
                    }
                }
            }
        }
        for (k, o) in self.outputs.iter().enumerate() {
            if !exists(o.buffer, self.buffers.len()) {
                return bad(format!(
                    "output {k} names {:?}, which does not exist",
                    o.buffer
                ));
            }
            view_fits(
                &format!("output {k}"),
                &self.name(o.buffer),
                &o.layout,
                self.layout(o.buffer),
            )?;
        }
        Ok(())
    }
}

fn in_range(
    who: &str,
    what: &str,
    target: &str,
    index: &IndexExpr,
    ranges: &VarRanges,
    len: usize,
) -> Result<(), LowerError> {
    let (lo, hi) = index.bounds(ranges);
    if lo < 0 || hi >= len as i128 {
        return Err(LowerError::Invalid(format!(
            "{who}: the {what} {target}[{index}] reaches [{lo}, {hi}], outside its {len} elements"
        )));
    }
    Ok(())
}

/// A strided view (an extern operand, an output) lies inside the storage it views.
fn view_fits(
    who: &str,
    target: &str,
    view: &FixedLayout,
    base: &FixedLayout,
) -> Result<(), LowerError> {
    if view.numel() > 0 && view.storage_len() > base.storage_len() {
        return Err(LowerError::Invalid(format!(
            "{who}: a view of {target} reaches element {} of {}",
            view.storage_len() - 1,
            base.storage_len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::{BufferKind, LowerConfig};

    #[test]
    fn a_store_outside_its_buffer_is_caught() {
        let g = coil_graph::parse(
            r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[8, 4]"):
        s: "f32[8]" = torch.ops.aten.sum.dim_IntList(x, [1]);  x = None
        return (s,)
"#,
        )
        .expect("parses");
        let mut l = crate::lower(&g, &LowerConfig::cpu()).expect("lowers");
        assert_eq!(l.verify().map_err(|e| e.to_string()), Ok(()));
        let first = l.buffers.ids().next().expect("a buffer");
        let BufferKind::Computed(c) = &mut l.buffers[first].kind else {
            panic!("a computed buffer")
        };
        c.body.store_index = c.body.store_index.add_constant(1);
        let e = l.verify().expect_err("out of range").to_string();
        assert!(
            e.contains("store to buf0[p0 + 1] reaches [1, 8], outside its 8 elements"),
            "{e}"
        );
    }
}
