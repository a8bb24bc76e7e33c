//! The PTX builder: what it renders for small hand-written kernels, and the errors it reports
//! instead of panicking when driven wrongly.

use coil_ptx::ptx::{
    Addr, Cache, CacheOp, Cmp, KernelBuilder, ParamTy, PtxModule, RegClass, Space, Ty,
};
use coil_ptx::{PtxError, PtxTarget};
use expect_test::expect;

fn ptx_error(result: Result<coil_ptx::ptx::PtxKernel, PtxError>) -> String {
    match result {
        Err(PtxError { reason, .. }) => reason,
        other => panic!("expected a PTX error, got {other:?}"),
    }
}

#[test]
fn a_scaling_kernel_renders_as_a_complete_module() {
    let mut b = KernelBuilder::new("scale", PtxTarget::SM90);
    b.max_threads_per_block(128);
    let x = b.ptr_param("x", 4);
    let n = b.param("n", ParamTy::U64);
    let n = b.load_param(n);
    b.grid_stride_loop(n, |b, i| {
        let off = b.shl(Ty::B64, i, 2u32);
        let a = b.add(Ty::U64, x, off);
        let v = b.ld(Space::Global, Ty::F32, a.into(), Cache::DEFAULT);
        let w = b.mul(Ty::F32, v, 2.0f32);
        b.st(Space::Global, Ty::F32, a.into(), w, Cache::DEFAULT);
    });
    let k = b.finish().expect("valid");
    expect![[r#"
        .version 8.0
        .target sm_90
        .address_size 64

        .visible .entry scale(
            .param .u64 .ptr.global.align 4 x,
            .param .u64 n
        )
        .maxntid 128, 1, 1
        {
            .reg .pred %p<2>;
            .reg .b32 %r<5>;
            .reg .b64 %rd<11>;
            .reg .f32 %f<2>;

            ld.param.u64 %rd0, [x];
            cvta.to.global.u64 %rd1, %rd0;
            ld.param.u64 %rd2, [n];
            mov.u32 %r0, %ctaid.x;
            mov.u32 %r1, %ntid.x;
            mov.u32 %r2, %tid.x;
            mul.wide.u32 %rd3, %r0, %r1;
            cvt.u64.u32 %rd4, %r2;
            add.u64 %rd5, %rd3, %rd4;
            mov.u32 %r3, %nctaid.x;
            mov.u32 %r4, %ntid.x;
            mul.wide.u32 %rd6, %r3, %r4;
            mov.u64 %rd7, %rd5;
            setp.ge.u64 %p0, %rd7, %rd2;
            @%p0 bra $L_loop_end_1;
        $L_loop_0:
            shl.b64 %rd8, %rd7, 2;
            add.u64 %rd9, %rd1, %rd8;
            ld.global.f32 %f0, [%rd9];
            mul.rn.f32 %f1, %f0, 0f40000000;
            st.global.f32 [%rd9], %f1;
            add.u64 %rd10, %rd7, %rd6;
            mov.u64 %rd7, %rd10;
            setp.lt.u64 %p1, %rd7, %rd2;
            @%p1 bra $L_loop_0;
        $L_loop_end_1:
            ret;
        }
    "#]]
    .assert_eq(&k.to_string());
    assert_eq!(k.params().len(), 2);
    assert_eq!(k.max_threads_per_block(), Some(128));
}

#[test]
fn vector_memory_cache_hints_and_warp_ops_render() {
    let mut b = KernelBuilder::new("hints", PtxTarget::SM90);
    let p = b.ptr_param("p", 16);
    let v = b.ld_vec(Space::Global, Ty::F32, Addr::reg(p), 4, Cache::READ_ONLY);
    let streaming_nc = Cache {
        op: Some(CacheOp::Cs),
        non_coherent: true,
    };
    let w = b.ld_vec(
        Space::Global,
        Ty::F32,
        Addr::reg(p).offset(16),
        4,
        streaming_nc,
    );
    let s = b.shfl(coil_ptx::ptx::Shfl::Bfly, v[0], 16u32);
    let m = b.max_nan(Ty::F32, s, w[1]);
    b.st_vec(
        Space::Global,
        Ty::F32,
        Addr::reg(p).offset(-16),
        &[m, v[1], v[2], v[3]],
        Cache::STREAMING,
    );
    b.bar_sync(0);
    let text = b.finish().expect("valid").to_string();
    for line in [
        "ld.global.nc.v4.f32 {%f0, %f1, %f2, %f3}, [%rd1];",
        "ld.global.cs.nc.v4.f32 {%f4, %f5, %f6, %f7}, [%rd1+16];",
        "shfl.sync.bfly.b32 %f8, %f0, 16, 31, -1;",
        "max.NaN.f32 %f9, %f8, %f5;",
        "st.global.cs.v4.f32 [%rd1+-16], {%f9, %f1, %f2, %f3};",
        "bar.sync 0;",
    ] {
        assert!(text.contains(line), "missing `{line}` in\n{text}");
    }
}

#[test]
fn immediates_print_as_exact_hex_for_their_type() {
    let mut b = KernelBuilder::new("imm", PtxTarget::SM90);
    let f = b.mov(Ty::F32, 1.0f32);
    let d = b.mov(Ty::F64, 1.0f64);
    let _ = b.add(Ty::F32, f, f32::NAN);
    let _ = b.mul(Ty::F64, d, -0.5f64);
    let _ = b.add(Ty::S32, 7i32, -3i32);
    let text = b.finish().expect("valid").to_string();
    assert!(text.contains("mov.f32 %f0, 0f3F800000;"), "{text}");
    assert!(text.contains("mov.f64 %fd0, 0d3FF0000000000000;"), "{text}");
    assert!(text.contains("add.rn.f32 %f1, %f0, 0f7FC00000;"), "{text}");
    assert!(
        text.contains("mul.rn.f64 %fd1, %fd0, 0dBFE0000000000000;"),
        "{text}"
    );
    assert!(text.contains("add.s32 %r0, 7, -3;"), "{text}");
}

#[test]
fn an_operand_of_the_wrong_class_is_an_error_naming_the_instruction() {
    let mut b = KernelBuilder::new("bad", PtxTarget::SM90);
    let addr = b.reg(RegClass::B64);
    let _ = b.add(Ty::F32, addr, 1.0f32);
    let reason = ptx_error(b.finish());
    assert!(
        reason.contains("add.rn.f32: operand %rd0 does not fit type .f32"),
        "{reason}"
    );

    let mut b = KernelBuilder::new("bad_imm", PtxTarget::SM90);
    let _ = b.add(Ty::U32, 1.5f32, 2u32);
    assert!(ptx_error(b.finish()).contains("add.u32"));

    let mut b = KernelBuilder::new("bad_nc_store", PtxTarget::SM90);
    let p = b.ptr_param("p", 4);
    b.st(Space::Global, Ty::U32, p.into(), 0u32, Cache::READ_ONLY);
    assert!(ptx_error(b.finish()).contains(".nc"));
}

#[test]
fn labels_must_be_placed_exactly_once() {
    let mut b = KernelBuilder::new("dangling", PtxTarget::SM90);
    let l = b.label("nowhere");
    b.bra(&l);
    assert!(ptx_error(b.finish()).contains("$L_nowhere_0 is never placed"));

    let mut b = KernelBuilder::new("twice", PtxTarget::SM90);
    let l = b.label("here");
    b.place(&l);
    b.place(&l);
    assert!(ptx_error(b.finish()).contains("placed twice"));
}

#[test]
fn resource_and_declaration_mistakes_are_errors() {
    let mut b = KernelBuilder::new("big_shared", PtxTarget::SM90);
    let _ = b.shared_array("a", 16, 40 * 1024);
    let _ = b.shared_array("b", 16, 16 * 1024);
    assert!(ptx_error(b.finish()).contains("shared memory"));

    let mut b = KernelBuilder::new("dup", PtxTarget::SM90);
    let _ = b.param("n", ParamTy::U32);
    let _ = b.param("n", ParamTy::U32);
    assert!(ptx_error(b.finish()).contains("declared twice"));

    let mut b = KernelBuilder::new("nested", PtxTarget::SM90);
    let x = b.mov(Ty::U32, 1u32);
    let p = b.setp(Cmp::Eq, Ty::U32, x, 1u32);
    b.guarded(p, false, |b| b.guarded(p, true, |b| b.bar_sync(0)));
    assert!(ptx_error(b.finish()).contains("do not nest"));
}

#[test]
fn targets_carry_the_lowest_isa_that_knows_them() {
    let cases = [
        ((8, 0), "sm_80", (8, 0)),
        ((9, 0), "sm_90", (8, 0)),
        ((10, 0), "sm_100", (8, 6)),
        ((12, 0), "sm_120", (8, 7)),
        ((11, 0), "sm_110", (9, 0)),
    ];
    for ((major, minor), sm, isa) in cases {
        let t = PtxTarget::for_compute_capability(major, minor);
        assert_eq!(t.sm_name(), sm);
        assert_eq!(t.isa, isa);
    }
    assert_eq!(PtxTarget::default(), PtxTarget::SM90);
    assert_eq!(coil_ptx::GpuCaps::h200().target(), PtxTarget::SM90);
}

#[test]
fn a_module_holds_kernels_of_one_target_with_distinct_names() {
    let k = |name: &str, t| KernelBuilder::new(name, t).finish().expect("valid");
    let mut m = PtxModule::new(PtxTarget::SM90);
    m.push(k("a", PtxTarget::SM90)).expect("first");
    m.push(k("b", PtxTarget::SM90)).expect("second");
    assert!(m.push(k("a", PtxTarget::SM90)).is_err());
    assert!(
        m.push(k("c", PtxTarget::for_compute_capability(10, 0)))
            .is_err()
    );
    let text = m.to_string();
    assert_eq!(text.matches(".version").count(), 1);
    assert_eq!(text.matches(".visible .entry").count(), 2);
}
