//! The e-class analysis: what each e-class is (tensor metas, a literal, a list), inferred with
//! coil-graph's own meta inference, plus the value of tensors known to be uniform constants.

use coil_graph::{Arg, Call, Graph, GraphError, Node, NodeKind, TensorMeta, infer_call};
use egg::{Analysis, DidMerge, EGraph, Id};

use crate::lang::{Aten, Lit};

/// The e-graph type of this crate.
pub type AtenGraph = EGraph<Aten, MetaAnalysis>;

/// What an e-class holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A tensor-valued expression with these outputs (several for multi-output calls).
    Tensor(Vec<TensorMeta>),
    /// A literal argument.
    Lit(Lit),
    /// A list argument.
    List(Vec<Value>),
    /// An e-node whose arguments do not type-check (a rule built something invalid); never
    /// extracted.
    Invalid(String),
}

/// Analysis data of an e-class.
#[derive(Clone, Debug, PartialEq)]
pub struct Data {
    /// What the class holds.
    pub value: Value,
    /// For tensors: the value of every element when it is known to be one number (from
    /// `full`, `scalar_tensor`, and pointwise ops of such constants).
    pub uniform: Option<f64>,
}

impl Data {
    /// The single tensor meta of a tensor class.
    pub fn meta(&self) -> Option<&TensorMeta> {
        match &self.value {
            Value::Tensor(m) if m.len() == 1 => Some(&m[0]),
            _ => None,
        }
    }

    /// The literal of a literal class.
    pub fn lit(&self) -> Option<&Lit> {
        match &self.value {
            Value::Lit(l) => Some(l),
            _ => None,
        }
    }

    /// The ints of an int-list class.
    pub fn ints(&self) -> Option<Vec<i64>> {
        match &self.value {
            Value::List(items) => items
                .iter()
                .map(|v| match v {
                    Value::Lit(Lit::Int(i)) => Some(*i),
                    _ => None,
                })
                .collect(),
            _ => None,
        }
    }
}

/// Infers tensor metas of calls with coil-graph's inference; tracks uniform constants.
#[derive(Default)]
pub struct MetaAnalysis {
    /// Metas of the graph inputs, by input number.
    pub inputs: Vec<TensorMeta>,
    /// Fold uniform constants no larger than this many elements into `full` (None: off).
    pub fold_max_numel: Option<usize>,
}

impl Analysis<Aten> for MetaAnalysis {
    type Data = Data;

    fn make(egraph: &mut EGraph<Aten, Self>, enode: &Aten) -> Data {
        let value = match enode {
            Aten::Input(i) => match egraph.analysis.inputs.get(*i as usize) {
                Some(m) => Value::Tensor(vec![m.clone()]),
                None => Value::Invalid(format!("no graph input {i}")),
            },
            Aten::Lit(l) => Value::Lit(l.clone()),
            Aten::List(items) => Value::List(
                items
                    .iter()
                    .map(|&c| egraph[c].data.value.clone())
                    .collect(),
            ),
            Aten::GetItem(i, [src]) => match &egraph[*src].data.value {
                Value::Tensor(outs) if outs.len() > 1 || call_is_multi(egraph, *src) => {
                    match outs.get(*i as usize) {
                        Some(m) => Value::Tensor(vec![m.clone()]),
                        None => Value::Invalid(format!("getitem {i} out of range")),
                    }
                }
                _ => Value::Invalid("getitem of a single value".into()),
            },
            Aten::Call(op, children) => {
                let values: Vec<&Value> = children.iter().map(|&c| &egraph[c].data.value).collect();
                match infer_from_values(*op, &values) {
                    Ok(outs) => Value::Tensor(outs),
                    Err(e) => Value::Invalid(e.to_string()),
                }
            }
        };
        let uniform = match (enode, &value) {
            (Aten::Call(op, children), Value::Tensor(_)) => {
                crate::rules::fold::uniform_value(egraph, *op, children)
            }
            _ => None,
        };
        Data { value, uniform }
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        let mut changed_a = false;
        if matches!(a.value, Value::Invalid(_)) && !matches!(b.value, Value::Invalid(_)) {
            a.value = b.value.clone();
            changed_a = true;
        }
        if a.uniform.is_none() && b.uniform.is_some() {
            a.uniform = b.uniform;
            changed_a = true;
        }
        let changed_b = a.value != b.value || a.uniform != b.uniform;
        DidMerge(changed_a, changed_b)
    }

    fn modify(egraph: &mut EGraph<Aten, Self>, id: Id) {
        crate::rules::fold::add_folded_constant(egraph, id);
    }
}

/// True when the class holds a multi-output call (even with one output, like a one-way split).
fn call_is_multi(egraph: &EGraph<Aten, MetaAnalysis>, id: Id) -> bool {
    egraph[id].nodes.iter().any(
        |n| matches!(n, Aten::Call(op, _) if op.schema().returns != coil_graph::Returns::Tensor),
    )
}

/// Runs coil-graph's inference on a call whose arguments are described by e-class values: the
/// tensor arguments become inputs of a scratch graph.
pub(crate) fn infer_from_values(
    op: coil_graph::OpRef,
    values: &[&Value],
) -> Result<Vec<TensorMeta>, GraphError> {
    let mut scratch = Graph::new();
    let to_arg = |v: &Value, scratch: &mut Graph| -> Result<Arg, GraphError> {
        fn go(v: &Value, scratch: &mut Graph) -> Result<Arg, GraphError> {
            Ok(match v {
                Value::Tensor(m) if m.len() == 1 => Arg::Node(scratch.push(Node {
                    name: format!("t{}", scratch.len()),
                    kind: NodeKind::Input,
                    outputs: m.clone(),
                    multi_output: false,
                })),
                Value::Tensor(_) => {
                    return Err(GraphError::Invalid(
                        "a multi-output value used as an argument".into(),
                    ));
                }
                Value::Lit(l) => l.to_arg(),
                Value::List(items) => Arg::List(
                    items
                        .iter()
                        .map(|i| go(i, scratch))
                        .collect::<Result<_, _>>()?,
                ),
                Value::Invalid(e) => return Err(GraphError::Invalid(e.clone())),
            })
        }
        go(v, scratch)
    };
    let params = &op.schema().params;
    if params.len() != values.len() {
        return Err(GraphError::Invalid(format!(
            "{op} takes {} arguments, got {}",
            params.len(),
            values.len()
        )));
    }
    let (mut args, mut kwargs) = (Vec::new(), Vec::new());
    for (p, v) in params.iter().zip(values) {
        let a = to_arg(v, &mut scratch)?;
        if p.kw_only {
            kwargs.push((p.name.clone(), a))
        } else {
            args.push(a)
        }
    }
    infer_call(&scratch, &Call { op, args, kwargs })
}
