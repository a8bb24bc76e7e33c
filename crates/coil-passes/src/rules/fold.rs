//! Constant folding. The analysis tracks tensors whose elements are all one known number
//! (`full`, `scalar_tensor`, and pointwise ops and views of those), evaluated with coil-eager
//! on size-1 stand-ins, so folding computes exactly what the op would. A folded class gains a
//! `full` (or `scalar_tensor`) e-node when it is no larger than the configured size limit.

use coil_graph::{
    Arg, Call, DType, Data, Graph, Node, NodeKind, OpClass, OpKind, OpRef, Tensor, TensorMeta,
};
use egg::{Id, Subst, rewrite};

use super::{Rewrite, add_int_list, add_lit, same_meta, var};
use crate::analysis::{AtenGraph, Value};
use crate::lang::{Aten, Lit};

/// The rules of this family (folding itself happens in the analysis).
pub fn rules() -> Vec<Rewrite> {
    vec![
        rewrite!("and-true"; "(logical_and.default ?x ?t)" => "?x" if uniform_is("?t", 1.0) if same_meta("?x")),
        rewrite!("true-and"; "(logical_and.default ?t ?x)" => "?x" if uniform_is("?t", 1.0) if same_meta("?x")),
        rewrite!("or-false"; "(logical_or.default ?x ?f)" => "?x" if uniform_is("?f", 0.0) if same_meta("?x")),
        rewrite!("false-or"; "(logical_or.default ?f ?x)" => "?x" if uniform_is("?f", 0.0) if same_meta("?x")),
    ]
}

/// Condition: `?v` is a tensor whose every element is `value`.
fn uniform_is(v: &str, value: f64) -> impl Fn(&mut AtenGraph, Id, &Subst) -> bool + use<> {
    let v = var(v);
    move |eg, _, s| eg[s[v]].data.uniform == Some(value)
}

/// The uniform value of a call's result, when its inputs make it one.
pub(crate) fn uniform_value(eg: &AtenGraph, op: OpRef, children: &[Id]) -> Option<f64> {
    let kind = op.kind();
    let out = |v: f64, dtype: DType| Data::from_f64(dtype, std::iter::once(v)).get_f64(0);
    let values: Vec<&Value> = children.iter().map(|&c| &eg[c].data.value).collect();
    let outs = crate::analysis::infer_from_values(op, &values).ok()?;
    let dtype = outs.first()?.dtype;
    // A result with no elements is every constant at once: it folds to an empty `full`, so no
    // decomposition of it survives (softmax over a zero-size dim would decompose into an
    // `amax` over nothing, which PyTorch and coil-eager reject).
    if let [only] = outs.as_slice()
        && only.numel() == 0
    {
        return Some(0.0);
    }
    match kind {
        OpKind::Full => eg[children[1]].data.lit()?.as_f64().map(|v| out(v, dtype)),
        OpKind::ScalarTensor => eg[children[0]].data.lit()?.as_f64().map(|v| out(v, dtype)),
        OpKind::Expand
        | OpKind::View
        | OpKind::Reshape
        | OpKind::UnsafeView
        | OpKind::Permute
        | OpKind::Transpose
        | OpKind::T
        | OpKind::Unsqueeze
        | OpKind::Squeeze
        | OpKind::Alias
        | OpKind::Clone
        | OpKind::Slice
        | OpKind::Select => eg[children[0]].data.uniform,
        OpKind::ToCopy => eg[children[0]].data.uniform.map(|v| out(v, dtype)),
        _ if kind.class() == OpClass::Pointwise && outs.len() == 1 => evaluate(eg, op, children),
        _ => None,
    }
}

/// Runs a pointwise op with coil-eager on stand-ins of the same rank and dtype holding the
/// uniform values (size 1 in every dim, so promotion is the same as on the real shapes).
fn evaluate(eg: &AtenGraph, op: OpRef, children: &[Id]) -> Option<f64> {
    let mut g = Graph::new();
    let mut inputs = Vec::new();
    let mut args = Vec::new();
    for &c in children {
        match &eg[c].data.value {
            Value::Tensor(m) if m.len() == 1 => {
                let v = eg[c].data.uniform?;
                let sizes = vec![1; m[0].rank()];
                let t = Tensor::new(
                    Data::from_f64(m[0].dtype, std::iter::once(v)),
                    sizes.clone(),
                )
                .ok()?;
                let id = g.push(Node {
                    name: format!("c{}", inputs.len()),
                    kind: NodeKind::Input,
                    outputs: vec![TensorMeta::contiguous(m[0].dtype, sizes)],
                    multi_output: false,
                });
                inputs.push(t);
                args.push(Arg::Node(id));
            }
            Value::Lit(l) => args.push(l.to_arg()),
            _ => return None,
        }
    }
    let params = &op.schema().params;
    let (mut pos, mut kw) = (Vec::new(), Vec::new());
    for (p, a) in params.iter().zip(args) {
        if p.kw_only {
            kw.push((p.name.clone(), a))
        } else {
            pos.push(a)
        }
    }
    let call = Call {
        op,
        args: pos,
        kwargs: kw,
    };
    let outputs = coil_graph::infer_call(&g, &call).ok()?;
    let id = g.push(Node {
        name: "r".into(),
        kind: NodeKind::Call(call),
        outputs,
        multi_output: false,
    });
    g.set_outputs(vec![id]);
    let run = coil_eager::run(&g, &inputs).ok()?;
    run.outputs.first().map(|t| t.to_f64_vec()[0])
}

/// The analysis's `modify` hook: gives a uniform, contiguous class within the size limit a
/// `full` (or `scalar_tensor`) e-node.
pub(crate) fn add_folded_constant(eg: &mut AtenGraph, id: Id) {
    let Some(limit) = eg.analysis.fold_max_numel else {
        return;
    };
    let (Some(v), Some(m)) = (eg[id].data.uniform, eg[id].data.meta().cloned()) else {
        return;
    };
    if m.numel() > limit || m != TensorMeta::contiguous(m.dtype, m.sizes.clone()) {
        return;
    }
    let already = eg[id].nodes.iter().any(|n| {
        matches!(n, Aten::Input(_)) || matches!(n, Aten::Call(op, _) if matches!(op.kind(), OpKind::Full | OpKind::ScalarTensor))
    });
    if already {
        return;
    }
    let value = if m.dtype.is_float() {
        Lit::float(v)
    } else if m.dtype == DType::Bool {
        Lit::Bool(v != 0.0)
    } else {
        Lit::Int(v as i64)
    };
    let dtype = add_lit(eg, Lit::DType(m.dtype));
    let none = add_lit(eg, Lit::None);
    let value = add_lit(eg, value);
    let new = if m.rank() == 0 {
        let op = OpRef::lookup("scalar_tensor.default").expect("registered");
        eg.add(Aten::Call(op, vec![value, dtype, none, none, none].into()))
    } else {
        let sizes: Vec<i64> = m.sizes.iter().map(|&s| s as i64).collect();
        let sizes = add_int_list(eg, &sizes);
        let op = OpRef::lookup("full.default").expect("registered");
        eg.add(Aten::Call(
            op,
            vec![sizes, value, dtype, none, none, none].into(),
        ))
    };
    eg.union(id, new);
}
