//! Failures are `CpuError` values: missing functions, invalid IR, bad pass pipelines, unresolved
//! external symbols, and math on unsupported types.

use coil_cpu::inkwell::AddressSpace;
use coil_cpu::{CpuError, HostTarget, JitModule, JitOptions, MathFn, VMath};

fn trivial<'ctx>(
    cx: &'ctx coil_cpu::inkwell::context::Context,
    module: &coil_cpu::inkwell::module::Module<'ctx>,
) {
    let f = module.add_function("one", cx.i32_type().fn_type(&[], false), None);
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(f, "entry"));
    b.build_return(Some(&cx.i32_type().const_int(1, false)))
        .unwrap();
}

#[test]
fn looking_up_a_missing_function_is_an_error() {
    let target = HostTarget::detect().unwrap();
    let jit = JitModule::compile("m", &target, &JitOptions::default(), |cx, module| {
        trivial(cx, module);
        Ok(())
    })
    .unwrap();
    assert_eq!(jit.function_names(), vec!["one"]);
    // SAFETY: `one` is `i32 ()`.
    let one: extern "C" fn() -> i32 = unsafe { jit.function("one") }.unwrap();
    assert_eq!(one(), 1);
    let err = jit.address("two").unwrap_err();
    assert!(matches!(err, CpuError::MissingFunction { .. }));
    assert_eq!(err.to_string(), "no function `two` in JIT module `m`");
}

#[test]
fn invalid_ir_is_a_verifier_error() {
    let target = HostTarget::detect().unwrap();
    let err = JitModule::compile("bad", &target, &JitOptions::default(), |cx, module| {
        let f = module.add_function("f", cx.void_type().fn_type(&[], false), None);
        cx.append_basic_block(f, "entry"); // no terminator
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            CpuError::Verify {
                stage: "before optimisation",
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_bad_pipeline_is_an_error() {
    let target = HostTarget::detect().unwrap();
    let options = JitOptions {
        pipeline: "no-such-pass".to_string(),
        ..JitOptions::default()
    };
    let err = JitModule::compile("p", &target, &options, |cx, module| {
        trivial(cx, module);
        Ok(())
    })
    .unwrap_err();
    assert!(matches!(err, CpuError::Passes { .. }), "{err}");
}

#[test]
fn an_unresolvable_external_is_an_error_not_an_abort() {
    let target = HostTarget::detect().unwrap();
    let err = JitModule::compile("ext", &target, &JitOptions::default(), |cx, module| {
        let ext = module.add_function(
            "coil_no_such_symbol",
            cx.i32_type().fn_type(&[], false),
            None,
        );
        let f = module.add_function("f", cx.i32_type().fn_type(&[], false), None);
        let b = cx.create_builder();
        b.position_at_end(cx.append_basic_block(f, "entry"));
        let v = b
            .build_call(ext, &[], "v")?
            .try_as_basic_value()
            .basic()
            .unwrap();
        b.build_return(Some(&v))?;
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(err, CpuError::UnresolvedSymbol { ref symbol, .. } if symbol == "coil_no_such_symbol"),
        "{err}"
    );
}

#[test]
fn math_on_integers_is_an_unsupported_type_error() {
    let target = HostTarget::detect().unwrap();
    let err = JitModule::compile("int", &target, &JitOptions::default(), |cx, module| {
        let f = module.add_function(
            "f",
            cx.i32_type().fn_type(&[cx.i32_type().into()], false),
            None,
        );
        let b = cx.create_builder();
        b.position_at_end(cx.append_basic_block(f, "entry"));
        let x = f.get_nth_param(0).unwrap();
        let y = VMath::declare(module).call(&b, MathFn::Exp, x)?;
        b.build_return(Some(&y))?;
        Ok(())
    })
    .unwrap_err();
    assert!(
        matches!(
            err,
            CpuError::UnsupportedType {
                function: "exp",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("i32"), "{err}");
    let _ = AddressSpace::default();
}

#[test]
fn the_builder_error_of_an_unpositioned_builder_is_an_error() {
    let target = HostTarget::detect().unwrap();
    let err = JitModule::compile(
        "unpositioned",
        &target,
        &JitOptions::default(),
        |cx, module| {
            let f = module.add_function(
                "f",
                cx.f32_type().fn_type(&[cx.f32_type().into()], false),
                None,
            );
            let b = cx.create_builder(); // never positioned
            let x = f.get_nth_param(0).unwrap();
            VMath::declare(module).call(&b, MathFn::Exp, x)?;
            Ok(())
        },
    )
    .unwrap_err();
    assert!(matches!(err, CpuError::Builder(_)), "{err}");
}
