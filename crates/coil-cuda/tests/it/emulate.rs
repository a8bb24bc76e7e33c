//! Whole models on the PTX emulator through `CudaBackend::emulated()` (the same PTX and launch
//! configurations a GPU gets, every access bounds- and alignment-checked): every tiny zoo
//! model matches PyTorch's outputs and the lowering's interpreter, fused and one kernel per
//! buffer.

use coil_cuda::CudaBackend;
use coil_models::Size;

use crate::driver::{compare, run};
use crate::zoo::lowered;

fn check_tiny(name: &str) {
    let case = coil_models::find(name).unwrap().tiny_case().unwrap();
    let l = lowered(name, Size::Tiny).unwrap();
    let reference = l.evaluate(&case.inputs).expect("the interpreter runs");
    let backend = CudaBackend::emulated();
    for fuse in [false, true] {
        let got = run(&backend, &case.graph, &case.inputs, fuse)
            .unwrap_or_else(|e| panic!("{name} (fuse {fuse}): {e}"));
        for (i, (g, (w, r))) in got
            .iter()
            .zip(case.outputs.iter().zip(&reference))
            .enumerate()
        {
            let (abs, rel) =
                compare(g, w).unwrap_or_else(|e| panic!("{name} output {i} vs PyTorch: {e}"));
            assert!(
                abs <= 1e-4 || rel <= 1e-4,
                "{name} output {i} (fuse {fuse}) vs PyTorch: abs {abs} rel {rel}"
            );
            let (abs, rel) =
                compare(g, r).unwrap_or_else(|e| panic!("{name} output {i} vs interpreter: {e}"));
            assert!(
                abs <= 1e-4 || rel <= 1e-4,
                "{name} output {i} (fuse {fuse}) vs interpreter: abs {abs} rel {rel}"
            );
        }
    }
}

macro_rules! tiny {
    ($($name:ident),*) => {$(
        #[test]
        fn $name() {
            check_tiny(stringify!($name));
        }
    )*};
}

tiny!(
    seed_model,
    chain,
    rowsum,
    siblings,
    wall,
    softmax,
    layernorm,
    rmsnorm,
    mm_epilogue,
    gelu_mlp,
    attention,
    transformer_block
);

/// Article sizes exercise the strategies the GPU runs there: block-per-row persistent rows of
/// 1024, and wall's global mean as a split reduction.
fn check_article(name: &str) {
    let m = coil_models::find(name).unwrap();
    let g = m.graph(Size::Article).unwrap();
    let inputs: Vec<coil_graph::Tensor> = g
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, &id)| {
            let meta = g.node(id).meta().clone();
            crate::strategies::random_input(meta.dtype, &meta.sizes, 100 + i as u64)
        })
        .collect();
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    let backend = CudaBackend::emulated();
    let got = run(&backend, &g, &inputs, true).unwrap_or_else(|e| panic!("{name}: {e}"));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let (abs, rel) = compare(g, w).unwrap_or_else(|e| panic!("{name} output {i}: {e}"));
        // Matmuls over k up to 1024 accumulate in a different order than coil-eager's gemm:
        // measure errors against the output's scale.
        let scale = w.to_f64_vec().iter().fold(1f64, |m, x| m.max(x.abs()));
        assert!(
            abs <= 1e-4 * scale || rel <= 1e-4,
            "{name} output {i}: abs {abs} rel {rel} (scale {scale})"
        );
    }
}

macro_rules! article {
    ($($test:ident: $name:literal),*) => {$(
        #[test]
        fn $test() {
            check_article($name);
        }
    )*};
}

article!(
    seed_model_article: "seed_model",
    chain_article: "chain",
    rowsum_article: "rowsum",
    siblings_article: "siblings",
    wall_article: "wall",
    softmax_article: "softmax",
    layernorm_article: "layernorm",
    rmsnorm_article: "rmsnorm",
    mm_epilogue_article: "mm_epilogue",
    gelu_mlp_article: "gelu_mlp",
    attention_article: "attention",
    transformer_block_article: "transformer_block"
);

/// The float-function table (`atan`, `atan2`, `asin`, `acos`, `hypot`, `asinh`, `acosh`,
/// `atanh`, `expm1`, `logaddexp`, `erfc`, `erfinv`) on the emulator against PyTorch's outputs
/// (coil-eager's op cases `float_table_*`: special values, f32, f64, bf16, f16, integers):
/// within f32's test tolerance and a 16-bit result within one of its ulp (the GPU's 16-bit
/// kernels use its fast exp). Not the f64 case: the CUDA backend's math library is f32 only
/// (`exp`, `log1p`, ... of f64 are an error there, for every op), so it runs on the CPU.
#[test]
fn float_table_op_cases_match_pytorch() {
    let seen = emulated_op_cases(|n| n.starts_with("float_table_") && !n.contains("f64"));
    assert_eq!(seen, 3, "the float_table cases");
}

/// The narrow-integer op cases (int8, uint8, int16: wrapping after every op inside fused
/// kernels, unsigned compares, promotion to int16, casts, views, cat) and `view(dtype)`
/// (bitcasts fused both sides, and other element sizes), the bit ops and shifts, and
/// `round(x, decimals)`, integer `pow` to negative powers.
#[test]
fn narrow_int_op_cases_match_pytorch() {
    let seen = emulated_op_cases(|n| {
        [
            "int8_",
            "uint8_",
            "int16_",
            "narrow_int_",
            "view_dtype_",
            "bitwise_and_shifts",
            "round_decimals",
            "pow_int_negative",
        ]
        .iter()
        .any(|p| n.starts_with(p))
    });
    assert_eq!(
        seen, 9,
        "the narrow-integer, bit-op, view(dtype), round and pow cases"
    );
}

/// The special functions in f32 (computed in f32 here: the backend's math library has no
/// f64 transcendentals) and the orthogonal polynomials (f32 and f64).
#[test]
fn special_function_op_cases_match_pytorch() {
    let seen = emulated_op_cases(|n| n == "special_functions_f32" || n == "special_polynomials");
    assert_eq!(seen, 2, "the f32 special functions and the polynomials");
}

/// The scatters (`scatter`, `scatter_add`, `scatter_reduce`, `index_put`): stores and
/// `red.global.add`s through indirect indices, duplicates, 16-bit floats, views, 0-d, and the
/// reductions and boolean masks that stay on the host; `sort` and `topk` (a rank, then a
/// scatter).
#[test]
fn scatter_and_sort_op_cases_match_pytorch() {
    let seen = emulated_op_cases(|n| {
        n.starts_with("scatter_")
            || n.starts_with("index_put_")
            || n.contains("_index_put")
            || n == "sort_and_topk"
            || n == "sort_edges"
            || n == "topk_of_a_vocabulary"
    });
    assert!(seen >= 18, "{seen} scatter, index_put and sort cases");
}

/// `_embedding_bag` (sum and mean as kernels: a scatter of the bag starts, their running sum,
/// the rows added atomically into their bags; max and the auxiliary outputs on the host),
/// with per-sample weights, `padding_idx`, `include_last_offset`, empty bags, 2-D indices and
/// int32 indices.
#[test]
fn embedding_bag_op_cases_match_pytorch() {
    let seen = emulated_op_cases(|n| n.starts_with("embedding_bag_"));
    assert!(seen >= 15, "{seen} embedding_bag cases");
}

/// Exact float `fmod` and `remainder` in integer ops (huge quotients, subnormals, signed
/// zeros, infinities, NaN; f32, f64, bf16, f16).
#[test]
fn fmod_op_case_matches_pytorch() {
    assert_eq!(emulated_op_cases(|n| n == "fmod_and_remainder_floats"), 1);
}

/// The GPU's fmod (built from integer ops) is C's, bit for bit, on random bit patterns of
/// f32 and f64 (every exponent, subnormals, infinities, NaN) against Rust's `%`.
#[test]
fn fmod_from_integer_ops_is_exact_on_random_bits() {
    let backend: std::sync::Arc<dyn coil_codegen::Backend> =
        std::sync::Arc::new(CudaBackend::emulated());
    let failures = coil_testkit::fmod_is_exact_on_random_bits(&backend);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs the op cases whose names `pick` selects through the emulated GPU against PyTorch's
/// outputs (floats within f32's test tolerance, a 16-bit result within one of its ulp,
/// integers exactly); how many ran.
fn emulated_op_cases(pick: impl Fn(&str) -> bool) -> usize {
    use coil_graph::{DType, Tensor};
    use std::sync::Arc;
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../coil-eager/tests/data/ops");
    let backend: Arc<dyn coil_codegen::Backend> = Arc::new(CudaBackend::emulated());
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("the op cases") {
        let py = entry.expect("entry").path();
        let name = py.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".py") else {
            continue;
        };
        if !pick(stem) {
            continue;
        }
        seen += 1;
        let graph = coil_graph::parse(&std::fs::read_to_string(&py).unwrap()).unwrap();
        let tensors = Tensor::load_safetensors(&py.with_extension("safetensors")).unwrap();
        let (inputs, outputs) = coil_models::split_io(&graph, &tensors).expect("inputs");
        let got = coil::compile(&graph, backend.clone(), &coil::Options::default())
            .and_then(|m| m.run(&inputs))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (i, (g, w)) in got.iter().zip(&outputs.expect("outputs")).enumerate() {
            let tol = match g.dtype() {
                DType::BF16 => 8e-3,
                DType::F16 => 1e-3,
                d if !d.is_float() => 0.0,
                _ => 1e-5,
            };
            coil_testkit::check_close(g, w, tol, tol)
                .unwrap_or_else(|e| panic!("{name} output {i}: {e}"));
        }
    }
    seen
}
