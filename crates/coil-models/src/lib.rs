//! coil-models: the model zoo, exported from PyTorch, embedded in the crate and found by name.
//!
//! **Takes**: a model name (`seed_model`) or nothing. **Gives**: the readable-FX text at the
//! articles' sizes, at tiny sizes with PyTorch's inputs and outputs (safetensors), and at large
//! benchmark sizes; helpers that parse them into graphs and tensors.
//! **Must not know about**: anything after the graph (passes, lowering, backends). The files are
//! compiled into the crate, so a binary that uses it runs anywhere, with no repository beside it.

use coil_graph::{Graph, GraphError, Tensor};

mod zoo16;

pub use zoo16::{REAL_16, Real16, TINY_16, Tiny16, find_16, find_real_16};

/// A tiny-size model with PyTorch's inputs and outputs.
#[derive(Clone, Copy, Debug)]
pub struct Tiny {
    /// The readable-FX graph.
    pub text: &'static str,
    /// `input.<arg>` and `output.<i>` tensors (safetensors bytes).
    pub safetensors: &'static [u8],
}

/// One model of the zoo.
#[derive(Clone, Copy, Debug)]
pub struct Model {
    /// The model's name (`seed_model`).
    pub name: &'static str,
    /// The graph at the sizes the source articles use.
    pub article: &'static str,
    /// The graph at small sizes, with PyTorch's inputs and outputs.
    pub tiny: Option<Tiny>,
    /// The graph at benchmark sizes ([8192, 8192]); memory-bound models only.
    pub large: Option<&'static str>,
}

/// Which size of a model to take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// The articles' sizes.
    Article,
    /// Small, with PyTorch's inputs and outputs.
    Tiny,
    /// Benchmark sizes.
    Large,
}

/// Every model, in the order the README's table lists them.
pub const MODELS: &[Model] = &[
    Model {
        name: "seed_model",
        article: include_str!("../models/seed_model.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/seed_model.py"),
            safetensors: include_bytes!("../models/tiny/seed_model.safetensors"),
        }),
        large: Some(include_str!("../models/large/seed_model.py")),
    },
    Model {
        name: "chain",
        article: include_str!("../models/chain.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/chain.py"),
            safetensors: include_bytes!("../models/tiny/chain.safetensors"),
        }),
        large: Some(include_str!("../models/large/chain.py")),
    },
    Model {
        name: "rowsum",
        article: include_str!("../models/rowsum.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/rowsum.py"),
            safetensors: include_bytes!("../models/tiny/rowsum.safetensors"),
        }),
        large: Some(include_str!("../models/large/rowsum.py")),
    },
    Model {
        name: "siblings",
        article: include_str!("../models/siblings.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/siblings.py"),
            safetensors: include_bytes!("../models/tiny/siblings.safetensors"),
        }),
        large: Some(include_str!("../models/large/siblings.py")),
    },
    Model {
        name: "wall",
        article: include_str!("../models/wall.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/wall.py"),
            safetensors: include_bytes!("../models/tiny/wall.safetensors"),
        }),
        large: Some(include_str!("../models/large/wall.py")),
    },
    Model {
        name: "softmax",
        article: include_str!("../models/softmax.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/softmax.py"),
            safetensors: include_bytes!("../models/tiny/softmax.safetensors"),
        }),
        large: Some(include_str!("../models/large/softmax.py")),
    },
    Model {
        name: "layernorm",
        article: include_str!("../models/layernorm.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/layernorm.py"),
            safetensors: include_bytes!("../models/tiny/layernorm.safetensors"),
        }),
        large: Some(include_str!("../models/large/layernorm.py")),
    },
    Model {
        name: "rmsnorm",
        article: include_str!("../models/rmsnorm.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/rmsnorm.py"),
            safetensors: include_bytes!("../models/tiny/rmsnorm.safetensors"),
        }),
        large: Some(include_str!("../models/large/rmsnorm.py")),
    },
    Model {
        name: "mm_epilogue",
        article: include_str!("../models/mm_epilogue.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/mm_epilogue.py"),
            safetensors: include_bytes!("../models/tiny/mm_epilogue.safetensors"),
        }),
        large: None,
    },
    Model {
        name: "gelu_mlp",
        article: include_str!("../models/gelu_mlp.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/gelu_mlp.py"),
            safetensors: include_bytes!("../models/tiny/gelu_mlp.safetensors"),
        }),
        large: None,
    },
    Model {
        name: "attention",
        article: include_str!("../models/attention.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/attention.py"),
            safetensors: include_bytes!("../models/tiny/attention.safetensors"),
        }),
        large: None,
    },
    Model {
        name: "transformer_block",
        article: include_str!("../models/transformer_block.py"),
        tiny: Some(Tiny {
            text: include_str!("../models/tiny/transformer_block.py"),
            safetensors: include_bytes!("../models/tiny/transformer_block.safetensors"),
        }),
        large: None,
    },
];

/// Finds a model by name.
pub fn find(name: &str) -> Option<&'static Model> {
    MODELS.iter().find(|m| m.name == name)
}

/// A real architecture (torchvision, timm, Hugging Face; random weights), exported with its
/// parameters as inputs: the graph, and PyTorch's inputs and outputs. `models/real/` holds the
/// six real models the project was given, `models/real_extra/` those exported with `tools/export_graph.py` (their
/// READMEs give each one's source and command).
#[derive(Clone, Copy, Debug)]
pub struct RealModel {
    /// The model's name (`tv_resnet18_w16`).
    pub name: &'static str,
    /// The readable-FX graph.
    pub text: &'static str,
    /// `input.<placeholder>` and `output.<i>` tensors (safetensors bytes).
    pub safetensors: &'static [u8],
}

/// Every real model.
pub const REAL_MODELS: &[RealModel] = &[
    RealModel {
        name: "dlrm_small",
        text: include_str!("../models/real/dlrm_small.py"),
        safetensors: include_bytes!("../models/real/dlrm_small.safetensors"),
    },
    RealModel {
        name: "hf_bert",
        text: include_str!("../models/real/hf_bert.py"),
        safetensors: include_bytes!("../models/real/hf_bert.safetensors"),
    },
    RealModel {
        name: "hf_gpt2",
        text: include_str!("../models/real/hf_gpt2.py"),
        safetensors: include_bytes!("../models/real/hf_gpt2.safetensors"),
    },
    RealModel {
        name: "timm_vit_tiny",
        text: include_str!("../models/real/timm_vit_tiny.py"),
        safetensors: include_bytes!("../models/real/timm_vit_tiny.safetensors"),
    },
    RealModel {
        name: "tv_mlp",
        text: include_str!("../models/real/tv_mlp.py"),
        safetensors: include_bytes!("../models/real/tv_mlp.safetensors"),
    },
    RealModel {
        name: "tv_resnet18_w16",
        text: include_str!("../models/real/tv_resnet18_w16.py"),
        safetensors: include_bytes!("../models/real/tv_resnet18_w16.safetensors"),
    },
    RealModel {
        name: "conv1d_net",
        text: include_str!("../models/real_extra/conv1d_net.py"),
        safetensors: include_bytes!("../models/real_extra/conv1d_net.safetensors"),
    },
    RealModel {
        name: "hf_llama",
        text: include_str!("../models/real_extra/hf_llama.py"),
        safetensors: include_bytes!("../models/real_extra/hf_llama.safetensors"),
    },
    RealModel {
        name: "hf_roberta",
        text: include_str!("../models/real_extra/hf_roberta.py"),
        safetensors: include_bytes!("../models/real_extra/hf_roberta.safetensors"),
    },
    RealModel {
        name: "timm_convnext_atto",
        text: include_str!("../models/real_extra/timm_convnext_atto.py"),
        safetensors: include_bytes!("../models/real_extra/timm_convnext_atto.safetensors"),
    },
    RealModel {
        name: "tv_mobilenet_v3_small",
        text: include_str!("../models/real_extra/tv_mobilenet_v3_small.py"),
        safetensors: include_bytes!("../models/real_extra/tv_mobilenet_v3_small.safetensors"),
    },
    RealModel {
        name: "tv_squeezenet",
        text: include_str!("../models/real_extra/tv_squeezenet.py"),
        safetensors: include_bytes!("../models/real_extra/tv_squeezenet.safetensors"),
    },
];

/// The real model called `name`.
pub fn find_real(name: &str) -> Option<&'static RealModel> {
    REAL_MODELS.iter().find(|m| m.name == name)
}

/// The names of every model.
pub fn names() -> impl Iterator<Item = &'static str> {
    MODELS.iter().map(|m| m.name)
}

impl Model {
    /// The graph text at `size`, if the zoo has it.
    pub fn text(&self, size: Size) -> Option<&'static str> {
        match size {
            Size::Article => Some(self.article),
            Size::Tiny => self.tiny.map(|t| t.text),
            Size::Large => self.large,
        }
    }

    /// Parses the graph at `size`.
    pub fn graph(&self, size: Size) -> Result<Graph, GraphError> {
        let text = self.text(size).ok_or_else(|| {
            GraphError::Invalid(format!("the zoo has no {size:?} version of {}", self.name))
        })?;
        coil_graph::parse(text)
    }

    /// The tiny graph with PyTorch's inputs (in signature order) and outputs (in return order).
    pub fn tiny_case(&self) -> Result<TinyCase, GraphError> {
        self.tiny
            .ok_or_else(|| GraphError::Invalid(format!("{} has no tiny version", self.name)))?
            .case(self.name)
    }
}

impl Tiny {
    /// The parsed graph with its inputs and PyTorch's outputs (`name` for errors).
    pub fn case(&self, name: &str) -> Result<TinyCase, GraphError> {
        let graph = coil_graph::parse(self.text)?;
        let tensors = Tensor::read_safetensors(self.safetensors)?;
        let (inputs, outputs) = split_io(&graph, &tensors)?;
        Ok(TinyCase {
            graph,
            inputs,
            outputs: outputs
                .ok_or_else(|| GraphError::TensorIo(format!("{name}: no output.<i> tensors")))?,
        })
    }
}

/// A tiny model ready to run: graph, inputs, PyTorch's outputs.
#[derive(Clone, Debug)]
pub struct TinyCase {
    /// The parsed graph.
    pub graph: Graph,
    /// Inputs in signature order.
    pub inputs: Vec<Tensor>,
    /// PyTorch eager's outputs in return order.
    pub outputs: Vec<Tensor>,
}

/// Picks `input.<name>` for each graph input (in signature order) and, when present,
/// `output.<i>` for each graph output, from a safetensors map.
#[allow(clippy::type_complexity)]
pub fn split_io(
    graph: &Graph,
    tensors: &std::collections::BTreeMap<String, Tensor>,
) -> Result<(Vec<Tensor>, Option<Vec<Tensor>>), GraphError> {
    let inputs = graph
        .inputs()
        .iter()
        .map(|&id| {
            let name = &graph.node(id).name;
            tensors
                .get(&format!("input.{name}"))
                .cloned()
                .ok_or_else(|| GraphError::TensorIo(format!("no tensor named input.{name}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outputs: Option<Vec<Tensor>> = (0..graph.outputs().len())
        .map(|i| tensors.get(&format!("output.{i}")).cloned())
        .collect();
    Ok((inputs, outputs))
}

/// The tensors of a safetensors map that [`split_io`] does not use (neither `input.<name>` of
/// a graph input nor `output.<i>` of a graph output), sorted: what a caller warns about.
pub fn unused_tensors(
    graph: &Graph,
    tensors: &std::collections::BTreeMap<String, Tensor>,
) -> Vec<String> {
    let used: std::collections::BTreeSet<String> = graph
        .inputs()
        .iter()
        .map(|&id| format!("input.{}", graph.node(id).name))
        .chain((0..graph.outputs().len()).map(|i| format!("output.{i}")))
        .collect();
    tensors
        .keys()
        .filter(|k| !used.contains(*k))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_model_has_its_files() {
        assert_eq!(MODELS.len(), 12);
        for m in MODELS {
            assert!(m.article.starts_with("class GraphModule"), "{}", m.name);
            let tiny = m.tiny.expect("every model has a tiny version");
            assert!(tiny.safetensors.len() > 8, "{}", m.name);
        }
        assert_eq!(MODELS.iter().filter(|m| m.large.is_some()).count(), 8);
        assert!(find("seed_model").is_some() && find("nope").is_none());
    }
}
