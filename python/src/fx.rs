//! An FX graph, as the Python side describes it, to a coil graph: no text in between.
//!
//! The description is plain Python data (what `coil._fx.describe` builds from a `GraphModule`):
//! `(inputs, nodes, outputs)` with `inputs` a list of `(name, dtype, sizes)`, `nodes` a list of
//! `(name, op, args, kwargs)` (`op` is `aten.<op>.<overload>` or `getitem`), `outputs` a list of
//! node names. An argument is a Python `bool`, `int`, `float`, `str`, `None` or `list`, or a
//! tagged tuple: `("node", name)`, `("dtype", short)`, `("layout", "strided")`,
//! `("memory_format", name)`, `("device", kind, index)`. Nodes are added through the same
//! builder calls the text parser makes, so both give the same graph.

use std::collections::HashMap;

use coil_graph::{Arg, DType, DeviceSpec, Graph, GraphBuilder, Layout, MemoryFormat, NodeId};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};

/// How deeply argument lists may nest (as the text parser's bound).
const MAX_NESTING: usize = 32;

type Values = HashMap<String, Option<NodeId>>;

/// `(inputs as (name, dtype, sizes), nodes, output names)`.
type Description<'py> = (
    Vec<(String, String, Vec<usize>)>,
    Bound<'py, PyList>,
    Vec<String>,
);

/// `(name, op, args, kwargs)`.
type NodeDescription<'py> = (
    String,
    String,
    Bound<'py, PyList>,
    Vec<(String, Bound<'py, PyAny>)>,
);

fn bad(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

fn graph_err(e: coil_graph::GraphError) -> PyErr {
    bad(e.to_string())
}

fn node_ref(values: &Values, name: &str) -> PyResult<NodeId> {
    match values.get(name) {
        Some(Some(id)) => Ok(*id),
        Some(None) => Err(bad(format!(
            "'{name}' is the result of an op that returns nothing"
        ))),
        None => Err(bad(format!("'{name}' is used before it is defined"))),
    }
}

fn tagged(t: &Bound<'_, PyTuple>, values: &Values) -> PyResult<Arg> {
    let tag: String = t.get_item(0)?.extract()?;
    let text = |i: usize| -> PyResult<String> { t.get_item(i)?.extract() };
    Ok(match tag.as_str() {
        "node" => Arg::Node(node_ref(values, &text(1)?)?),
        "dtype" => {
            let name = text(1)?;
            Arg::DType(
                DType::from_short_name(&name)
                    .ok_or_else(|| bad(format!("coil does not take dtype {name}")))?,
            )
        }
        "layout" => match text(1)?.as_str() {
            "strided" => Arg::Layout(Layout::Strided),
            other => return Err(bad(format!("coil does not take layout torch.{other}"))),
        },
        "memory_format" => Arg::MemoryFormat(match text(1)?.as_str() {
            "contiguous_format" => MemoryFormat::Contiguous,
            "preserve_format" => MemoryFormat::Preserve,
            "channels_last" => MemoryFormat::ChannelsLast,
            other => {
                return Err(bad(format!(
                    "coil does not take memory format torch.{other}"
                )));
            }
        }),
        "device" => Arg::Device(DeviceSpec {
            kind: text(1)?,
            index: t.get_item(2)?.extract()?,
        }),
        other => return Err(bad(format!("unknown argument tag '{other}'"))),
    })
}

fn arg(v: &Bound<'_, PyAny>, values: &Values, depth: usize) -> PyResult<Arg> {
    if depth > MAX_NESTING {
        return Err(bad(format!(
            "arguments nest more than {MAX_NESTING} levels deep"
        )));
    }
    if v.is_none() {
        Ok(Arg::None)
    } else if let Ok(b) = v.downcast::<PyBool>() {
        Ok(Arg::Bool(b.is_true()))
    } else if v.is_instance_of::<PyInt>() {
        Ok(Arg::Int(v.extract().map_err(|_| {
            bad(format!("integer {v} does not fit in 64 bits"))
        })?))
    } else if let Ok(f) = v.downcast::<PyFloat>() {
        Ok(Arg::Float(f.value()))
    } else if let Ok(s) = v.downcast::<PyString>() {
        Ok(Arg::Str(s.extract::<String>()?))
    } else if let Ok(l) = v.downcast::<PyList>() {
        l.iter()
            .map(|x| arg(&x, values, depth + 1))
            .collect::<PyResult<Vec<_>>>()
            .map(Arg::List)
    } else if let Ok(t) = v.downcast::<PyTuple>() {
        tagged(t, values)
    } else {
        Err(bad(format!(
            "an argument of type {} is not supported",
            v.get_type().name()?
        )))
    }
}

/// Builds and verifies the graph `desc` describes.
pub(crate) fn build(desc: &Bound<'_, PyAny>) -> PyResult<Graph> {
    let (inputs, nodes, outputs): Description<'_> = desc.extract()?;
    let mut b = GraphBuilder::new();
    let mut values: Values = HashMap::new();
    for (name, dtype, sizes) in &inputs {
        let d = DType::from_short_name(dtype).ok_or_else(|| {
            bad(format!(
                "input '{name}' is {dtype}, which coil does not take"
            ))
        })?;
        let id = b.input(name, d, sizes);
        values.insert(name.clone(), Some(id));
    }
    for node in nodes.iter() {
        let (name, op, args, kwargs): NodeDescription<'_> = node.extract()?;
        if values.contains_key(&name) {
            return Err(bad(format!("'{name}' is defined twice")));
        }
        let args: Vec<Arg> = args
            .iter()
            .map(|a| arg(&a, &values, 1))
            .collect::<PyResult<_>>()?;
        let kwargs: Vec<(String, Arg)> = kwargs
            .iter()
            .map(|(k, v)| Ok((k.clone(), arg(v, &values, 1)?)))
            .collect::<PyResult<_>>()?;
        let id = if op == "getitem" {
            let [Arg::Node(source), Arg::Int(index)] = args[..] else {
                return Err(bad(format!("'{name}': getitem takes a node and an index")));
            };
            let index = usize::try_from(index)
                .map_err(|_| bad(format!("'{name}': getitem index {index} is negative")))?;
            Some(b.getitem_named(&name, source, index).map_err(graph_err)?)
        } else {
            b.call_named(&name, &op, args, kwargs)
                .map_err(|e| graph_err(e.at_node(&name, None)))?
        };
        values.insert(name, id);
    }
    let outs = outputs
        .iter()
        .map(|o| node_ref(&values, o))
        .collect::<PyResult<Vec<_>>>()?;
    b.finish(&outs).map_err(graph_err)
}
