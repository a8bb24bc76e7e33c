//! scratch
use std::sync::Arc;
use coil::{Options, Policy};
use coil_codegen::Backend;
use crate::interp_backend::InterpBackend;
#[test]
fn tb_policies() {
    let backend: Arc<dyn Backend> = Arc::new(InterpBackend::default());
    let case = coil_models::find("transformer_block").unwrap().tiny_case().unwrap();
    let eager = coil_eager::run(&case.graph, &case.inputs).unwrap().outputs;
    for policy in [Policy::None, Policy::Tvm, Policy::Inductor] {
        let dir = std::path::PathBuf::from(format!("/tmp/tb-{policy:?}"));
        let options = Options { policy, debug_dir: Some(dir), ..Options::default() };
        let model = coil::compile(&case.graph, backend.clone(), &options).unwrap();
        let out = model.run(&case.inputs).unwrap();
        let err = out[0].to_f64_vec().iter().zip(eager[0].to_f64_vec()).map(|(a,b)| (a-b).abs()).fold(0.0, f64::max);
        eprintln!("{policy:?}: max abs err {err}");
    }
}
