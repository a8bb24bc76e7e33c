//! Hand-written LLVM kernels with the `KernelFn` ABI, standing in for what the kernel-IR
//! translator will emit: an outer loop over rows `start..end`, an inner loop over `width`-lane
//! vectors, and a scalar tail.

use coil_cpu::inkwell::builder::Builder;
use coil_cpu::inkwell::context::Context;
use coil_cpu::inkwell::module::Module;
use coil_cpu::inkwell::types::BasicTypeEnum;
use coil_cpu::inkwell::values::{
    BasicValue, BasicValueEnum, FunctionValue, IntValue, PointerValue,
};
use coil_cpu::inkwell::{AddressSpace, IntPredicate};
use coil_cpu::{CpuError, FloatKind, MathFn, VMath, VMathOptions};

/// `void name(i8** args, i64 start, i64 end)` with its entry block; returns (function, args,
/// start, end).
pub(crate) fn kernel_fn<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
) -> (
    FunctionValue<'ctx>,
    PointerValue<'ctx>,
    IntValue<'ctx>,
    IntValue<'ctx>,
) {
    let ptr = cx.ptr_type(AddressSpace::default());
    let i64t = cx.i64_type();
    let f = module.add_function(
        name,
        cx.void_type()
            .fn_type(&[ptr.into(), i64t.into(), i64t.into()], false),
        None,
    );
    cx.append_basic_block(f, "entry");
    let args = f.get_nth_param(0).unwrap().into_pointer_value();
    let start = f.get_nth_param(1).unwrap().into_int_value();
    let end = f.get_nth_param(2).unwrap().into_int_value();
    (f, args, start, end)
}

/// Loads `args[i]`.
pub(crate) fn arg_ptr<'ctx>(
    cx: &'ctx Context,
    b: &Builder<'ctx>,
    args: PointerValue<'ctx>,
    i: u64,
) -> Result<PointerValue<'ctx>, CpuError> {
    let ptr = cx.ptr_type(AddressSpace::default());
    // SAFETY (of the IR): args has one pointer per buffer.
    let slot = unsafe { b.build_gep(ptr, args, &[cx.i64_type().const_int(i, false)], "slot")? };
    Ok(b.build_load(ptr, slot, "buf")?.into_pointer_value())
}

/// A counted loop `for iv in from..to step`: calls `body(iv)` inside; leaves the builder after.
pub(crate) fn counted_loop<'ctx>(
    cx: &'ctx Context,
    b: &Builder<'ctx>,
    f: FunctionValue<'ctx>,
    from: IntValue<'ctx>,
    to: IntValue<'ctx>,
    step: u64,
    body: &mut dyn FnMut(IntValue<'ctx>) -> Result<(), CpuError>,
) -> Result<IntValue<'ctx>, CpuError> {
    let i64t = cx.i64_type();
    let pre = b.get_insert_block().unwrap();
    let header = cx.append_basic_block(f, "header");
    let body_bb = cx.append_basic_block(f, "body");
    let exit = cx.append_basic_block(f, "exit");
    b.build_unconditional_branch(header)?;
    b.position_at_end(header);
    let iv = b.build_phi(i64t, "iv")?;
    iv.add_incoming(&[(&from, pre)]);
    let ivv = iv.as_basic_value().into_int_value();
    // Loop while iv + step <= to.
    let next_end = b.build_int_add(ivv, i64t.const_int(step, false), "next_end")?;
    let go = b.build_int_compare(IntPredicate::SLE, next_end, to, "go")?;
    b.build_conditional_branch(go, body_bb, exit)?;
    b.position_at_end(body_bb);
    body(ivv)?;
    let next = b.build_int_add(ivv, i64t.const_int(step, false), "next")?;
    let latch = b.get_insert_block().unwrap();
    b.build_unconditional_branch(header)?;
    iv.add_incoming(&[(&next, latch)]);
    b.position_at_end(exit);
    Ok(ivv)
}

fn elem_type<'ctx>(cx: &'ctx Context, kind: FloatKind) -> BasicTypeEnum<'ctx> {
    match kind {
        FloatKind::F32 => cx.f32_type().into(),
        FloatKind::F64 => cx.f64_type().into(),
    }
}

/// Loads (aligned to the element) a value of `ty` at `base[index]` (element index).
fn load_at<'ctx>(
    cx: &'ctx Context,
    b: &Builder<'ctx>,
    kind: FloatKind,
    base: PointerValue<'ctx>,
    index: IntValue<'ctx>,
    ty: BasicTypeEnum<'ctx>,
) -> Result<(BasicValueEnum<'ctx>, PointerValue<'ctx>), CpuError> {
    let et = elem_type(cx, kind);
    // SAFETY (of the IR): indices stay within the buffers the test allocates.
    let p = unsafe { b.build_in_bounds_gep(et, base, &[index], "p")? };
    let v = b.build_load(ty, p, "v")?;
    v.as_instruction_value()
        .unwrap()
        .set_alignment(elem_bytes(kind))
        .unwrap();
    Ok((v, p))
}

fn elem_bytes(kind: FloatKind) -> u32 {
    match kind {
        FloatKind::F32 => 4,
        FloatKind::F64 => 8,
    }
}

/// `y[r*row + i] = f(x[r*row + i])` for rows `start..end`: args = [x, y].
pub(crate) fn build_unary<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    f: MathFn,
    kind: FloatKind,
    row: u64,
    width: u32,
) -> Result<(), CpuError> {
    let options = VMathOptions::default();
    build_unary_with(cx, module, name, (f, options), kind, row, width)
}

/// [`build_unary`] with the math library's `options`.
pub(crate) fn build_unary_with<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    (f, options): (MathFn, VMathOptions),
    kind: FloatKind,
    row: u64,
    width: u32,
) -> Result<(), CpuError> {
    let call: &UnaryCall<'_, 'ctx> = &|vm, b, v| vm.call(b, f, v);
    build_unary_by(cx, module, name, (call, options), kind, row, width)
}

/// How [`build_unary_by`] computes an element (or vector) from the loaded one.
pub(crate) type UnaryCall<'a, 'ctx> = dyn Fn(
        &VMath<'_, 'ctx>,
        &Builder<'ctx>,
        BasicValueEnum<'ctx>,
    ) -> Result<BasicValueEnum<'ctx>, CpuError>
    + 'a;

/// [`build_unary_with`] with any call of the math library.
pub(crate) fn build_unary_by<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    (call, options): (&UnaryCall<'_, 'ctx>, VMathOptions),
    kind: FloatKind,
    row: u64,
    width: u32,
) -> Result<(), CpuError> {
    let vm = VMath::with_options(module, options);
    let (func, args, start, end) = kernel_fn(cx, module, name);
    let b = cx.create_builder();
    b.position_at_end(func.get_first_basic_block().unwrap());
    let x = arg_ptr(cx, &b, args, 0)?;
    let y = arg_ptr(cx, &b, args, 1)?;
    let i64t = cx.i64_type();
    let et = elem_type(cx, kind);
    let vt: BasicTypeEnum = match et {
        BasicTypeEnum::FloatType(t) => t.vec_type(width).into(),
        _ => unreachable!(),
    };
    counted_loop(cx, &b, func, start, end, 1, &mut |r| {
        let base = b.build_int_mul(r, i64t.const_int(row, false), "base")?;
        let row_end = i64t.const_int(row, false);
        let step = |i: IntValue<'ctx>, ty: BasicTypeEnum<'ctx>| -> Result<(), CpuError> {
            let idx = b.build_int_add(base, i, "idx")?;
            let (v, _) = load_at(cx, &b, kind, x, idx, ty)?;
            let out = call(&vm, &b, v)?;
            // SAFETY (of the IR): as for the load.
            let p = unsafe { b.build_in_bounds_gep(et, y, &[idx], "q")? };
            b.build_store(p, out)?
                .set_alignment(elem_bytes(kind))
                .unwrap();
            Ok(())
        };
        let tail_start = counted_loop(
            cx,
            &b,
            func,
            i64t.const_zero(),
            row_end,
            u64::from(width),
            &mut |i| step(i, vt),
        )?;
        counted_loop(cx, &b, func, tail_start, row_end, 1, &mut |i| step(i, et))?;
        Ok(())
    })?;
    b.build_return(None)?;
    Ok(())
}

/// `out[r] = sum(x[r*row .. (r+1)*row])` for rows `start..end` with a `width`-lane vector
/// accumulator reduced once per row: args = [x, out]. f32 only.
pub(crate) fn build_row_sum<'ctx>(
    cx: &'ctx Context,
    module: &Module<'ctx>,
    name: &str,
    row: u64,
    width: u32,
) -> Result<(), CpuError> {
    let (func, args, start, end) = kernel_fn(cx, module, name);
    let b = cx.create_builder();
    b.position_at_end(func.get_first_basic_block().unwrap());
    let x = arg_ptr(cx, &b, args, 0)?;
    let out = arg_ptr(cx, &b, args, 1)?;
    let i64t = cx.i64_type();
    let f32t = cx.f32_type();
    let vt = f32t.vec_type(width);
    let acc_slot = b.build_alloca(vt, "acc")?;
    let tail_slot = b.build_alloca(f32t, "tail")?;
    counted_loop(cx, &b, func, start, end, 1, &mut |r| {
        let base = b.build_int_mul(r, i64t.const_int(row, false), "base")?;
        let row_end = i64t.const_int(row, false);
        b.build_store(acc_slot, vt.const_zero())?;
        b.build_store(tail_slot, f32t.const_zero())?;
        let tail_start = counted_loop(
            cx,
            &b,
            func,
            i64t.const_zero(),
            row_end,
            u64::from(width),
            &mut |i| {
                let idx = b.build_int_add(base, i, "idx")?;
                let (v, _) = load_at(cx, &b, FloatKind::F32, x, idx, vt.into())?;
                let acc = b.build_load(vt, acc_slot, "acc")?.into_vector_value();
                let sum = b.build_float_add(acc, v.into_vector_value(), "sum")?;
                b.build_store(acc_slot, sum)?;
                Ok(())
            },
        )?;
        counted_loop(cx, &b, func, tail_start, row_end, 1, &mut |i| {
            let idx = b.build_int_add(base, i, "idx")?;
            let (v, _) = load_at(cx, &b, FloatKind::F32, x, idx, f32t.into())?;
            let acc = b.build_load(f32t, tail_slot, "t")?.into_float_value();
            let sum = b.build_float_add(acc, v.into_float_value(), "tsum")?;
            b.build_store(tail_slot, sum)?;
            Ok(())
        })?;
        let acc = b.build_load(vt, acc_slot, "acc")?;
        let reduce = coil_cpu::inkwell::intrinsics::Intrinsic::find("llvm.vector.reduce.fadd")
            .unwrap()
            .get_declaration(module, &[vt.into()])
            .unwrap();
        let tail = b.build_load(f32t, tail_slot, "t")?;
        let total = b
            .build_call(reduce, &[tail.into(), acc.into()], "total")?
            .try_as_basic_value()
            .basic()
            .unwrap();
        // SAFETY (of the IR): r < rows.
        let p = unsafe { b.build_in_bounds_gep(f32t, out, &[r], "o")? };
        b.build_store(p, total)?;
        Ok(())
    })?;
    b.build_return(None)?;
    Ok(())
}
