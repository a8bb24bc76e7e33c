//! The optimised LLVM IR the backend generates: one function per kernel, vector loads and
//! vector accumulators in the fused seed_model kernel, vector math (no scalar libm calls) in
//! softmax, and errors as values for bad launches.

use coil_codegen::{BackendError, CompiledKernels, Compiler as _, Runtime as _};

use crate::driver::{all_in_one, backend, lower, run};

/// The optimised IR of the tiny model with every buffer in one kernel, and that kernel's name.
fn fused_ir(name: &str) -> (String, String) {
    let case = coil_models::find(name).unwrap().tiny_case().unwrap();
    let l = lower(&case.graph);
    let r = run(backend(), &l, &all_in_one(&l), &case.inputs).unwrap();
    assert_eq!(r.names.len(), 1, "{name}: {:?}", r.names);
    (r.source, r.names[0].clone())
}

/// The optimised IR of the large (8192 x 8192) model's kernel, all buffers fused (compiled,
/// not run).
fn large_fused_ir(name: &str) -> String {
    large_fused_ir_on(name, backend())
}

/// [`large_fused_ir`] compiled by `b`.
fn large_fused_ir_on(name: &str, b: &coil_cpu::CpuBackend) -> String {
    let g = coil_models::find(name)
        .unwrap()
        .graph(coil_models::Size::Large)
        .unwrap();
    let l = lower(&g);
    let members: Vec<_> = l.buffers().iter().map(|b| b.id).collect();
    let outs: Vec<_> = l.outputs().iter().map(|o| o.buffer).collect();
    let needed = |b| outs.contains(&coil_lower::BufRef::Buffer(b));
    let k = coil_codegen::build_kernel(&l, &members, &needed, name, &Default::default()).unwrap();
    let compiled = b.compile_kernels(std::slice::from_ref(&k)).unwrap();
    compiled.optimized_ir().unwrap()
}

/// The body of function `@name` in `ir`.
fn function<'a>(ir: &'a str, name: &str) -> &'a str {
    let start = ir
        .find(&format!("@{name}("))
        .unwrap_or_else(|| panic!("no @{name} in\n{ir}"));
    let end = ir[start..].find("\n}\n").map_or(ir.len(), |e| start + e);
    &ir[start..end]
}

#[test]
fn seed_model_uses_vector_loads_and_vector_accumulators() {
    let w = backend().vector_width();
    let (ir, kernel) = fused_ir("seed_model");
    let f = function(&ir, &kernel);
    let vec = format!("<{w} x float>");
    assert!(f.contains(&format!("load {vec}")), "no {vec} loads in\n{f}");
    assert!(
        f.contains(&format!("fadd {vec}")),
        "no vector fadd (accumulator) in\n{f}"
    );
    assert!(
        f.contains(&format!("store {vec}")),
        "no vector stores in\n{f}"
    );
    // The mean's accumulator keeps its name through O3.
    assert!(f.contains("%acc0"), "accumulator not named in\n{f}");
}

#[test]
fn softmax_exp_is_vector_code_without_libm_calls() {
    let w = backend().vector_width();
    let (ir, _) = fused_ir("softmax");
    for libm in ["@expf", "@exp(", "@llvm.exp", "@coil_rt_"] {
        assert!(!ir.contains(libm), "softmax calls {libm}:\n{ir}");
    }
    assert!(ir.contains(&format!("<{w} x float>")));
    // Only intrinsics (fma, rint, min/max) are called.
    for line in ir.lines().filter(|l| l.contains("call ")) {
        assert!(line.contains("@llvm."), "softmax calls a function: {line}");
    }
}

/// The kernels are shared out over one LLVM module per thread and compiled in parallel; the
/// results equal a one-thread compile's bit for bit, and the source is one module's text (LLVM
/// parses it back) defining one function per kernel.
#[test]
fn kernels_compile_in_parallel_modules_and_link_into_one_source() {
    let case = coil_models::find("transformer_block")
        .unwrap()
        .tiny_case()
        .unwrap();
    let l = lower(&case.graph);
    let groups = crate::driver::per_buffer(&l);
    let with_threads = |threads| {
        // Compiled twice (the modules counted, then run): each compile makes its own code.
        let b = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
            threads,
            compile_every_size: true,
            ..Default::default()
        })
        .unwrap();
        // The modules the kernels were shared out over: the facade's kernels, compiled by
        // the backend's own entry point.
        let options = coil::Options {
            strategy: std::sync::Arc::new(coil_sched::NoFusion),
            ..coil::Options::default()
        };
        let prepared = coil::prepare(&case.graph, &b, &options).unwrap();
        let modules = b
            .compile_kernels(&prepared.artifacts.program.kernels)
            .unwrap()
            .modules()
            .len();
        (run(&b, &l, &groups, &case.inputs).unwrap(), modules)
    };
    let ((one, one_modules), (three, three_modules)) = (with_threads(1), with_threads(3));
    assert_eq!(one_modules, 1);
    assert_eq!(three_modules, 3);
    for r in [&one, &three] {
        assert_eq!(r.source.matches("; ModuleID").count(), 1, "{}", r.source);
        assert_eq!(
            r.source.matches("define void @cpu_").count(),
            r.kernels,
            "{}",
            r.source
        );
        // The linked text is valid IR: LLVM reads it back (linking it with itself would
        // redefine every function).
        coil_cpu::link_ir("again", &[&r.source, "; nothing\n"]).unwrap();
    }
    assert_eq!(one.outputs.len(), three.outputs.len());
    for (i, (a, b)) in one.outputs.iter().zip(&three.outputs).enumerate() {
        let (a, b) = (a.to_f64_vec(), b.to_f64_vec());
        assert_eq!(a.len(), b.len(), "output {i}");
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "output {i} differs between 1 and 3 compiling threads"
        );
    }
    // No modules (a model of extern calls only) link into an empty module, not an error.
    let empty = coil_cpu::link_ir("none", &[]).unwrap();
    assert!(empty.contains("ModuleID = 'none'"), "{empty}");
}

/// A row the vectors divide gets neither a remainder vector loop nor a scalar tail (the trip
/// counts are known when the row's length is); a row they do not divide gets both.
#[test]
fn rows_the_vectors_divide_have_no_remainder_loops() {
    let source = |cols: usize| {
        let g = coil_graph::parse(&format!(
            r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[4, {cols}]"):
        sum_1: "f32[4]" = torch.ops.aten.sum.dim_IntList(x, [1])
        return (sum_1,)
"#
        ))
        .unwrap();
        let l = lower(&g);
        let x = crate::shapes::random(coil_graph::DType::F32, &[4, cols], 3);
        let r = run(backend(), &l, &all_in_one(&l), std::slice::from_ref(&x)).unwrap();
        let want: Vec<f64> = x
            .to_f64_vec()
            .chunks(cols)
            .map(|row| row.iter().sum())
            .collect();
        for (got, want) in r.outputs[0].to_f64_vec().iter().zip(&want) {
            assert!(
                (got - want).abs() <= 1e-4 * want.abs().max(1.0),
                "{got} != {want}"
            );
        }
        r.source
    };
    let w = backend().vector_width() as usize;
    if w == 1 {
        return; // No vectors: every element is the scalar loop's.
    }
    // Four vector accumulators: 4·W lanes a step. `p1.loop` is the remainder vector loop's
    // header, `p1.tail.loop` the scalar tail's.
    let divided = source(64 * w);
    assert!(!divided.contains("p1.loop"), "{divided}");
    assert!(!divided.contains("p1.tail"), "{divided}");
    let ragged = source(64 * w + w + 3);
    assert!(ragged.contains("p1.tail"), "{ragged}");
}

#[test]
fn bad_launches_and_copies_are_errors() {
    let case = coil_models::find("rowsum").unwrap().tiny_case().unwrap();
    let l = lower(&case.graph);
    let k = coil_codegen::build_kernel(
        &l,
        &[l.buffers()[0].id],
        &|_| true,
        "rowsum",
        &coil_codegen::BuildOptions::default(),
    )
    .unwrap();
    let b = backend();
    let compiled: Box<dyn CompiledKernels> = b.compile(std::slice::from_ref(&k)).unwrap();
    assert_eq!(compiled.source_file_name(), "output_code.ll");
    let x = b.alloc(64 * 64 * 4).unwrap();
    let small = b.alloc(4).unwrap();
    let out = b.alloc(64 * 4).unwrap();
    let err = |r: Result<(), BackendError>| r.unwrap_err().to_string();
    assert!(err(compiled.launch(0, &[x])).contains("takes 2 buffers"));
    assert!(err(compiled.launch(0, &[small, out])).contains("the kernel needs"));
    assert!(err(compiled.launch(1, &[x, out])).contains("no kernel 1"));
    assert!(err(compiled.launch(0, &[x, x])).contains("also passed"));
    b.free(small);
    assert!(err(compiled.launch(0, &[small, out])).contains("not a live buffer"));
    assert!(err(b.write(out, &[0u8; 1000])).contains("writing 1000 bytes"));
    compiled.launch(0, &[x, out]).unwrap();
    let dup = b.compile(&[k.clone(), k]);
    assert!(matches!(dup, Err(BackendError::Codegen { .. })));
    b.free(x);
    b.free(out);
}

#[test]
fn large_softmax_computes_exp_once_per_element() {
    let ir = large_fused_ir("softmax");
    // The sum's loop stores exp(x - max) in the row cache; the division's loop reloads it.
    assert!(ir.contains("row_cache"), "no row cache in\n{ir}");
    assert!(
        ir.contains(".cached"),
        "the division does not reload exp in\n{ir}"
    );
    // One exp polynomial: its first coefficient appears once per unrolled copy of one loop.
    let f = function(&ir, "cpu_softmax");
    assert!(
        !f.contains("v8 ="),
        "the division's loop recomputes exp:\n{f}"
    );
}

#[test]
fn large_softmax_divides_once_per_row() {
    // `e / sum` with a finished sum: one scalar division per row, hoisted out of the loop,
    // and a multiplication per element. The division's stage is emitted twice (pipelined:
    // in the next row's exp loop, and once after the last row), each with its reciprocal.
    let vec = format!("<{} x float>", backend().vector_width());
    let ir = large_fused_ir("softmax");
    let f = function(&ir, "cpu_softmax");
    assert!(!f.contains(&format!("fdiv {vec}")), "{f}");
    assert_eq!(f.matches("fdiv float 1.000000e+00").count(), 2, "{f}");
    let division = block_of(f, ".cached = load");
    assert!(division.contains(&format!("fmul {vec}")), "{f}");
    // With the option off, every element divides.
    let exact = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
        threads: 1,
        codegen: coil_cpu::CodegenOptions {
            invariant_reciprocal: false,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let ir = large_fused_ir_on("softmax", &exact);
    let f = function(&ir, "cpu_softmax");
    assert!(
        block_of(f, ".cached = load").contains(&format!("fdiv {vec}")),
        "{f}"
    );
}

/// The basic block of `f` that contains the first occurrence of `needle`.
fn block_of<'a>(f: &'a str, needle: &str) -> &'a str {
    let at = f
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in\n{f}"));
    let start = f[..at].rfind("\n\n").map_or(0, |s| s + 2);
    let end = f[at..].find("\n\n").map_or(f.len(), |e| at + e);
    &f[start..end]
}

#[test]
fn large_softmax_prefetches_the_next_row_from_its_exp_loop() {
    let vec = format!("<{} x float>", backend().vector_width());
    // Of the two later stages, the sum of exp computes the most (the division reloads exp from
    // the row cache), so its loop prefetches the next row; the division's loop does not.
    let ir = large_fused_ir("softmax");
    let f = function(&ir, "cpu_softmax");
    let prefetching = block_of(f, "@llvm.prefetch");
    assert!(!prefetching.contains(".cached = load"), "{f}");
    let division = block_of(f, ".cached = load");
    assert!(!division.contains("@llvm.prefetch"), "{f}");
    // layernorm's last stage computes the most: the loop that stores prefetches.
    let ir = large_fused_ir("layernorm");
    let f = function(&ir, "cpu_layernorm");
    assert!(
        block_of(f, "@llvm.prefetch").contains(&format!("store {vec}")),
        "{f}"
    );
}

#[test]
fn softmax_exp_uses_the_register_table_where_the_host_has_avx2() {
    // The default looks 2^(j/8) up with vpermps on AVX2 hosts with 8-lane vectors; with the
    // option off (or without AVX2) the exp is the portable polynomial.
    let avx2_lanes = coil_cpu::HostTarget::detect().unwrap().has_feature("avx2")
        && backend().vector_width() == 8;
    let f = large_fused_ir("softmax");
    assert_eq!(f.contains("@llvm.x86.avx2.permps"), avx2_lanes, "{f}");
    let polynomial = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
        threads: 1,
        codegen: coil_cpu::CodegenOptions {
            table_exp: false,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let f = large_fused_ir_on("softmax", &polynomial);
    assert!(!f.contains("@llvm.x86.avx2.permps"), "{f}");
}

/// The compile-cost estimate reads the plan that is emitted: softmax's bounded `exp` stage is
/// emitted twice and counts twice, and turning the bounded `exp` off plans (and costs) it
/// once.
#[test]
fn the_compile_cost_counts_the_planned_kernel() {
    let case = coil_models::find("softmax").unwrap().tiny_case().unwrap();
    let options = coil::Options {
        strategy: std::sync::Arc::new(coil_testkit::AllInOne),
        ..coil::Options::default()
    };
    let prepared = coil::prepare(&case.graph, backend(), &options).unwrap();
    let [kernel] = prepared.artifacts.program.kernels.as_slice() else {
        panic!("one kernel");
    };
    let on = coil_cpu::CodegenOptions::default();
    let off = coil_cpu::CodegenOptions {
        bounded_exp: false,
        ..Default::default()
    };
    let (bounded, plain) = (
        coil_cpu::plan_kernel(kernel, &on, 8),
        coil_cpu::plan_kernel(kernel, &off, 8),
    );
    assert!(
        bounded.compile_cost() > plain.compile_cost(),
        "{} vs {}",
        bounded.compile_cost(),
        plain.compile_cost()
    );
    // Planning is deterministic: the plan emitted is the plan costed.
    assert_eq!(
        coil_cpu::plan_kernel(kernel, &on, 8).compile_cost(),
        bounded.compile_cost()
    );
}

/// A kernel that calls the math library at many places (a chain of softmaxes fused together)
/// calls its functions instead of inlining each call (`CodegenOptions::max_inlined_math_calls`:
/// LLVM's time grows with the inlined code), and still computes eager's results; the one
/// softmax above stays inlined.
#[test]
fn a_kernel_with_many_math_calls_calls_the_math_functions() {
    let mut text = String::from(
        "class GraphModule(torch.nn.Module):\n    def forward(self, x: \"f32[8, 48]\"):\n",
    );
    let mut prev = "x".to_string();
    for i in 0..12 {
        text += &format!(
            "        sm{i}: \"f32[8, 48]\" = torch.ops.aten._softmax.default({prev}, -1, False)\n        \
             add{i}: \"f32[8, 48]\" = torch.ops.aten.add.Tensor(sm{i}, {prev})\n"
        );
        prev = format!("add{i}");
    }
    text += &format!("        return ({prev},)\n");
    let g = coil_graph::parse(&text).unwrap();
    let b = std::sync::Arc::new(coil_cpu::CpuBackend::new().unwrap());
    let model = coil::compile(&g, b, &coil::Options::default()).unwrap();
    let ir = model.source();
    let called = ir
        .lines()
        .filter(|l| l.contains("call ") && l.contains("@coil_exp_"))
        .count();
    assert!(called > 0, "no calls of the math library's exp in\n{ir}");
    let inputs = coil_testkit::random_inputs(&g, 11);
    let got = model.run(&inputs).unwrap();
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5).unwrap();
}

/// Values that depend only on constants and on elements at fixed positions of read-only
/// arguments (an optimizer step's `beta ** step`, from a 0-d tensor) are computed once at the
/// kernel's entry: the results stay eager's, in pointwise and reduction kernels, with an
/// integer division by a 0-d tensor left in place.
#[test]
fn loop_invariant_values_hoisted_to_the_entry_keep_eagers_results() {
    let text = r#"
class GraphModule(torch.nn.Module):
    def forward(self, x: "f32[37, 19]", step: "f32[]", n: "i64[]", k: "i64[4]"):
        pow_1: "f32[]" = torch.ops.aten.pow.Scalar(0.9, step)
        neg: "f32[]" = torch.ops.aten.neg.default(pow_1)
        rsub: "f32[]" = torch.ops.aten.add.Tensor(neg, 1.0)
        mul: "f32[37, 19]" = torch.ops.aten.mul.Tensor(x, rsub)
        sqrt: "f32[]" = torch.ops.aten.sqrt.default(step)
        add: "f32[37, 19]" = torch.ops.aten.add.Tensor(mul, sqrt)
        sum_1: "f32[37]" = torch.ops.aten.sum.dim_IntList(add, [1])
        div: "i64[4]" = torch.ops.aten.div.Tensor_mode(k, n, rounding_mode="floor")
        return (add, sum_1, div)
"#;
    let g = coil_graph::parse(text).unwrap();
    let b = std::sync::Arc::new(coil_cpu::CpuBackend::new().unwrap());
    let model = coil::compile(&g, b, &coil::Options::default()).unwrap();
    for (step, n) in [(1.0f32, 3i64), (7.0, -2), (1000.0, 5)] {
        let inputs = [
            coil_testkit::random_tensor(coil_graph::DType::F32, &[37, 19], 5),
            coil_graph::Tensor::from_f32(vec![step], vec![]).unwrap(),
            crate::backend_ir::ints(vec![n], vec![]),
            crate::backend_ir::ints(vec![7, -7, 0, 100], vec![4]),
        ];
        let got = model.run(&inputs).unwrap();
        let want = coil_eager::run(&g, &inputs).unwrap().outputs;
        coil_testkit::check_outputs(&got, &want, 1e-5, 1e-5)
            .unwrap_or_else(|e| panic!("step {step}, n {n}: {e}"));
    }
}

fn ints(values: Vec<i64>, sizes: Vec<usize>) -> coil_graph::Tensor {
    coil_graph::Tensor::new(coil_graph::Data::I64(values), sizes).unwrap()
}

/// Kernels with the same code (two branches of the same shapes, each a transposed read: a
/// strided load, so a gather) share one compiled function, unless the backend is told to
/// compile every kernel on its own; both ways give eager's results.
#[test]
fn kernels_with_the_same_code_share_one_function() {
    let g = coil_graph::parse(coil_testkit::TWIN_BRANCHES).unwrap();
    let inputs = coil_testkit::random_inputs(&g, 3);
    let want = coil_eager::run(&g, &inputs).unwrap().outputs;
    for (every, functions) in [(false, 1), (true, 2)] {
        let b = coil_cpu::CpuBackend::with_options(coil_cpu::CpuOptions {
            compile_every_kernel: every,
            ..Default::default()
        })
        .unwrap();
        let model = coil::compile(&g, std::sync::Arc::new(b), &coil::Options::default()).unwrap();
        assert_eq!(model.report.num_kernels, 2, "{}", model.source());
        let ir = model.source();
        let defined = ir.lines().filter(|l| l.starts_with("define ")).count();
        assert_eq!(defined, functions, "every kernel on its own: {every}\n{ir}");
        assert!(ir.contains("@llvm.masked.gather"), "no gather in\n{ir}");
        let got = model.run(&inputs).unwrap();
        coil_testkit::check_outputs(&got, &want, 1e-6, 1e-6).unwrap();
    }
}
