//! The zoo's twelve functions in bf16 and f16 at tiny sizes, with PyTorch eager's outputs
//! (`tools/export_zoo16.py`: `python/tests/zoo_modules.py`'s modules cast to the dtype and
//! exported as the float32 zoo was).

use coil_graph::DType;

use crate::Tiny;

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
