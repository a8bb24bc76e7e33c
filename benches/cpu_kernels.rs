//! Hand-written JIT kernels for the CPU benchmarks: `y[i] = f(x[i])` (or a copy) over rows, with
//! an 8-wide vector loop and a scalar tail, in the `coil_cpu::KernelFn` ABI.

use coil_cpu::inkwell::AddressSpace;
use coil_cpu::inkwell::IntPredicate;
use coil_cpu::inkwell::builder::Builder;
use coil_cpu::inkwell::context::Context;
use coil_cpu::inkwell::module::Module;
use coil_cpu::inkwell::types::BasicTypeEnum;
use coil_cpu::inkwell::values::{BasicValue, FunctionValue, IntValue};
use coil_cpu::{CpuError, MathFn, VMath};

fn counted_loop<'ctx>(
    cx: &'ctx Context,
    b: &Builder<'ctx>,
    f: FunctionValue<'ctx>,
    (from, to, step): (IntValue<'ctx>, IntValue<'ctx>, u64),
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<(), CpuError>,
) -> Result<IntValue<'ctx>, CpuError> {
    let i64t = cx.i64_type();
    let pre = b.get_insert_block().expect("positioned");
    let (header, body_bb, exit) = (
        cx.append_basic_block(f, "header"),
        cx.append_basic_block(f, "body"),
        cx.append_basic_block(f, "exit"),
    );
    b.build_unconditional_branch(header)?;
    b.position_at_end(header);
    let iv = b.build_phi(i64t, "iv")?;
    iv.add_incoming(&[(&from, pre)]);
    let ivv = iv.as_basic_value().into_int_value();
    let next = b.build_int_add(ivv, i64t.const_int(step, false), "next")?;
    let go = b.build_int_compare(IntPredicate::SLE, next, to, "go")?;
    b.build_conditional_branch(go, body_bb, exit)?;
    b.position_at_end(body_bb);
    body(ivv)?;
    let latch = b.get_insert_block().expect("positioned");
    b.build_unconditional_branch(header)?;
    iv.add_incoming(&[(&next, latch)]);
    b.position_at_end(exit);
    Ok(ivv)
}

/// Defines `name(args = [x, y], start, end)`: for rows `start..end` of `row` f32s,
/// `y = f(x)` (`f = None`: a copy).
pub fn build_unary_f32<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    f: Option<MathFn>,
    row: u64,
) -> Result<(), CpuError> {
    let ptr = cx.ptr_type(AddressSpace::default());
    let (i64t, f32t) = (cx.i64_type(), cx.f32_type());
    let func = module.add_function(
        name,
        cx.void_type()
            .fn_type(&[ptr.into(), i64t.into(), i64t.into()], false),
        None,
    );
    let b = cx.create_builder();
    b.position_at_end(cx.append_basic_block(func, "entry"));
    let param = |i| func.get_nth_param(i).expect("three parameters");
    let args = param(0).into_pointer_value();
    let mut bufs = Vec::new();
    for i in 0..2 {
        // SAFETY (of the IR): args holds two pointers.
        let slot = unsafe { b.build_gep(ptr, args, &[i64t.const_int(i, false)], "slot")? };
        bufs.push(b.build_load(ptr, slot, "buf")?.into_pointer_value());
    }
    let vm = VMath::declare(module);
    let range = (param(1).into_int_value(), param(2).into_int_value(), 1);
    counted_loop(cx, &b, func, range, &mut |r| {
        let base = b.build_int_mul(r, i64t.const_int(row, false), "base")?;
        let step = |i: IntValue<'ctx>, ty: BasicTypeEnum<'ctx>| -> Result<(), CpuError> {
            let idx = b.build_int_add(base, i, "idx")?;
            // SAFETY (of the IR): idx < rows * row.
            let p = unsafe { b.build_in_bounds_gep(f32t, bufs[0], &[idx], "p")? };
            let v = b.build_load(ty, p, "v")?;
            let _ = v.as_instruction_value().map(|i| i.set_alignment(4));
            let out = match f {
                Some(f) => vm.call(&b, f, v)?,
                None => v,
            };
            // SAFETY (of the IR): as above.
            let q = unsafe { b.build_in_bounds_gep(f32t, bufs[1], &[idx], "q")? };
            let _ = b.build_store(q, out)?.set_alignment(4);
            Ok(())
        };
        let end = i64t.const_int(row, false);
        let tail = counted_loop(cx, &b, func, (i64t.const_zero(), end, 8), &mut |i| {
            step(i, f32t.vec_type(8).into())
        })?;
        counted_loop(cx, &b, func, (tail, end, 1), &mut |i| step(i, f32t.into()))?;
        Ok(())
    })?;
    b.build_return(None)?;
    Ok(())
}
