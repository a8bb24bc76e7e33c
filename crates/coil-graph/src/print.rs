//! Printer for PyTorch's readable FX graph text: the same bytes `print_readable()` writes
//! (source-location comments aside), so printed graphs parse back and diff cleanly against
//! PyTorch's own dumps.

use coil_kernel::format_float;
use std::fmt::Write;

use crate::{Arg, Graph, NodeId, NodeKind};

/// Prints a graph in the readable FX format.
///
/// Like FX's code generator, each statement that is the last reader of some values ends with
/// `;  a = b = None` naming them (in the order the statement reads them); graph outputs are
/// never released, and a value nobody reads is released right after it is computed.
/// Multi-output values get no type annotation.
pub fn print_graph(g: &Graph) -> String {
    let releases = releases(g);
    let mut out = String::from("class GraphModule(torch.nn.Module):\n    def forward(self");
    for &id in g.inputs() {
        let node = g.node(id);
        let _ = write!(out, ", {}: \"{}\"", node.name, node.meta());
    }
    out.push_str("):\n");
    for (id, node) in g.nodes() {
        let rhs = match &node.kind {
            NodeKind::Input => continue,
            NodeKind::Call(call) => {
                let mut s = format!("torch.ops.{}(", call.op);
                let mut first = true;
                for a in &call.args {
                    if !std::mem::take(&mut first) {
                        s.push_str(", ");
                    }
                    write_arg(g, a, &mut s);
                }
                for (k, a) in &call.kwargs {
                    if !std::mem::take(&mut first) {
                        s.push_str(", ");
                    }
                    s.push_str(k);
                    s.push_str(" = ");
                    write_arg(g, a, &mut s);
                }
                s.push(')');
                s
            }
            NodeKind::GetItem { source, index } => format!("{}[{index}]", g.node(*source).name),
        };
        out.push_str("        ");
        out.push_str(&node.name);
        if !node.multi_output {
            let _ = write!(out, ": \"{}\"", node.meta());
        }
        out.push_str(" = ");
        out.push_str(&rhs);
        let freed = &releases[id.index()];
        if !freed.is_empty() {
            out.push_str(";  ");
            for &f in freed {
                out.push_str(&g.node(f).name);
                out.push_str(" = ");
            }
            out.push_str("None");
        }
        out.push('\n');
    }
    out.push_str("        return (");
    for (i, &o) in g.outputs().iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&g.node(o).name);
    }
    if g.outputs().len() == 1 {
        out.push(',');
    }
    out.push_str(")\n");
    out
}

/// For each node (by `NodeId::index()`), the values its statement releases: FX's
/// `delete_unused_values`. Walking backwards, the first reader met is a value's last use; the
/// `return` reads the outputs last, so they are never released; graph inputs release nothing
/// themselves; a non-input value with no reader releases itself.
fn releases(g: &Graph) -> Vec<Vec<NodeId>> {
    let n = g.positions().len();
    let mut released = vec![false; n];
    let mut read = vec![false; n];
    for &o in g.outputs() {
        released[o.index()] = true;
        read[o.index()] = true;
    }
    let mut out = vec![Vec::new(); n];
    for &id in g.order().iter().rev() {
        for src in g.node(id).inputs() {
            read[src.index()] = true;
            if !std::mem::replace(&mut released[src.index()], true) {
                out[id.index()].push(src);
            }
        }
    }
    for (id, node) in g.nodes() {
        if !read[id.index()] && !matches!(node.kind, NodeKind::Input) {
            out[id.index()].push(id);
        }
    }
    out
}

fn write_arg(g: &Graph, a: &Arg, out: &mut String) {
    match a {
        Arg::Node(id) => out.push_str(&g.node(*id).name),
        Arg::Int(i) => {
            let _ = write!(out, "{i}");
        }
        Arg::Float(x) => out.push_str(&format_float(*x)),
        Arg::Bool(true) => out.push_str("True"),
        Arg::Bool(false) => out.push_str("False"),
        Arg::None => out.push_str("None"),
        Arg::Str(s) => out.push_str(&py_repr_str(s)),
        Arg::DType(d) => out.push_str(d.torch_name()),
        Arg::Layout(crate::Layout::Strided) => out.push_str("torch.strided"),
        Arg::MemoryFormat(m) => out.push_str(m.torch_name()),
        Arg::Device(d) => {
            let _ = write!(out, "device(type={}", py_repr_str(&d.kind));
            if let Some(i) = d.index {
                let _ = write!(out, ", index={i}");
            }
            out.push(')');
        }
        Arg::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_arg(g, item, out);
            }
            out.push(']');
        }
    }
}

/// A string as Python's `repr` writes it: single quotes unless the text has a `'` and no `"`.
fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if c.is_control() => {
                let code = c as u32;
                if code <= 0xff {
                    let _ = write!(out, "\\x{code:02x}");
                } else if code <= 0xffff {
                    let _ = write!(out, "\\u{code:04x}");
                } else {
                    let _ = write!(out, "\\U{code:08x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_python_repr() {
        let cases: &[(f64, &str)] = &[
            (1.1, "1.1"),
            (0.1, "0.1"),
            (1e-05, "1e-05"),
            (1e-06, "1e-06"),
            (2.8284271247461903, "2.8284271247461903"),
            (1.0, "1.0"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::INFINITY, "inf"),
            (f64::NAN, "nan"),
            (1e16, "1e+16"),
            (1e15, "1000000000000000.0"),
            (123456789012345680.0, "1.2345678901234568e+17"),
            (9999999999999998.0, "9999999999999998.0"),
            (0.0001, "0.0001"),
            (0.00012, "0.00012"),
            (0.000012, "1.2e-05"),
            (-2.5, "-2.5"),
            (0.125, "0.125"),
            (100.0, "100.0"),
            (1.5e300, "1.5e+300"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1.0 / 3.0, "0.3333333333333333"),
            (-1e-7, "-1e-07"),
            (12345.678, "12345.678"),
            (3.0e-5, "3e-05"),
        ];
        for &(x, want) in cases {
            assert_eq!(format_float(x), want, "{x:?}");
            if !x.is_nan() {
                assert_eq!(want.parse::<f64>().ok(), Some(x), "{want} reads back");
            }
        }
    }

    #[test]
    fn strings_print_like_python_repr() {
        assert_eq!(py_repr_str("tanh"), "'tanh'");
        assert_eq!(py_repr_str("it's"), "\"it's\"");
        assert_eq!(py_repr_str("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(py_repr_str("back\\slash\n"), "'back\\\\slash\\n'");
        assert_eq!(py_repr_str("é\u{1}"), "'é\\x01'");
    }
}
