//! Read and write sets of buffers, as the scheduler consumes them: `MemoryDep` (buffer, index,
//! ranges) over canonical variables `d0..`, `StarDep` (the whole buffer, no expressible index),
//! `WeakDep` (ordering only).

use std::fmt;

use coil_graph::DType;

use crate::LoweredGraph;
use crate::body::LoopBody;
use crate::index::{IndexExpr, Var};
use crate::ir::BufRef;

/// A read or write of `buffer` at `index`, over variables `d0..d<k>` with `ranges[i]` the range
/// of `d<i>`: the buffer's own loop variables (iteration then reduction, size-1 dims dropped),
/// trailing variables the index does not use removed (so a reduction's write and a pointwise
/// reader of the result look alike). Equal deps touch the same elements in the same loop order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MemoryDep {
    /// The buffer.
    pub buffer: BufRef,
    /// The flat element offset over `d0..`.
    pub index: IndexExpr,
    /// The range of each `d<i>`.
    pub ranges: Vec<usize>,
    /// The buffer's dtype (for byte counts).
    pub dtype: DType,
}

impl MemoryDep {
    /// Elements touched: the product of the ranges of the variables the index uses.
    pub fn numel(&self) -> usize {
        let vars = self.index.vars();
        self.ranges
            .iter()
            .enumerate()
            .filter(|(i, _)| vars.contains(&Var::d(*i)))
            .map(|(_, r)| *r)
            .product()
    }

    /// Bytes touched.
    pub fn numbytes(&self) -> usize {
        self.numel() * self.dtype.itemsize()
    }

    /// True when the index is exactly one variable (a contiguous walk).
    pub fn is_contiguous(&self) -> bool {
        self.index.as_var().is_some()
    }

    /// True when the index is a constant (one element).
    pub fn is_scalar(&self) -> bool {
        self.index.as_constant().is_some()
    }

    /// Inductor's per-dependency normalization: adjacent variables that the (affine) index
    /// treats as one (`coef(d_i) == coef(d_i+1) * range(d_i+1)`) merge, and variables are
    /// renumbered. Two reads of the same elements in the same order then compare equal even
    /// when their loops were split differently (`1024*d0 + d1` over 1024x1024 and `d0` over
    /// 1048576 both become `d0` over 1048576).
    pub fn normalized(&self) -> MemoryDep {
        let Some((coefs, constant)) = self.index.as_affine() else {
            return self.clone();
        };
        let coef = |i: usize| {
            coefs
                .iter()
                .find(|(v, _)| *v == Var::d(i))
                .map_or(0, |(_, c)| *c)
        };
        // Groups of consecutive dims, each with (coefficient of its last dim, total range).
        let mut groups: Vec<(i64, usize)> = Vec::new();
        for (i, &r) in self.ranges.iter().enumerate() {
            let c = coef(i);
            match groups.last_mut() {
                Some((gc, gr)) if *gc == c.saturating_mul(r as i64) => {
                    *gc = c;
                    *gr *= r;
                }
                _ => groups.push((c, r)),
            }
        }
        let mut index = IndexExpr::constant(constant);
        for (i, (c, _)) in groups.iter().enumerate() {
            index = index.add(&IndexExpr::var(Var::d(i)).scale(*c));
        }
        let mut ranges: Vec<usize> = groups.iter().map(|(_, r)| *r).collect();
        while let Some(last) = ranges.len().checked_sub(1) {
            if index.contains_var(Var::d(last)) {
                break;
            }
            ranges.pop();
        }
        MemoryDep {
            buffer: self.buffer,
            index,
            ranges,
            dtype: self.dtype,
        }
    }
}

/// A dependency on a whole buffer that no index expresses (extern kernel operands and outputs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StarDep {
    /// The buffer.
    pub buffer: BufRef,
    /// Its element count.
    pub numel: usize,
    /// Its dtype.
    pub dtype: DType,
}

/// An ordering-only dependency (no data moves; kept for mutation ordering, which the
/// functional graphs coil lowers do not need yet).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WeakDep {
    /// The buffer.
    pub buffer: BufRef,
}

/// A read or write.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dep {
    /// Indexed access.
    Memory(MemoryDep),
    /// Whole-buffer access.
    Star(StarDep),
    /// Ordering only.
    Weak(WeakDep),
}

impl Dep {
    /// The buffer depended on, to rename it.
    pub(crate) fn buffer_mut(&mut self) -> &mut BufRef {
        match self {
            Dep::Memory(m) => &mut m.buffer,
            Dep::Star(s) => &mut s.buffer,
            Dep::Weak(w) => &mut w.buffer,
        }
    }

    /// The buffer depended on.
    pub fn buffer(&self) -> BufRef {
        match self {
            Dep::Memory(m) => m.buffer,
            Dep::Star(s) => s.buffer,
            Dep::Weak(w) => w.buffer,
        }
    }

    /// Bytes moved (0 for weak deps).
    pub fn numbytes(&self) -> usize {
        match self {
            Dep::Memory(m) => m.numbytes(),
            Dep::Star(s) => s.numel * s.dtype.itemsize(),
            Dep::Weak(_) => 0,
        }
    }

    /// The memory dep, if this is one.
    pub fn as_memory(&self) -> Option<&MemoryDep> {
        match self {
            Dep::Memory(m) => Some(m),
            _ => None,
        }
    }

    /// Prints as Inductor does, with the graph supplying buffer names:
    /// `MemoryDep('x', 1024*d0 + d1, {d0: 1024, d1: 1024})`, `StarDep('buf0')`.
    pub fn display<'a>(&'a self, graph: &'a LoweredGraph) -> impl fmt::Display + 'a {
        DepDisplay { dep: self, graph }
    }
}

struct DepDisplay<'a> {
    dep: &'a Dep,
    graph: &'a LoweredGraph,
}

impl fmt::Display for DepDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = self.graph.name(self.dep.buffer());
        match self.dep {
            Dep::Memory(m) => {
                write!(f, "MemoryDep('{name}', {}, {{", m.index)?;
                for (i, r) in m.ranges.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}: {r}", Var::d(i))?;
                }
                f.write_str("})")
            }
            Dep::Star(_) => write!(f, "StarDep('{name}')"),
            Dep::Weak(_) => write!(f, "WeakDep('{name}')"),
        }
    }
}

/// The dep of `buffer` at `index`, an expression over a body's variables `var_ranges`
/// (`p<i>` at position `i` becomes `d<i>`).
pub(crate) fn memory_dep(
    buffer: BufRef,
    index: &IndexExpr,
    var_ranges: &[(Var, usize)],
    dtype: DType,
) -> MemoryDep {
    let index = index.rename(
        &mut |v| match var_ranges.iter().position(|(w, _)| *w == v) {
            Some(i) => Var::d(i),
            None => v,
        },
    );
    let mut ranges: Vec<usize> = var_ranges.iter().map(|(_, r)| *r).collect();
    while let Some(last) = ranges.len().checked_sub(1) {
        if index.contains_var(Var::d(last)) {
            break;
        }
        ranges.pop();
    }
    MemoryDep {
        buffer,
        index,
        ranges,
        dtype,
    }
}

/// Reads (one per distinct load, in body order) and the write of a computed buffer. A load
/// through an indirect index (`ind<n>`) reads elements no expression over the loop variables
/// names: it is a `StarDep` on the whole buffer (Inductor's rule), so it never fuses as if it
/// read a matching index. `layout_of` gives a buffer's dtype and storage length.
pub(crate) fn body_deps(
    body: &LoopBody,
    out: BufRef,
    out_dtype: DType,
    layout_of: impl Fn(BufRef) -> (DType, usize),
) -> (Vec<Dep>, Vec<Dep>) {
    let mut reads: Vec<Dep> = Vec::new();
    for (_, buffer, index) in body.loads() {
        let (dtype, numel) = layout_of(buffer);
        let dep = if index.indirect_nodes().is_empty() {
            Dep::Memory(memory_dep(buffer, index, &body.var_ranges, dtype))
        } else {
            Dep::Star(StarDep {
                buffer,
                numel,
                dtype,
            })
        };
        if !reads.contains(&dep) {
            reads.push(dep);
        }
    }
    let write = Dep::Memory(memory_dep(
        out,
        &body.store_index,
        &body.var_ranges,
        out_dtype,
    ));
    (reads, vec![write])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::idx::Idx;
    use crate::ir::InputId;

    #[test]
    fn trailing_unused_vars_drop_and_normalization_merges() {
        let x = BufRef::Input(InputId::new(0));
        let vr = [(Var::p(0), 1024), (Var::p(1), 1024)];
        let idx = IndexExpr::var(Var::p(0))
            .scale(1024)
            .add(&IndexExpr::var(Var::p(1)));
        let d = memory_dep(x, &idx, &vr, DType::F32);
        assert_eq!(d.index.to_string(), "1024*d0 + d1");
        assert_eq!(d.ranges, vec![1024, 1024]);
        assert_eq!(d.numbytes(), 4 << 20);
        let n = d.normalized();
        assert_eq!(n.index.to_string(), "d0");
        assert_eq!(n.ranges, vec![1 << 20]);
        let row = memory_dep(x, &IndexExpr::var(Var::p(0)), &vr, DType::F32);
        assert_eq!(row.ranges, vec![1024]);
        let col = memory_dep(x, &IndexExpr::var(Var::p(1)), &vr, DType::F32);
        assert_eq!(col.ranges, vec![1024, 1024]);
        assert_eq!(col.numel(), 1024);
        // A broadcast column read normalizes its leading dims away but keeps its shape.
        assert_eq!(col.normalized(), col);
    }
}
