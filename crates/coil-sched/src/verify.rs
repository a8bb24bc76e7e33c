//! The schedule's verifier (Cranelift's `verify_if` between stages): every live operation is
//! in exactly one top-level node, the nodes and their members run in an order that respects
//! every dependency (so no fused node forms a cycle), and buffers local to a kernel are read
//! by no other kernel and never returned.

use coil_lower::{BufRef, BufferId};

use crate::error::SchedError;
use crate::ids::OpId;
use crate::schedule::Schedule;

impl Schedule<'_> {
    /// Checks the schedule's invariants; on success returns the buffers in execution order
    /// (what the lowering's interpreter can replay with
    /// [`coil_lower::LoweredGraph::evaluate_in_order`]).
    pub fn verify(&self) -> Result<Vec<BufferId>, SchedError> {
        let bad = |msg: String| Err(SchedError::Invalid(msg));
        let n = self.graph.buffers().len();
        let mut pos: Vec<Option<(usize, usize)>> = vec![None; n];
        let mut order = Vec::new();
        for (i, node) in self.nodes().enumerate() {
            for (j, &op) in node.ops().iter().enumerate() {
                let Some(slot) = pos.get_mut(op.index()) else {
                    return bad(format!("{op} is not an operation of the lowered graph"));
                };
                if slot.replace((i, j)).is_some() {
                    return bad(format!("{op} is scheduled twice"));
                }
                if self.node_of(op) != Some(node.id()) {
                    return bad(format!("{op} maps to the wrong node"));
                }
                order.push(op.buffer());
            }
        }
        for b in self.graph.buffers() {
            let op = OpId::of_buffer(b.id);
            let removed = self.dead.contains(op);
            match (pos[op.index()], removed) {
                (None, false) => return bad(format!("{op} is neither scheduled nor removed")),
                (Some(_), true) => return bad(format!("{op} is scheduled and removed")),
                _ => {}
            }
            let Some(at) = pos[op.index()] else { continue };
            for &p in self.preds(op) {
                match pos[p.index()] {
                    Some(pa) if pa < at => {}
                    _ => return bad(format!("{op} runs before {p}, which it depends on")),
                }
            }
        }
        for k in self.kernels() {
            for &local in &k.local {
                if let Some(other) = self
                    .kernels()
                    .iter()
                    .find(|o| o.node != k.node && o.reads.contains(&local))
                {
                    return bad(format!(
                        "{} reads {}, local to {}",
                        other.name,
                        self.graph.name(local),
                        k.name
                    ));
                }
                if let BufRef::Buffer(b) = local
                    && self.is_output(b)
                {
                    return bad(format!("{b} is returned but local to {}", k.name));
                }
            }
        }
        Ok(order)
    }
}

#[cfg(test)]
mod tests {
    use crate::{CppLoops, NoFusion, SchedConfig};

    const TEXT: &str = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[64, 64]"):
        a: "f32[64]" = torch.ops.aten.amax.default(x, [1]);  x = None
        b: "f32[64]" = torch.ops.aten.relu.default(a);  a = None
        c: "f32[]" = torch.ops.aten.sum.default(b);  b = None
        return (c,)
"#;

    #[test]
    fn a_schedule_verifies_and_a_reordered_one_does_not() {
        let g = coil_graph::parse(TEXT).expect("parses");
        let lowered = coil_lower::lower(
            &g,
            &coil_lower::LowerConfig {
                inline_all: false,
                ..coil_lower::LowerConfig::cpu()
            },
        )
        .expect("lowers");
        let mut s =
            crate::schedule(&lowered, SchedConfig::cpu(), &CppLoops, &NoFusion).expect("schedules");
        let order = s.verify().expect("verifies");
        assert_eq!(order.len(), s.order().len());
        assert!(s.order().len() >= 2, "{}", s.ir_post_fusion());
        s.order.swap(0, 1);
        let e = s
            .verify()
            .expect_err("the reader now runs first")
            .to_string();
        assert!(e.contains("which it depends on"), "{e}");
        s.order.swap(0, 1);
        let first = s.order[0];
        s.order.push(first);
        let e = s.verify().expect_err("scheduled twice").to_string();
        assert!(e.contains("scheduled twice"), "{e}");
    }
}
