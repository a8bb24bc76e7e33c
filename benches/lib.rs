//! Shared set-up for coil's criterion benchmarks (the benches themselves are the `[[bench]]`
//! targets beside this file).

pub mod cpu_kernels;

/// The zoo model `name` at article size, parsed.
pub fn article_graph(name: &str) -> coil_graph::Graph {
    coil_models::find(name)
        .and_then(|m| m.graph(coil_models::Size::Article).ok())
        .unwrap_or_else(|| panic!("zoo model {name} parses"))
}
