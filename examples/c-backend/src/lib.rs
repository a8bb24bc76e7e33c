//! coil-backend-c: a third backend for coil, written only against coil's public API, as the
//! walk-through in `docs/codegen.md` builds it. Each kernel of the kernel IR becomes one C
//! function (`render.rs`), all of a model's kernels one C file; the system C compiler (`cc`)
//! turns it into a shared library, which is loaded with `dlopen` (libloading). Memory is host
//! memory behind handles; extern matmuls are plain loops.
//!
//! **Takes**: coil's kernels ([`coil_kernel::Kernel`]) and extern calls.
//! **Gives**: [`CBackend`], a [`coil_kernel::Backend`]; its generated C is the model's
//! `output_code.c`.
//! **Must not know about**: anything of coil but `coil-kernel`, the backend boundary
//! (`cargo tree -p coil-backend-c` shows no other coil crate).
//!
//! ```no_run
//! use std::sync::Arc;
//! let backend = Arc::new(coil_backend_c::CBackend::new()?);
//! let graph = coil_models::find("softmax").expect("zoo").graph(coil_models::Size::Tiny)?;
//! let model = coil::compile(&graph, backend, &coil::Options::default())?;
//! println!("{}", model.source());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod memory;
mod render;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use coil_kernel::{
    Backend, BackendError, BufferHandle, CompiledKernels, Compiler, DType, Device, ExternCall,
    ExternKind, Kernel, Runtime, Target,
};

use crate::memory::Memory;

/// The C backend: renders kernels as C, compiles them with `compiler`, runs them on host
/// memory.
pub struct CBackend {
    compiler: PathBuf,
    memory: Arc<Memory>,
}

impl CBackend {
    /// The backend with the system's C compiler (`cc`), or an error saying it is missing.
    pub fn new() -> Result<CBackend, BackendError> {
        CBackend::with_compiler("cc")
    }

    /// The backend with this C compiler (a name looked up on `PATH`, or a path), checked by
    /// running `compiler --version`.
    pub fn with_compiler(compiler: impl Into<PathBuf>) -> Result<CBackend, BackendError> {
        let compiler = compiler.into();
        let ok = Command::new(&compiler)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return Err(BackendError::Device(format!(
                "no C compiler: `{} --version` did not run (install gcc or clang)",
                compiler.display()
            )));
        }
        Ok(CBackend {
            compiler,
            memory: Arc::new(Memory::default()),
        })
    }
}

/// A model's kernels, compiled and loaded.
struct CompiledC {
    source: String,
    /// One entry point per kernel, in the order given to `compile`.
    entries: Vec<render::Entry>,
    names: Vec<String>,
    memory: Arc<Memory>,
    /// Keeps the entry points valid.
    _library: libloading::Library,
}

impl CompiledKernels for CompiledC {
    fn launch(&self, index: usize, args: &[BufferHandle]) -> Result<(), BackendError> {
        let entry = *self
            .entries
            .get(index)
            .ok_or_else(|| BackendError::Runtime(format!("no kernel {index}")))?;
        let name = &self.names[index];
        self.memory.with_pointers(args, |ptrs| {
            // SAFETY: the entry point was compiled from this kernel's IR, which reads and
            // writes only within each argument's `len` elements (`Kernel::verify` checks the
            // IR; the facade allocates each argument's storage); the pointers stay valid
            // while the memory lock is held.
            let status = unsafe { entry(ptrs.as_ptr()) };
            match status {
                0 => Ok(()),
                1 => Err(BackendError::Runtime(format!(
                    "{name}: integer division by zero"
                ))),
                2 => Err(BackendError::Runtime(format!(
                    "{name}: integer to a negative integer power"
                ))),
                s => Err(BackendError::Runtime(format!("{name}: status {s}"))),
            }
        })
    }

    fn source(&self) -> String {
        self.source.clone()
    }

    fn source_file_name(&self) -> &'static str {
        "output_code.c"
    }
}

/// A fresh directory for one compile.
fn scratch_dir() -> Result<PathBuf, BackendError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "coil-backend-c-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| BackendError::Device(format!("{}: {e}", dir.display())))?;
    Ok(dir)
}

impl Backend for CBackend {
    /// The CPU's rules; its one library call is a plain-loop matmul.
    fn target(&self) -> Target {
        let description = format!("host CPU, C compiled by {}", self.compiler.display());
        let mut t = Target::new("c", description, Device::Cpu);
        t.caps.matmul = vec![DType::F32, DType::F64];
        t
    }
}

impl Compiler for CBackend {
    fn compile(&self, kernels: &[Kernel]) -> Result<Box<dyn CompiledKernels>, BackendError> {
        let source = render::module(kernels)?;
        let dir = scratch_dir()?;
        let (c, so) = (dir.join("kernels.c"), dir.join("kernels.so"));
        std::fs::write(&c, &source)
            .map_err(|e| BackendError::Device(format!("{}: {e}", c.display())))?;
        let out = Command::new(&self.compiler)
            .args([
                "-O2",
                "-std=c11",
                "-shared",
                "-fPIC",
                "-fno-strict-aliasing",
                "-o",
            ])
            .arg(&so)
            .arg(&c)
            .arg("-lm")
            .output()
            .map_err(|e| BackendError::Device(format!("{}: {e}", self.compiler.display())))?;
        if !out.status.success() {
            return Err(BackendError::Codegen {
                kernel: kernels.first().map_or_else(String::new, |k| k.name.clone()),
                msg: format!(
                    "the C compiler failed on {}:\n{}",
                    c.display(),
                    String::from_utf8_lossy(&out.stderr)
                ),
            });
        }
        // SAFETY: the library is the one just built from our own source, which has no
        // initialisers.
        let library = unsafe { libloading::Library::new(&so) }
            .map_err(|e| BackendError::Device(format!("loading {}: {e}", so.display())))?;
        let entries = (0..kernels.len())
            .map(|i| {
                let symbol = render::entry_name(i);
                // SAFETY: every kernel is rendered as `int coil_kernel_<i>(void **)`.
                unsafe { library.get::<render::Entry>(symbol.as_bytes()) }
                    .map(|s| *s)
                    .map_err(|e| BackendError::Device(format!("{symbol}: {e}")))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let _ = std::fs::remove_dir_all(&dir);
        Ok(Box::new(CompiledC {
            source,
            entries,
            names: kernels.iter().map(|k| format!("c_{}", k.name)).collect(),
            memory: Arc::clone(&self.memory),
            _library: library,
        }))
    }
}

impl Runtime for CBackend {
    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        self.memory.alloc(bytes)
    }

    fn free(&self, buffer: BufferHandle) {
        self.memory.free(buffer);
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        self.memory.write(buffer, bytes)
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        self.memory.read(buffer, out)
    }

    fn extern_call(&self, call: &ExternCall) -> Result<(), BackendError> {
        match call.kind {
            ExternKind::Matmul(_) => self.memory.matmul(call),
            _ => Err(BackendError::Runtime(format!(
                "the C backend does not run {}",
                call.kind.kernel_name()
            ))),
        }
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        Ok(())
    }
}
