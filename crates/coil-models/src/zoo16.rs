//! The zoo's twelve functions in bf16 and f16 at tiny sizes, with PyTorch eager's outputs
//! (`tools/export_zoo16.py`: `python/tests/zoo_modules.py`'s modules cast to the dtype and
//! exported as the float32 zoo was), and the real models in bf16 (their graphs cast, PyTorch
//! eager's bf16 outputs on their inputs cast: `tools/export_real16.py`).

use coil_graph::{DType, GraphError, Tensor};

use crate::{Tiny, TinyCase, find_real, split_io};

/// A zoo function in a 16-bit float dtype.
#[derive(Clone, Copy, Debug)]
pub struct Tiny16 {
    /// The zoo model's name (`seed_model`).
    pub name: &'static str,
    /// `bf16` or `f16`.
    pub dtype: DType,
    /// The graph, PyTorch's inputs and outputs.
    pub tiny: Tiny,
}

macro_rules! tiny16 {
    ($name:literal, $dtype:ident, $file:literal) => {
        Tiny16 {
            name: $name,
            dtype: DType::$dtype,
            tiny: Tiny {
                text: include_str!(concat!("../models/tiny16/", $file, ".py")),
                safetensors: include_bytes!(concat!("../models/tiny16/", $file, ".safetensors")),
            },
        }
    };
}

/// Every 16-bit tiny model: the twelve in bf16, then in f16.
pub const TINY_16: &[Tiny16] = &[
    tiny16!("seed_model", BF16, "seed_model_bf16"),
    tiny16!("chain", BF16, "chain_bf16"),
    tiny16!("rowsum", BF16, "rowsum_bf16"),
    tiny16!("siblings", BF16, "siblings_bf16"),
    tiny16!("wall", BF16, "wall_bf16"),
    tiny16!("softmax", BF16, "softmax_bf16"),
    tiny16!("layernorm", BF16, "layernorm_bf16"),
    tiny16!("rmsnorm", BF16, "rmsnorm_bf16"),
    tiny16!("mm_epilogue", BF16, "mm_epilogue_bf16"),
    tiny16!("gelu_mlp", BF16, "gelu_mlp_bf16"),
    tiny16!("attention", BF16, "attention_bf16"),
    tiny16!("transformer_block", BF16, "transformer_block_bf16"),
    tiny16!("seed_model", F16, "seed_model_f16"),
    tiny16!("chain", F16, "chain_f16"),
    tiny16!("rowsum", F16, "rowsum_f16"),
    tiny16!("siblings", F16, "siblings_f16"),
    tiny16!("wall", F16, "wall_f16"),
    tiny16!("softmax", F16, "softmax_f16"),
    tiny16!("layernorm", F16, "layernorm_f16"),
    tiny16!("rmsnorm", F16, "rmsnorm_f16"),
    tiny16!("mm_epilogue", F16, "mm_epilogue_f16"),
    tiny16!("gelu_mlp", F16, "gelu_mlp_f16"),
    tiny16!("attention", F16, "attention_f16"),
    tiny16!("transformer_block", F16, "transformer_block_f16"),
];

/// The 16-bit version of `name` in `dtype`.
pub fn find_16(name: &str, dtype: DType) -> Option<&'static Tiny16> {
    TINY_16.iter().find(|m| m.name == name && m.dtype == dtype)
}

/// A real model's bf16 inputs and PyTorch's bf16 outputs (its graph is the f32 one, cast).
#[derive(Clone, Copy, Debug)]
pub struct Real16 {
    /// The real model's name (`tv_resnet18_w16`).
    pub name: &'static str,
    /// `input.<placeholder>` (floats in bf16) and `output.<i>` (safetensors bytes).
    pub safetensors: &'static [u8],
}

/// Every real model in bf16.
pub const REAL_16: &[Real16] = &[
    Real16 {
        name: "dlrm_small",
        safetensors: include_bytes!("../models/real16/dlrm_small_bf16.safetensors"),
    },
    Real16 {
        name: "hf_bert",
        safetensors: include_bytes!("../models/real16/hf_bert_bf16.safetensors"),
    },
    Real16 {
        name: "hf_gpt2",
        safetensors: include_bytes!("../models/real16/hf_gpt2_bf16.safetensors"),
    },
    Real16 {
        name: "timm_vit_tiny",
        safetensors: include_bytes!("../models/real16/timm_vit_tiny_bf16.safetensors"),
    },
    Real16 {
        name: "tv_mlp",
        safetensors: include_bytes!("../models/real16/tv_mlp_bf16.safetensors"),
    },
    Real16 {
        name: "tv_resnet18_w16",
        safetensors: include_bytes!("../models/real16/tv_resnet18_w16_bf16.safetensors"),
    },
    Real16 {
        name: "conv1d_net",
        safetensors: include_bytes!("../models/real16/conv1d_net_bf16.safetensors"),
    },
    Real16 {
        name: "hf_llama",
        safetensors: include_bytes!("../models/real16/hf_llama_bf16.safetensors"),
    },
    Real16 {
        name: "hf_roberta",
        safetensors: include_bytes!("../models/real16/hf_roberta_bf16.safetensors"),
    },
    Real16 {
        name: "timm_convnext_atto",
        safetensors: include_bytes!("../models/real16/timm_convnext_atto_bf16.safetensors"),
    },
    Real16 {
        name: "tv_mobilenet_v3_small",
        safetensors: include_bytes!("../models/real16/tv_mobilenet_v3_small_bf16.safetensors"),
    },
    Real16 {
        name: "tv_squeezenet",
        safetensors: include_bytes!("../models/real16/tv_squeezenet_bf16.safetensors"),
    },
];

impl Real16 {
    /// The real model's graph cast to bf16 ([`coil_graph::Graph::cast_to`]), its bf16 inputs
    /// and PyTorch's bf16 outputs.
    pub fn case(&self) -> Result<TinyCase, GraphError> {
        let real = find_real(self.name)
            .ok_or_else(|| GraphError::Invalid(format!("no real model {}", self.name)))?;
        let graph = coil_graph::parse(real.text)?.cast_to(DType::F32, DType::BF16)?;
        let tensors = Tensor::read_safetensors(self.safetensors)?;
        let (inputs, outputs) = split_io(&graph, &tensors)?;
        Ok(TinyCase {
            graph,
            inputs,
            outputs: outputs
                .ok_or_else(|| GraphError::TensorIo(format!("{}: no output.<i>", self.name)))?,
        })
    }
}

/// The bf16 version of real model `name`.
pub fn find_real_16(name: &str) -> Option<&'static Real16> {
    REAL_16.iter().find(|m| m.name == name)
}
