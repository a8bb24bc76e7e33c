//! Machine code through the compile cache: a warm start runs the bytes the cold one made.

use coil_cache::Cache;
use coil_cpu::inkwell::context::Context;
use coil_cpu::inkwell::module::Module;
use coil_cpu::{CpuError, HostTarget, JitModule, JitOptions};

/// `f(x) = sin(x) * k + x`, through coil's runtime helper `coil_rt_sin_f32` (an absolute
/// symbol the loader defines).
fn build<'ctx>(cx: &'ctx Context, module: &Module<'ctx>, k: f64) -> Result<(), CpuError> {
    let f32t = cx.f32_type();
    let sin = module.add_function("coil_rt_sin_f32", f32t.fn_type(&[f32t.into()], false), None);
    let f = module.add_function("f", f32t.fn_type(&[f32t.into()], false), None);
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(f, "entry"));
    let x = f.get_nth_param(0).unwrap().into_float_value();
    let s = b.build_call(sin, &[x.into()], "s").unwrap();
    let s = s.try_as_basic_value().basic().unwrap().into_float_value();
    let m = b.build_float_mul(s, f32t.const_float(k), "m").unwrap();
    let r = b.build_float_add(m, x, "r").unwrap();
    b.build_return(Some(&r)).unwrap();
    Ok(())
}

fn compile(cache: &Cache, k: f64, options: &JitOptions) -> JitModule {
    let target = HostTarget::detect().unwrap();
    JitModule::compile_cached("cached", &target, options, Some(cache), |cx, m| {
        build(cx, m, k)
    })
    .unwrap()
}

fn results(jit: &JitModule) -> Vec<u32> {
    // SAFETY: `f` is `float (float)`.
    let f: extern "C" fn(f32) -> f32 = unsafe { jit.function("f") }.unwrap();
    (0..1000)
        .map(|i| f(i as f32 * 0.37 - 150.0).to_bits())
        .collect()
}

#[test]
fn a_warm_compile_loads_the_cold_ones_code_and_a_corrupt_entry_recompiles() {
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::at(dir.path(), 1 << 20);
    let options = JitOptions::default();
    let cold = compile(&cache, 3.0, &options);
    assert_eq!(cold.cache(), "miss");
    let warm = compile(&cache, 3.0, &options);
    assert_eq!(warm.cache(), "hit");
    assert_eq!(results(&cold), results(&warm), "bit for bit");
    assert_eq!(cold.optimized_ir(), warm.optimized_ir());
    // Other IR, other options: other entries.
    assert_eq!(compile(&cache, 2.5, &options).cache(), "miss");
    let unrolled = JitOptions {
        llvm_unroll: true,
        ..JitOptions::default()
    };
    assert_eq!(compile(&cache, 3.0, &unrolled).cache(), "miss");
    // Every entry damaged: each compile generates again, with the same results.
    for entry in walk(dir.path()) {
        let mut bytes = std::fs::read(&entry).unwrap();
        let n = bytes.len();
        bytes[n - 1] ^= 0xff;
        std::fs::write(&entry, bytes).unwrap();
    }
    let again = compile(&cache, 3.0, &options);
    assert_eq!(again.cache(), "miss");
    assert_eq!(results(&again), results(&cold));
    assert_eq!(compile(&cache, 3.0, &options).cache(), "hit");
    // Off: compiled, nothing stored.
    let off = Cache::off();
    assert_eq!(compile(&off, 3.0, &options).cache(), "off");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
