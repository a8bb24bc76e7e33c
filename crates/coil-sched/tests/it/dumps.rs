//! `graph.dot`: buffers clustered and coloured by kernel, graph inputs and outputs, an edge
//! per read.

use coil_lower::LowerConfig;

use crate::common::{inductor_cpu, lower, zoo};

#[test]
fn graph_dot_clusters_buffers_by_kernel() {
    let l = lower(&zoo("mm_epilogue"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    let dot = s.graph_dot();
    assert!(dot.starts_with("digraph coil {"));
    assert!(dot.trim_end().ends_with('}'));
    assert_eq!(dot.matches('{').count(), dot.matches('}').count());
    for needle in [
        "subgraph \"cluster_op0\"",
        "label=\"cpu_poi_fused_add_0\";",
        "label=\"extern_kernels.mm\";",
        "\"x\" [shape=ellipse",
        "\"x\" -> \"buf0\";",
        "\"buf0\" -> \"buf1\";",
        "\"w\" -> \"buf1\";",
        "\"buf1\" -> \"buf2\";",
        "\"buf2\" -> \"output0\";",
    ] {
        assert!(dot.contains(needle), "{needle} missing in\n{dot}");
    }
    // One colour per kernel.
    let l = lower(&zoo("softmax"), &LowerConfig::cpu());
    let s = inductor_cpu(&l);
    let dot = s.graph_dot();
    assert_eq!(dot.matches("fillcolor=\"#8dd3c7\"").count(), 4);
    assert_eq!(dot.matches("subgraph").count(), 1);
}
