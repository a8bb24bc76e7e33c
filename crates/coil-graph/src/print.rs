//! Printer for PyTorch's readable FX graph text.

use crate::Graph;

/// Prints a graph in the readable FX format.
pub fn print_graph(_g: &Graph) -> String {
    String::new()
}

/// Formats a float the way Python's `repr` does.
pub fn format_float(x: f64) -> String {
    format!("{x:?}")
}
