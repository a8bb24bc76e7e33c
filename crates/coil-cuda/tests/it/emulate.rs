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
        let got = run(&backend, &l, &case.inputs, fuse)
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
