//! Decompositions into pointwise ops plus primitive reductions, so the scheduler can fuse
//! them (Inductor's decomposition table, in the same shapes).

use egg::{Applier, Id, PatternAst, Subst, Symbol, rewrite};

use super::{
    Rewrite, add_call, add_int_list, add_lit, full_precision, getitem_users, meta_of, union_into,
    var,
};
use crate::analysis::{AtenGraph, MetaAnalysis};
use crate::lang::{Aten, Lit};

/// The rules of this family.
pub fn rules() -> Vec<Rewrite> {
    vec![
        rewrite!("softmax"; "(_softmax.default ?x ?d False)"
            => "(div.Tensor (exp.default (sub.Tensor ?x (amax.default ?x (list ?d) True) 1)) (sum.dim_IntList (exp.default (sub.Tensor ?x (amax.default ?x (list ?d) True) 1)) (list ?d) True None))"
            if full_precision("?x")),
        rewrite!("log-softmax"; "(_log_softmax.default ?x ?d False)"
            => "(sub.Tensor (sub.Tensor ?x (amax.default ?x (list ?d) True) 1) (log.default (sum.dim_IntList (exp.default (sub.Tensor ?x (amax.default ?x (list ?d) True) 1)) (list ?d) True None)) 1)"
            if full_precision("?x")),
        rewrite!("gelu-erf"; "(gelu.default ?x 'none')"
            => "(mul.Tensor (mul.Tensor ?x 0.5) (add.Tensor (erf.default (mul.Tensor ?x 0.7071067811865476)) 1 1))"
            if full_precision("?x")),
        rewrite!("gelu-tanh"; "(gelu.default ?x 'tanh')"
            => "(mul.Tensor (mul.Tensor ?x 0.5) (add.Tensor (tanh.default (mul.Tensor (add.Tensor ?x (mul.Tensor (mul.Tensor (mul.Tensor ?x ?x) ?x) 0.044715) 1) 0.7978845608028654)) 1 1))"
            if full_precision("?x")),
        rewrite!("silu"; "(silu.default ?x)" => "(mul.Tensor ?x (sigmoid.default ?x))"),
        rewrite!("addmm"; "(addmm.default ?b ?m1 ?m2 1 1)" => "(add.Tensor (mm.default ?m1 ?m2) ?b 1)"),
        rewrite!("mean-dim"; "(mean.dim ?x ?dims ?keepdim None)" => { MeanToSum }),
        rewrite!("mean-all"; "(mean.default ?x None)" => { MeanToSum }),
        rewrite!("var-correction"; "(var.correction ?x ?dims ?correction ?keepdim)" => { Variance }),
        rewrite!("var-dim"; "(var.dim ?x ?dims ?unbiased ?keepdim)" => { Variance }),
        rewrite!("var-all"; "(var.default ?x ?unbiased)" => { Variance }),
        rewrite!("var-mean-correction"; "(var_mean.correction ?x ?dims ?correction ?keepdim)" => { Variance }),
        rewrite!("var-mean-dim"; "(var_mean.dim ?x ?dims ?unbiased ?keepdim)" => { Variance }),
        rewrite!("var-mean-all"; "(var_mean.default ?x ?unbiased)" => { Variance }),
        rewrite!("layer-norm"; "(native_layer_norm.default ?x ?shape ?w ?b ?eps)" => { LayerNorm }),
        rewrite!("split"; "(split_with_sizes.default ?x ?sizes ?dim)" => { SplitToSlices }),
        // The same ops on 16-bit floats: computed in f32 (PyTorch's opmath, Inductor's
        // decompositions), rounded once at the end; the f32 rules above then decompose them.
        rewrite!("softmax-16"; "(_softmax.default ?x ?d False)" => { InF32("_softmax.default") }),
        rewrite!("log-softmax-16"; "(_log_softmax.default ?x ?d False)" => { InF32("_log_softmax.default") }),
        rewrite!("gelu-16"; "(gelu.default ?x ?approximate)" => { InF32("gelu.default") }),
        rewrite!("mean-dim-16"; "(mean.dim ?x ?dims ?keepdim None)" => { InF32("mean.dim") }),
        rewrite!("mean-all-16"; "(mean.default ?x None)" => { InF32("mean.default") }),
        rewrite!("var-correction-16"; "(var.correction ?x ?dims ?correction ?keepdim)" => { InF32("var.correction") }),
        rewrite!("var-dim-16"; "(var.dim ?x ?dims ?unbiased ?keepdim)" => { InF32("var.dim") }),
        rewrite!("var-all-16"; "(var.default ?x ?unbiased)" => { InF32("var.default") }),
        rewrite!("var-mean-correction-16"; "(var_mean.correction ?x ?dims ?correction ?keepdim)" => { InF32("var_mean.correction") }),
        rewrite!("var-mean-dim-16"; "(var_mean.dim ?x ?dims ?unbiased ?keepdim)" => { InF32("var_mean.dim") }),
        rewrite!("var-mean-all-16"; "(var_mean.default ?x ?unbiased)" => { InF32("var_mean.default") }),
        rewrite!("layer-norm-16"; "(native_layer_norm.default ?x ?shape ?w ?b ?eps)" => { InF32("native_layer_norm.default") }),
    ]
}

/// `_to_copy(x, dtype=dtype)`.
fn to_dtype(eg: &mut AtenGraph, x: Id, dtype: coil_graph::DType) -> Id {
    let dt = add_lit(eg, Lit::DType(dtype));
    let none = add_lit(eg, Lit::None);
    let no = add_lit(eg, Lit::Bool(false));
    add_call(eg, "_to_copy.default", &[x, dt, none, none, none, no, none])
}

/// The call of `op` on 16-bit float `?x` redone on f32 copies of its 16-bit tensor operands
/// (weights included), each output rounded back once to its dtype: PyTorch computes these in
/// f32 inside (opmath), and so do Inductor's decompositions.
struct InF32(&'static str);

impl Applier<Aten, MetaAnalysis> for InF32 {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        if !meta_of(eg, s[var("?x")]).is_some_and(|m| m.dtype.is_16_bit_float()) {
            return vec![];
        }
        let Some(op) = coil_graph::OpRef::lookup(self.0) else {
            return vec![];
        };
        let Some(children) = eg[eclass].nodes.iter().find_map(|n| match n {
            Aten::Call(o, c) if *o == op => Some(c.clone()),
            _ => None,
        }) else {
            return vec![];
        };
        let wide: Vec<Id> = children
            .iter()
            .map(|&c| match meta_of(eg, c) {
                Some(m) if m.dtype.is_16_bit_float() => to_dtype(eg, c, coil_graph::DType::F32),
                _ => c,
            })
            .collect();
        let call = eg.add(Aten::Call(op, wide.into()));
        if op.schema().returns == coil_graph::Returns::Tensor {
            let Some(m) = meta_of(eg, eclass) else {
                return vec![];
            };
            let back = to_dtype(eg, call, m.dtype);
            return union_into(eg, eclass, back);
        }
        let mut changed = vec![];
        for (i, user) in getitem_users(eg, eclass) {
            let Some(m) = meta_of(eg, user) else {
                continue;
            };
            let item = eg.add(Aten::GetItem(i, [call]));
            let back = to_dtype(eg, item, m.dtype);
            changed.extend(union_into(eg, user, back));
        }
        changed
    }
}

/// Wrapped reduction dims of `?dims` (all dims when absent or empty) for a tensor of `rank`.
fn dims_of(eg: &AtenGraph, dims: Option<Id>, rank: usize) -> Option<Vec<usize>> {
    let list = match dims {
        None => vec![],
        Some(d) => match eg[d].data.lit() {
            Some(Lit::None) => vec![],
            _ => eg[d].data.ints()?,
        },
    };
    coil_graph::normalize_dims(&list, rank).ok()
}

fn get(s: &Subst, name: &str) -> Option<Id> {
    s.get(var(name)).copied()
}

/// `sum(x, dims, keepdim) / N`, the number of reduced elements (mean as Inductor lowers it:
/// a sum, scaled by the reader).
fn mean_of(eg: &mut AtenGraph, x: Id, dims: &[usize], keepdim: bool) -> Option<Id> {
    let m = meta_of(eg, x)?;
    let n: usize = dims.iter().map(|&d| m.sizes[d]).product();
    let sum = sum_of(eg, x, dims, keepdim);
    let n = add_lit(eg, Lit::Int(n as i64));
    Some(add_call(eg, "div.Tensor", &[sum, n]))
}

fn sum_of(eg: &mut AtenGraph, x: Id, dims: &[usize], keepdim: bool) -> Id {
    let dims: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let dims = add_int_list(eg, &dims);
    let keep = add_lit(eg, Lit::Bool(keepdim));
    let none = add_lit(eg, Lit::None);
    add_call(eg, "sum.dim_IntList", &[x, dims, keep, none])
}

struct MeanToSum;

impl Applier<Aten, MetaAnalysis> for MeanToSum {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let x = s[var("?x")];
        let Some(m) = meta_of(eg, x) else {
            return vec![];
        };
        if !matches!(m.dtype, coil_graph::DType::F32 | coil_graph::DType::F64) {
            return vec![];
        }
        let Some(dims) = dims_of(eg, get(s, "?dims"), m.rank()) else {
            return vec![];
        };
        let keepdim =
            get(s, "?keepdim").and_then(|k| eg[k].data.lit().cloned()) == Some(Lit::Bool(true));
        match mean_of(eg, x, &dims, keepdim) {
            Some(new) => union_into(eg, eclass, new),
            None => vec![],
        }
    }
}

/// `var`/`var_mean` as two passes: `mean = sum(x)/N`, `var = sum((x-mean)^2)/(N - correction)`.
struct Variance;

impl Applier<Aten, MetaAnalysis> for Variance {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let x = s[var("?x")];
        let Some(m) = meta_of(eg, x) else {
            return vec![];
        };
        if !matches!(m.dtype, coil_graph::DType::F32 | coil_graph::DType::F64) {
            return vec![];
        }
        let Some(dims) = dims_of(eg, get(s, "?dims"), m.rank()) else {
            return vec![];
        };
        let keepdim =
            get(s, "?keepdim").and_then(|k| eg[k].data.lit().cloned()) == Some(Lit::Bool(true));
        let correction = match (get(s, "?correction"), get(s, "?unbiased")) {
            (Some(c), _) => match eg[c].data.lit() {
                Some(Lit::None) => 1.0,
                Some(l) => match l.as_f64() {
                    Some(v) => v,
                    None => return vec![],
                },
                None => return vec![],
            },
            (None, Some(u)) => match eg[u].data.lit() {
                Some(Lit::Bool(b)) => *b as i64 as f64,
                _ => return vec![],
            },
            (None, None) => 1.0,
        };
        let n: usize = dims.iter().map(|&d| m.sizes[d]).product();
        let Some(mean_keep) = mean_of(eg, x, &dims, true) else {
            return vec![];
        };
        let one = add_lit(eg, Lit::Int(1));
        let centered = add_call(eg, "sub.Tensor", &[x, mean_keep, one]);
        let squared = add_call(eg, "mul.Tensor", &[centered, centered]);
        let total = sum_of(eg, squared, &dims, keepdim);
        let denom = (n as f64 - correction).max(0.0);
        let denom = if denom.fract() == 0.0 {
            Lit::Int(denom as i64)
        } else {
            Lit::float(denom)
        };
        let denom = add_lit(eg, denom);
        let variance = add_call(eg, "div.Tensor", &[total, denom]);
        let is_pair = eg[eclass]
            .nodes
            .iter()
            .any(|n| matches!(n, Aten::Call(op, _) if op.kind() == coil_graph::OpKind::VarMean));
        if !is_pair {
            return union_into(eg, eclass, variance);
        }
        let Some(mean) = mean_of(eg, x, &dims, keepdim) else {
            return vec![];
        };
        let mut changed = vec![];
        for (i, user) in getitem_users(eg, eclass) {
            let new = if i == 0 { variance } else { mean };
            changed.extend(union_into(eg, user, new));
        }
        changed
    }
}

/// `native_layer_norm` -> (x - mean) * rstd * w + b, with mean and rstd over the trailing
/// `normalized_shape` dims (biased variance, as PyTorch).
struct LayerNorm;

impl Applier<Aten, MetaAnalysis> for LayerNorm {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (x, shape, w, b, eps) = (
            s[var("?x")],
            s[var("?shape")],
            s[var("?w")],
            s[var("?b")],
            s[var("?eps")],
        );
        let Some(m) = meta_of(eg, x) else {
            return vec![];
        };
        if !matches!(m.dtype, coil_graph::DType::F32 | coil_graph::DType::F64) {
            return vec![];
        }
        let Some(k) = eg[shape].data.ints().map(|v| v.len()) else {
            return vec![];
        };
        if k > m.rank() {
            return vec![];
        }
        let dims: Vec<usize> = (m.rank() - k..m.rank()).collect();
        let n: usize = dims.iter().map(|&d| m.sizes[d]).product();
        let Some(mean) = mean_of(eg, x, &dims, true) else {
            return vec![];
        };
        let one = add_lit(eg, Lit::Int(1));
        let centered = add_call(eg, "sub.Tensor", &[x, mean, one]);
        let squared = add_call(eg, "mul.Tensor", &[centered, centered]);
        let total = sum_of(eg, squared, &dims, true);
        let n_lit = add_lit(eg, Lit::Int(n as i64));
        let variance = add_call(eg, "div.Tensor", &[total, n_lit]);
        let shifted = add_call(eg, "add.Tensor", &[variance, eps, one]);
        let rstd = add_call(eg, "rsqrt.default", &[shifted]);
        let mut out = add_call(eg, "mul.Tensor", &[centered, rstd]);
        if eg[w].data.meta().is_some() {
            out = add_call(eg, "mul.Tensor", &[out, w]);
        }
        if eg[b].data.meta().is_some() {
            out = add_call(eg, "add.Tensor", &[out, b, one]);
        }
        let mut changed = vec![];
        for (i, user) in getitem_users(eg, eclass) {
            let new = match i {
                0 => out,
                1 => mean,
                _ => rstd,
            };
            changed.extend(union_into(eg, user, new));
        }
        changed
    }
}

/// `split_with_sizes(x, sizes, dim)[i]` -> `slice(x, dim, start_i, end_i)`.
struct SplitToSlices;

impl Applier<Aten, MetaAnalysis> for SplitToSlices {
    fn apply_one(
        &self,
        eg: &mut AtenGraph,
        eclass: Id,
        s: &Subst,
        _: Option<&PatternAst<Aten>>,
        _: Symbol,
    ) -> Vec<Id> {
        let (x, sizes, dim) = (s[var("?x")], s[var("?sizes")], s[var("?dim")]);
        let (Some(sizes), Some(Lit::Int(d))) = (eg[sizes].data.ints(), eg[dim].data.lit().cloned())
        else {
            return vec![];
        };
        let mut changed = vec![];
        for (i, user) in getitem_users(eg, eclass) {
            let Some(&len) = sizes.get(i as usize) else {
                continue;
            };
            let start: i64 = sizes[..i as usize].iter().sum();
            let ids = [
                Lit::Int(d),
                Lit::Int(start),
                Lit::Int(start + len),
                Lit::Int(1),
            ]
            .map(|l| add_lit(eg, l));
            let new = add_call(eg, "slice.Tensor", &[x, ids[0], ids[1], ids[2], ids[3]]);
            changed.extend(union_into(eg, user, new));
        }
        changed
    }
}
