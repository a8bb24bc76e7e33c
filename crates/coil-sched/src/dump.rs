//! Text forms of a schedule: `ir_post_fusion.txt` (Inductor's post-fusion node dump) and
//! `graph.dot` (the buffers and their data flow, coloured and clustered by kernel).

use std::fmt::Write;

use coil_lower::BufRef;

use crate::deps::DepId;

use crate::node::NodeKind;
use crate::schedule::Schedule;

/// `[a]` on one line, or one item per line when there are several (Inductor's `pformat`).
fn list(items: &[String]) -> String {
    match items {
        [] => "[]".into(),
        [one] => format!("[{one}]"),
        many => format!("[\n    {}]", many.join(",\n    ")),
    }
}

/// A colour per kernel, cycling (ColorBrewer's Set3).
const PALETTE: &[&str] = &[
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f",
];

impl Schedule<'_> {
    /// Deps as Inductor's `pformat` prints a set: sorted by their text.
    fn dep_list<'a>(&self, deps: impl Iterator<Item = &'a DepId>) -> String {
        let mut items: Vec<String> = deps
            .map(|&d| self.dep(d).display(self.graph).to_string())
            .collect();
        items.sort();
        items.dedup();
        list(&items)
    }

    /// Inductor's `ir_post_fusion.txt`: for every node in execution order, its class (and
    /// its members' classes), writes, met and unmet dependencies, group and kernel name.
    pub fn ir_post_fusion(&self) -> String {
        let mut out = String::new();
        for &id in &self.order {
            let n = &self.nodes[id];
            let name = &n.name;
            let inner = match n.kind {
                NodeKind::Fused => self
                    .members(id)
                    .map(|m| m.class_name())
                    .collect::<Vec<_>>()
                    .join(","),
                NodeKind::Extern => "ExternKernelOut".to_string(),
                NodeKind::Scheduler | NodeKind::Nop => "ComputedBuffer".to_string(),
            };
            let _ = writeln!(out, "{name}: {}({inner})", n.class_name());
            let _ = writeln!(
                out,
                "{name}.writes = {}",
                self.dep_list(n.read_writes.writes.iter())
            );
            let _ = writeln!(
                out,
                "{name}.met_dependencies = {}",
                self.dep_list(n.met_dependencies().iter())
            );
            let _ = writeln!(
                out,
                "{name}.unmet_dependencies = {}",
                self.dep_list(n.unmet.iter())
            );
            if let Some(o) = &n.outer_loop {
                let parts: Vec<&str> = o.parts.iter().map(|&p| self.name(p)).collect();
                let _ = writeln!(
                    out,
                    "{name}.outer_loop = (depth {}, [{}])",
                    o.depth,
                    parts.join(", ")
                );
            }
            let _ = writeln!(
                out,
                "{name}.group.iteration = ({}, {})",
                n.group.numel, n.group.rnumel
            );
            if let Some(k) = self.kernel_of(id) {
                let _ = writeln!(out, "{name}.kernel = {}", k.name);
            }
            out.push('\n');
        }
        out
    }

    /// Graphviz text: graph inputs as ellipses, buffers as boxes labelled with their
    /// operation and origins, one cluster and colour per kernel, an edge per read.
    pub fn graph_dot(&self) -> String {
        let mut out = String::from(
            "digraph coil {\n  rankdir=TB;\n  node [shape=box, style=filled, fontname=\"monospace\", fontsize=10];\n",
        );
        for input in self.graph.inputs() {
            let _ = writeln!(
                out,
                "  \"{0}\" [shape=ellipse, fillcolor=white, label=\"{0}\"];",
                input.name
            );
        }
        for (k, &id) in self.order.iter().enumerate() {
            let n = &self.nodes[id];
            let colour = PALETTE[k % PALETTE.len()];
            let label = self
                .kernel_of(id)
                .map_or_else(|| n.name.clone(), |k| k.name.clone());
            let _ = writeln!(out, "  subgraph \"cluster_{}\" {{", n.name);
            let _ = writeln!(out, "    label=\"{label}\";");
            for b in n.buffers() {
                let buf = self.graph.buffer(b);
                let origins: Vec<&str> = buf.origins.iter().map(|o| o.node.as_str()).collect();
                let (numel, rnumel) = buf.group();
                let _ = writeln!(
                    out,
                    "    \"{b}\" [fillcolor=\"{colour}\", label=\"{}: {b}\\n{}\\n({numel}, {rnumel})\"];",
                    crate::OpId::of_buffer(b),
                    origins.join(", ")
                );
            }
            out.push_str("  }\n");
        }
        for &id in &self.order {
            for b in self.nodes[id].buffers() {
                let mut seen: Vec<BufRef> = Vec::new();
                for d in &self.graph.buffer(b).reads {
                    let src = d.buffer();
                    if seen.contains(&src) {
                        continue;
                    }
                    seen.push(src);
                    let _ = writeln!(out, "  \"{}\" -> \"{b}\";", self.graph.name(src));
                }
            }
        }
        for (i, o) in self.graph.outputs().iter().enumerate() {
            let _ = writeln!(
                out,
                "  \"output{i}\" [shape=ellipse, fillcolor=white, label=\"output {i}\"];\n  \"{}\" -> \"output{i}\";",
                self.graph.name(o.buffer)
            );
        }
        out.push_str("}\n");
        out
    }
}
