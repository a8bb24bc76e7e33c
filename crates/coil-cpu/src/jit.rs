//! The LLVM harness: host target detection, the optimisation pipeline (a lean one of the passes kernels gain from, or `default<O3>`) for the host CPU, object
//! code generation linked into the process by ORC ([`crate::orc`]) through the compile cache,
//! and symbol lookup. A [`JitModule`] owns its machine code, so compiled code outlives the
//! closure that built it and can be kept in a `Box<dyn ...>` by a backend.

use std::collections::HashMap;
use std::sync::OnceLock;

use coil_cache::{Cache, KeyBuilder, Lookup};
use inkwell::OptimizationLevel;
use inkwell::attributes::AttributeLoc;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};

use crate::CpuError;
use crate::orc::LoadedObject;

/// The machine code generation targets: this process's CPU, with every feature it has.
pub struct HostTarget {
    machine: TargetMachine,
    /// The same target for relocatable objects the JIT linker loads (position-independent,
    /// small code model).
    object_machine: TargetMachine,
    triple: String,
    cpu: String,
    features: String,
}

impl std::fmt::Debug for HostTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostTarget")
            .field("triple", &self.triple)
            .field("cpu", &self.cpu)
            .finish_non_exhaustive()
    }
}

fn init_native() -> Result<(), CpuError> {
    static INIT: OnceLock<Result<(), String>> = OnceLock::new();
    INIT.get_or_init(|| {
        Target::initialize_native(&InitializationConfig::default())?;
        apply_llvm_args();
        Ok(())
    })
    .clone()
    .map_err(CpuError::TargetInit)
}

/// LLVM's own options coil sets for its process by default: code generation without loop
/// strength reduction, a fifth of a kernel's code generation time for no measured change in
/// run time (docs/perf.md, 2026-12-06 session 7).
pub const DEFAULT_LLVM_ARGS: &[&str] = &["-disable-lsr"];

static LLVM_ARGS: OnceLock<Vec<String>> = OnceLock::new();

/// The LLVM options this process runs with: those [`set_llvm_args`] gave, else
/// [`DEFAULT_LLVM_ARGS`]. They shape the machine code, so the compile cache's key holds them.
pub fn llvm_args() -> &'static [String] {
    LLVM_ARGS.get_or_init(|| DEFAULT_LLVM_ARGS.iter().map(|a| a.to_string()).collect())
}

/// Sets the LLVM options for this process (the CLI and the Python module pass
/// `COIL_LLVM_ARGS`'s, space-separated; for measuring code generation's choices) in place of
/// [`DEFAULT_LLVM_ARGS`]. Only before the first compile: `false` once they are fixed.
pub fn set_llvm_args(args: Vec<String>) -> bool {
    LLVM_ARGS.set(args).is_ok()
}

/// Hands [`llvm_args`] to LLVM, once, before any module is compiled (LLVM's options are the
/// process's). LLVM's C entry point ignores an option it does not know, silently.
fn apply_llvm_args() {
    let args: Vec<std::ffi::CString> = std::iter::once("coil")
        .chain(llvm_args().iter().map(String::as_str))
        .filter_map(|a| std::ffi::CString::new(a).ok())
        .collect();
    if args.len() == 1 {
        return;
    }
    let ptrs: Vec<*const std::ffi::c_char> = args.iter().map(|a| a.as_ptr()).collect();
    // SAFETY: `ptrs` points to NUL-terminated strings that outlive the call, which copies
    // what it keeps; it runs once, before any LLVM work in this process.
    unsafe {
        inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
            ptrs.len() as i32,
            ptrs.as_ptr(),
            c"coil".as_ptr(),
        );
    }
}

impl HostTarget {
    /// Detects the host: its triple, CPU name (e.g. `znver3`) and feature string (e.g.
    /// `+avx2,+fma,...`), and builds an `-O3` target machine for it.
    pub fn detect() -> Result<Self, CpuError> {
        init_native()?;
        let triple = TargetMachine::get_default_triple();
        let target =
            Target::from_triple(&triple).map_err(|e| CpuError::TargetInit(e.to_string()))?;
        let cpu = TargetMachine::get_host_cpu_name().to_string();
        let features = TargetMachine::get_host_cpu_features().to_string();
        let machine = target
            .create_target_machine(
                &triple,
                &cpu,
                &features,
                OptimizationLevel::Aggressive,
                RelocMode::Default,
                CodeModel::JITDefault,
            )
            .ok_or_else(|| {
                CpuError::TargetInit(format!("no target machine for {triple} / {cpu}"))
            })?;
        let object_machine = target
            .create_target_machine(
                &triple,
                &cpu,
                &features,
                OptimizationLevel::Aggressive,
                RelocMode::PIC,
                CodeModel::Small,
            )
            .ok_or_else(|| {
                CpuError::TargetInit(format!("no object target machine for {triple} / {cpu}"))
            })?;
        Ok(HostTarget {
            machine,
            object_machine,
            triple: triple.as_str().to_string_lossy().into_owned(),
            cpu,
            features,
        })
    }

    /// The target triple, e.g. `x86_64-pc-linux-gnu`.
    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// LLVM's name for the host CPU, e.g. `znver3`.
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// The host's feature string as LLVM spells it (`+avx2,+fma,-avx512f,...`).
    pub fn features(&self) -> &str {
        &self.features
    }

    /// Whether the host has `feature` (spelt without the sign, e.g. `avx2`).
    pub fn has_feature(&self, feature: &str) -> bool {
        lists(&self.features, feature)
    }

    /// The natural vector width in bytes for float arithmetic: 64 with AVX-512, 32 with AVX,
    /// 16 otherwise. A kernel's inner loop should use `vector_bytes() / size_of(elem)` lanes.
    pub fn vector_bytes(&self) -> u32 {
        if self.has_feature("avx512f") {
            64
        } else if self.has_feature("avx") {
            32
        } else {
            16
        }
    }

    /// The LLVM target machine (for emitting assembly or object code of a module).
    pub fn machine(&self) -> &TargetMachine {
        &self.machine
    }

    /// Sets `module`'s triple and data layout to the host's.
    pub fn prepare_module(&self, module: &Module<'_>) {
        module.set_triple(&TargetTriple::create(&self.triple));
        module.set_data_layout(&self.machine.get_target_data().get_data_layout());
    }
}

/// LLVM's own `-O3` pipeline.
pub const O3_PIPELINE: &str = "default<O3>";

/// The passes coil's kernels gain from, and no others: helpers inlined, what each function
/// reads and writes inferred (so that calls of coil's math functions are merged and hoisted
/// like arithmetic), scalar replacement, common subexpressions, instruction combining, loops
/// rotated with their invariants hoisted and induction variables simplified (for code
/// generation's strength reduction), value numbering, what both arms of a branch compute hoisted above it (the
/// reciprocal of a row's sum, where a row takes one of two loops), and dead helpers removed.
pub const LEAN_PIPELINE: &str = "always-inline,cgscc(function-attrs),function(sroa,\
early-cse<memssa>,instcombine<no-verify-fixpoint>,simplifycfg,loop(loop-rotate),\
loop-mssa(licm),loop(indvars),gvn,instcombine<no-verify-fixpoint>,\
simplifycfg<hoist-common-insts;sink-common-insts>),globaldce";

/// How a module is optimised before it is compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JitOptions {
    /// The new-pass-manager pipeline text: [`LEAN_PIPELINE`] by default, [`O3_PIPELINE`] or
    /// any other where a caller wants it (`COIL_LLVM_PIPELINE` in the CLI).
    pub pipeline: String,
    /// Whether the pipeline's loop vectorizer and SLP vectorizer run. Off by default: coil's
    /// translator emits its vector code itself, and what is left for them (scalar tails,
    /// per-row scalar code) gains nothing from vectors but costs compile time.
    pub llvm_vectorize: bool,
    /// Whether the pipeline's loop unroller runs. Off by default: the translator unrolls the
    /// loops that gain from it (a reduction's accumulators); LLVM's unroller mostly copied
    /// short scalar tails out, about a quarter of the compile time on the zoo with the
    /// vectorizers.
    pub llvm_unroll: bool,
    /// Also keep the host assembly of the optimised module ([`JitModule::assembly`]), generated
    /// by the same target machine settings the JIT uses (for `output_code.s` and tests).
    pub emit_assembly: bool,
}

impl Default for JitOptions {
    fn default() -> Self {
        JitOptions {
            pipeline: LEAN_PIPELINE.to_string(),
            llvm_vectorize: false,
            llvm_unroll: false,
            emit_assembly: false,
        }
    }
}

fn module_name(module: &Module<'_>) -> String {
    module.get_name().to_string_lossy().into_owned()
}

/// Verifies `module`, tags every function with the host CPU and features (so codegen uses AVX2,
/// FMA, ...), runs `options.pipeline` with the host target machine (vectorizers and unroller as
/// `options` say), and verifies again.
pub fn optimize(
    module: &Module<'_>,
    target: &HostTarget,
    options: &JitOptions,
) -> Result<(), CpuError> {
    let name = module_name(module);
    module.verify().map_err(|e| CpuError::Verify {
        module: name.clone(),
        stage: "before optimisation",
        message: e.to_string(),
    })?;
    target.prepare_module(module);
    let context = module.get_context();
    let cpu = context.create_string_attribute("target-cpu", target.cpu());
    let features = context.create_string_attribute("target-features", target.features());
    for function in module.get_functions() {
        if function.count_basic_blocks() > 0 {
            function.add_attribute(AttributeLoc::Function, cpu);
            function.add_attribute(AttributeLoc::Function, features);
        }
    }
    module
        .run_passes(&options.pipeline, target.machine(), {
            let passes = PassBuilderOptions::create();
            passes.set_loop_vectorization(options.llvm_vectorize);
            passes.set_loop_slp_vectorization(options.llvm_vectorize);
            passes.set_loop_interleaving(options.llvm_vectorize);
            passes.set_loop_unrolling(options.llvm_unroll);
            passes
        })
        .map_err(|e| CpuError::Passes {
            module: name.clone(),
            pipeline: options.pipeline.clone(),
            message: e.to_string(),
        })?;
    module.verify().map_err(|e| CpuError::Verify {
        module: name,
        stage: "after optimisation",
        message: e.to_string(),
    })
}

/// The optimised IR of modules compiled apart (in parallel), linked into one module's text: one
/// file that LLVM's tools read as they would a single module's (an empty module `name` for no
/// texts). An error if LLVM cannot parse or link them (function names must be distinct).
pub fn link_ir(name: &str, texts: &[&str]) -> Result<String, CpuError> {
    let link_err = |stage: &str, e: String| CpuError::Link {
        module: name.to_string(),
        message: format!("{stage}: {e}"),
    };
    if let [one] = texts {
        return Ok(one.to_string());
    }
    let context = Context::create();
    // Every text is parsed before any linking: linking leaves a diagnostic handler behind in
    // the context that a later parse must not run into.
    let mut modules = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        let buffer = inkwell::memory_buffer::MemoryBuffer::create_from_memory_range_copy(
            text.as_bytes(),
            &format!("{name}.{i}"),
        );
        let module = context
            .create_module_from_ir(buffer)
            .map_err(|e| link_err("parsing optimised IR", e.to_string()))?;
        modules.push(module);
    }
    let mut rest = modules.into_iter();
    let linked = rest.next().unwrap_or_else(|| context.create_module(name));
    for module in rest {
        linked
            .link_in_module(module)
            .map_err(|e| link_err("linking optimised IR", e.to_string()))?;
    }
    linked.set_name(name);
    Ok(linked.print_to_string().to_string())
}

/// Machine code loaded into this process ([`crate::orc`]), the optimised IR it came from, and
/// whether it came from the compile cache.
///
/// Every function the module defines is resolved when the module is compiled; lookups afterwards
/// only read a table, never LLVM.
pub struct JitModule {
    name: String,
    /// The optimised module as bitcode (its text made on demand).
    bitcode: Vec<u8>,
    assembly: Option<String>,
    symbols: HashMap<String, usize>,
    cache: &'static str,
    codegen_ms: f64,
    _object: LoadedObject,
}

impl std::fmt::Debug for JitModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JitModule")
            .field("name", &self.name)
            .field("functions", &self.symbols.len())
            .finish_non_exhaustive()
    }
}

impl JitModule {
    /// Creates a context and an empty module `name`, lets `build` fill it with IR, optimises it
    /// for `target` ([`optimize`]), generates object code and links it into this process
    /// ([`crate::orc`]). No compile cache: [`JitModule::compile_cached`].
    ///
    /// Undefined functions the module declares must be LLVM intrinsics, coil runtime helpers
    /// ([`crate::vmath::runtime_symbols`]) or symbols of this process (libc, libm); anything else
    /// is [`CpuError::UnresolvedSymbol`], reported before any code is generated.
    pub fn compile<F>(
        name: &str,
        target: &HostTarget,
        options: &JitOptions,
        build: F,
    ) -> Result<JitModule, CpuError>
    where
        F: for<'ctx> FnOnce(&'ctx Context, &Module<'ctx>) -> Result<(), CpuError>,
    {
        JitModule::compile_cached(name, target, options, None, build)
    }

    /// [`JitModule::compile`] through `cache`: the entry of the module's IR as built (with the
    /// target, the options, LLVM's and coil's versions) holds its optimised IR and object
    /// code; a hit skips optimising and code generation.
    pub fn compile_cached<F>(
        name: &str,
        target: &HostTarget,
        options: &JitOptions,
        cache: Option<&Cache>,
        build: F,
    ) -> Result<JitModule, CpuError>
    where
        F: for<'ctx> FnOnce(&'ctx Context, &Module<'ctx>) -> Result<(), CpuError>,
    {
        let built = std::time::Instant::now();
        let context = Context::create();
        let module = context.create_module(name);
        build(&context, &module)?;
        let build_ms = ms(built);
        let (defined, runtime) = check_symbols(&module, name)?;
        let cache = cache.filter(|c| c.is_on() && !options.emit_assembly);
        let keyed = std::time::Instant::now();
        let key = cache.map(|_| cache_key(&module, target, options));
        let key_ms = ms(keyed);
        if let (Some(cache), Some(key)) = (cache, &key)
            && let Lookup::Hit(entry) = cache.get("object", key)
            && let Some((bitcode, object)) = split_entry(&entry)
        {
            let start = std::time::Instant::now();
            let loaded = LoadedObject::load(name, object, &defined, &runtime)?;
            return Ok(JitModule::new(
                name,
                bitcode.to_vec(),
                None,
                loaded,
                "hit",
                ms(start),
            ));
        }
        let start = std::time::Instant::now();
        optimize(&module, target, options)?;
        let optimize_ms = ms(start);
        // Bitcode, not text: printing the IR (every float constant in decimal) took a fifth of
        // a large module's compile; the text is made from this only when asked for.
        let bitcode = module.write_bitcode_to_memory().as_slice().to_vec();
        let bitcode_ms = ms(start) - optimize_ms;
        let assembly = if options.emit_assembly {
            // Code generation rewrites IR in place (CodeGenPrepare), so it runs on a copy.
            let copy = module.clone();
            let buffer = target
                .object_machine
                .write_to_memory_buffer(&copy, FileType::Assembly)
                .map_err(|e| CpuError::Jit {
                    module: name.to_string(),
                    message: format!("emitting assembly: {e}"),
                })?;
            Some(String::from_utf8_lossy(buffer.as_slice()).into_owned())
        } else {
            None
        };
        let object = target
            .object_machine
            .write_to_memory_buffer(&module, FileType::Object)
            .map_err(|e| CpuError::Jit {
                module: name.to_string(),
                message: format!("emitting object code: {e}"),
            })?;
        let emitted_ms = ms(start);
        let loaded = LoadedObject::load(name, object.as_slice(), &defined, &runtime)?;
        let codegen_ms = ms(start);
        tracing::debug!(target: "cpu", module = name, build_ms, key_ms, optimize_ms, bitcode_ms, object_ms = emitted_ms - optimize_ms - bitcode_ms, load_ms = codegen_ms - emitted_ms, "module compiled");
        let word = match (cache, &key) {
            (Some(cache), Some(key)) => {
                cache.put("object", key, &join_entry(&bitcode, object.as_slice()));
                "miss"
            }
            _ => "off",
        };
        Ok(JitModule::new(
            name, bitcode, assembly, loaded, word, codegen_ms,
        ))
    }

    fn new(
        name: &str,
        bitcode: Vec<u8>,
        assembly: Option<String>,
        loaded: LoadedObject,
        cache: &'static str,
        codegen_ms: f64,
    ) -> JitModule {
        JitModule {
            name: name.to_string(),
            bitcode,
            assembly,
            symbols: loaded.symbols().clone(),
            cache,
            codegen_ms,
            _object: loaded,
        }
    }

    /// Whether the machine code came from the compile cache (`"hit"`), was generated and
    /// stored (`"miss"`), or was generated with no cache (`"off"`).
    pub fn cache(&self) -> &'static str {
        self.cache
    }

    /// Milliseconds optimising and generating code (or loading it, on a hit).
    pub fn codegen_ms(&self) -> f64 {
        self.codegen_ms
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The optimised module as LLVM text IR (`output_code.ll` holds the backend's modules'
    /// texts linked into one, [`link_ir`]), printed from its bitcode on each call.
    pub fn optimized_ir(&self) -> String {
        let context = Context::create();
        let buffer = MemoryBuffer::create_from_memory_range(&self.bitcode, &self.name);
        match Module::parse_bitcode_from_buffer(&buffer, &context) {
            Ok(module) => module.print_to_string().to_string(),
            Err(e) => format!(
                "; the optimised bitcode of {} does not parse: {e}\n",
                self.name
            ),
        }
    }

    /// The host assembly of the optimised module, if [`JitOptions::emit_assembly`] asked for it.
    pub fn assembly(&self) -> Option<&str> {
        self.assembly.as_deref()
    }

    /// The names of the externally visible functions the module defines, sorted.
    pub fn function_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.symbols.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }

    /// The address of the compiled function `name`.
    pub fn address(&self, name: &str) -> Result<usize, CpuError> {
        self.symbols
            .get(name)
            .copied()
            .ok_or_else(|| CpuError::MissingFunction {
                module: self.name.clone(),
                name: name.to_string(),
            })
    }

    /// The compiled function `name` as a function pointer of type `F`.
    ///
    /// # Safety
    /// `F` must be an `extern "C"` function pointer type whose signature matches the LLVM
    /// function's, and the pointer must not be called after `self` is dropped.
    pub unsafe fn function<F: Copy>(&self, name: &str) -> Result<F, CpuError> {
        const {
            assert!(std::mem::size_of::<F>() == std::mem::size_of::<usize>());
        }
        let addr = self.address(name)?;
        // SAFETY: `F` is a function pointer type (caller's promise, size checked above) and
        // `addr` is the entry of a function JIT-compiled from this module.
        Ok(unsafe { std::mem::transmute_copy::<usize, F>(&addr) })
    }
}

fn ms(start: std::time::Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1e3
}

/// Runtime helpers a module uses: name and address.
type RuntimeSymbols = Vec<(&'static str, usize)>;

/// The functions `module` defines (externally visible) and the runtime helpers it declares
/// with their addresses; an error for a declared symbol nothing defines.
fn check_symbols(
    module: &Module<'_>,
    name: &str,
) -> Result<(Vec<String>, RuntimeSymbols), CpuError> {
    let runtime: HashMap<&'static str, usize> =
        crate::vmath::runtime_symbols().into_iter().collect();
    let mut defined = Vec::new();
    let mut used = Vec::new();
    for function in module.get_functions() {
        let fname = function.get_name().to_string_lossy().into_owned();
        if function.count_basic_blocks() > 0 {
            if function.get_linkage() != inkwell::module::Linkage::Internal
                && function.get_linkage() != inkwell::module::Linkage::Private
            {
                defined.push(fname);
            }
        } else if function.get_intrinsic_id() != 0 {
            continue;
        } else if let Some((&sym, &addr)) = runtime.get_key_value(fname.as_str()) {
            used.push((sym, addr));
        } else if inkwell::support::search_for_address_of_symbol(&fname).is_none() {
            return Err(CpuError::UnresolvedSymbol {
                module: name.to_string(),
                symbol: fname,
            });
        }
    }
    Ok((defined, used))
}

/// The cache key of a module as built: its IR (as bitcode), the target, the options, LLVM's and coil's
/// versions.
fn cache_key(module: &Module<'_>, target: &HostTarget, options: &JitOptions) -> coil_cache::Key {
    let (major, minor, patch) = inkwell::support::get_llvm_version();
    KeyBuilder::new()
        // Bitcode: the module as built, written several times faster than its text.
        .part("llvm-bitcode", module.write_bitcode_to_memory().as_slice())
        .part("triple", &target.triple)
        .part("cpu", &target.cpu)
        .part("features", &target.features)
        .part("options", format!("{options:?}"))
        .part("llvm", format!("{major}.{minor}.{patch}"))
        .part("llvm-args", llvm_args().join(" "))
        .part(
            "coil",
            concat!("coil-cpu ", env!("CARGO_PKG_VERSION"), " object v2"),
        )
        .finish()
}

/// A cache entry: the optimised bitcode's length, the bitcode, the object code.
fn join_entry(bitcode: &[u8], object: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(8 + bitcode.len() + object.len());
    out.extend_from_slice(&(bitcode.len() as u64).to_le_bytes());
    out.extend_from_slice(bitcode);
    out.extend_from_slice(object);
    out
}

fn split_entry(entry: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = u64::from_le_bytes(entry.get(..8)?.try_into().ok()?) as usize;
    let bitcode = entry.get(8..8usize.checked_add(n)?)?;
    Some((bitcode, &entry[8 + n..]))
}

/// Whether LLVM's feature string `features` (`+avx2,+fma,-avx512f,...`) turns `feature` on.
fn lists(features: &str, feature: &str) -> bool {
    features
        .split(',')
        .any(|f| f.strip_prefix('+') == Some(feature))
}

/// Whether this host has `feature` (spelt without the sign), without building a
/// [`HostTarget`]: the host's feature string is read from LLVM once. Code generation asks this
/// before it emits a target-specific intrinsic (JIT code runs on this host).
pub(crate) fn host_has_feature(feature: &str) -> bool {
    static FEATURES: OnceLock<String> = OnceLock::new();
    let features = FEATURES.get_or_init(|| TargetMachine::get_host_cpu_features().to_string());
    lists(features, feature)
}
