//! The readable dump of a lowered graph, in the shape of Inductor's `ir_pre_fusion.txt`: per
//! buffer its kind, layout, origins, writes, reads, group, and loop body as `ops.*` calls.

use std::collections::HashMap;
use std::fmt::Write;

use crate::LoweredGraph;
use crate::body::{Expr, ExprId, LoopBody};
use crate::ir::{BufRef, Buffer, BufferKind, FixedLayout};

/// `[a]` on one line, or one item per line when there are several.
fn list(items: &[String]) -> String {
    match items {
        [] => "[]".into(),
        [one] => format!("[{one}]"),
        many => format!("[\n    {}]", many.join(",\n    ")),
    }
}

fn join_sizes(sizes: &[usize]) -> String {
    format!("{sizes:?}")
}

impl LoweredGraph {
    fn view_str(&self, b: BufRef, layout: &FixedLayout) -> String {
        if layout == self.layout(b) {
            self.name(b)
        } else {
            format!("ReinterpretView('{}', {layout})", self.name(b))
        }
    }

    /// The dump of every buffer, like Inductor's `ir_pre_fusion.txt`, then the outputs.
    pub fn ir_pre_fusion(&self) -> String {
        let mut out = String::new();
        for buf in self.buffers.iter() {
            self.dump_buffer(&mut out, buf);
            out.push('\n');
        }
        let outs: Vec<String> = self
            .outputs
            .iter()
            .map(|o| self.view_str(o.buffer, &o.layout))
            .collect();
        let _ = writeln!(out, "graph.outputs = {}", list(&outs));
        out
    }

    fn dump_buffer(&self, out: &mut String, buf: &Buffer) {
        let name = buf.name();
        let kind = match &buf.kind {
            BufferKind::Computed(_) => "ComputedBuffer",
            BufferKind::Extern(_) => "ExternKernelOut",
        };
        let _ = writeln!(out, "{name}: {kind}");
        let _ = writeln!(out, "{name}.layout = {}", buf.layout);
        let origins: Vec<String> = buf.origins.iter().map(|o| o.node.clone()).collect();
        let _ = writeln!(out, "{name}.origins = [{}]", origins.join(", "));
        let deps = |d: &[crate::Dep]| -> String {
            list(
                &d.iter()
                    .map(|d| d.display(self).to_string())
                    .collect::<Vec<_>>(),
            )
        };
        let _ = writeln!(out, "{name}.writes = {}", deps(&buf.writes));
        let _ = writeln!(out, "{name}.reads = {}", deps(&buf.reads));
        let (numel, rnumel) = buf.group();
        let _ = writeln!(out, "{name}.group.iteration = ({numel}, {rnumel})");
        match &buf.kind {
            BufferKind::Computed(c) => {
                let body = &c.body;
                let it: Vec<usize> = body.iter_vars().iter().map(|(_, r)| *r).collect();
                let red: Vec<usize> = body.reduction_vars().iter().map(|(_, r)| *r).collect();
                let _ = writeln!(
                    out,
                    "{name}.sizes = ({}, {})",
                    join_sizes(&it),
                    join_sizes(&red)
                );
                self.dump_body(out, &name, body);
            }
            BufferKind::Extern(e) => {
                let _ = writeln!(out, "{name}.kernel = {}", e.kind.kernel_name());
                let inputs: Vec<String> = e
                    .inputs
                    .iter()
                    .map(|i| self.view_str(i.buffer, &i.layout))
                    .collect();
                let _ = writeln!(out, "{name}.inputs = {}", list(&inputs));
            }
        }
    }

    fn dump_body(&self, out: &mut String, name: &str, body: &LoopBody) {
        let _ = writeln!(out, "class {name}_loop_body:");
        let ranges: Vec<String> = body
            .var_ranges
            .iter()
            .map(|(v, r)| format!("{v}: {r}"))
            .collect();
        let _ = writeln!(out, "    var_ranges = {{{}}}", ranges.join(", "));
        // Distinct index expressions, in order of first use.
        let mut indices: Vec<&crate::IndexExpr> = Vec::new();
        for (_, e) in body.exprs.iter() {
            if let Expr::Load { index, .. } | Expr::IndexExpr { index, .. } = e
                && !indices.contains(&index)
            {
                indices.push(index);
            }
        }
        if !indices.contains(&&body.store_index) {
            indices.push(&body.store_index);
        }
        for (i, e) in indices.iter().enumerate() {
            let _ = writeln!(out, "    index{i} = {e}");
        }
        let _ = writeln!(out, "    def body(self, ops):");
        let mut counts: HashMap<&'static str, usize> = HashMap::new();
        let mut fresh = |base: &'static str| {
            let n = counts.entry(base).or_insert(0);
            let s = if *n == 0 {
                base.to_string()
            } else {
                format!("{base}_{n}")
            };
            *n += 1;
            s
        };
        let mut names: Vec<String> = Vec::with_capacity(body.exprs.len());
        let index_name = |e: &crate::IndexExpr| {
            let i = indices.iter().position(|x| *x == e).unwrap_or(0);
            format!("'index{i}'")
        };
        let nm = |names: &Vec<String>, id: ExprId| names[id.index()].clone();
        for (id, e) in body.exprs.iter() {
            let line = match e {
                Expr::Load {
                    buffer,
                    index,
                    mask,
                } => {
                    let gi = fresh("get_index");
                    let _ = writeln!(out, "        {gi} = self.get_index({})", index_name(index));
                    let mask = mask
                        .map(|m| format!(", mask={}", nm(&names, m)))
                        .unwrap_or_default();
                    let n = fresh("load");
                    let s = format!("{n} = ops.load('{}', {gi}{mask})", self.name(*buffer));
                    names.push(n);
                    s
                }
                Expr::Constant { value, dtype } => {
                    let n = fresh("constant");
                    let s = format!("{n} = ops.constant({value}, {})", dtype.torch_name());
                    names.push(n);
                    s
                }
                Expr::IndexExpr { index, dtype } => {
                    let gi = fresh("get_index");
                    let _ = writeln!(out, "        {gi} = self.get_index({})", index_name(index));
                    let n = fresh("index_expr");
                    let s = format!("{n} = ops.index_expr({gi}, {})", dtype.torch_name());
                    names.push(n);
                    s
                }
                Expr::IndirectIndex {
                    value,
                    size,
                    wrap_negative,
                    check,
                } => {
                    let n = format!("ind{}", id.index());
                    let s = format!(
                        "{n} = ops.indirect_indexing({}, {size}, wrap_neg={}, check={check})",
                        nm(&names, *value),
                        if *wrap_negative { "True" } else { "False" }
                    );
                    names.push(n);
                    s
                }
                Expr::ToDtype { value, dtype } => {
                    let n = fresh("to_dtype");
                    let s = format!(
                        "{n} = ops.to_dtype({}, {})",
                        nm(&names, *value),
                        dtype.torch_name()
                    );
                    names.push(n);
                    s
                }
                Expr::Bitcast { value, dtype } => {
                    let n = fresh("to_dtype_bitcast");
                    let s = format!(
                        "{n} = ops.to_dtype_bitcast({}, {}, {})",
                        nm(&names, *value),
                        dtype.torch_name(),
                        body.exprs.dtype(*value).torch_name()
                    );
                    names.push(n);
                    s
                }
                Expr::Unary(op, a) => {
                    let n = fresh(op.name());
                    let s = format!("{n} = ops.{}({})", op.name(), nm(&names, *a));
                    names.push(n);
                    s
                }
                Expr::Binary(op, a, b) => {
                    let n = fresh(op.name());
                    let s = format!(
                        "{n} = ops.{}({}, {})",
                        op.name(),
                        nm(&names, *a),
                        nm(&names, *b)
                    );
                    names.push(n);
                    s
                }
                Expr::Ternary(op, a, b, c) => {
                    let n = fresh(op.name());
                    let s = format!(
                        "{n} = ops.{}({}, {}, {})",
                        op.name(),
                        nm(&names, *a),
                        nm(&names, *b),
                        nm(&names, *c)
                    );
                    names.push(n);
                    s
                }
                Expr::Scan { scan_type, value } => {
                    let n = fresh("scan");
                    let s = format!(
                        "{n} = ops.scan({}, '{}', {})",
                        body.exprs.dtype(id).torch_name(),
                        scan_type,
                        nm(&names, *value)
                    );
                    names.push(n);
                    s
                }
                Expr::Reduction {
                    reduction_type,
                    value,
                } => {
                    let n = fresh("reduction");
                    let s = format!(
                        "{n} = ops.reduction({}, {}, '{}', {})",
                        body.exprs.dtype(id).torch_name(),
                        body.exprs.dtype(*value).torch_name(),
                        reduction_type,
                        nm(&names, *value)
                    );
                    names.push(n);
                    s
                }
            };
            let _ = writeln!(out, "        {line}");
        }
        let gi = fresh("get_index");
        let _ = writeln!(
            out,
            "        {gi} = self.get_index({})",
            index_name(&body.store_index)
        );
        let value = nm(&names, body.value);
        let st = if body.reduction().is_some() {
            let n = fresh("store_reduction");
            let _ = writeln!(
                out,
                "        {n} = ops.store_reduction('{name}', {gi}, {value})"
            );
            n
        } else {
            let n = fresh("store");
            let _ = writeln!(
                out,
                "        {n} = ops.store('{name}', {gi}, {value}, None)"
            );
            n
        };
        let _ = writeln!(out, "        return {st}");
    }
}
