//! PTX to machine code (cubins): the driver's linker (`cuLinkCreate`, `cuLinkAddData`,
//! `cuLinkComplete`), or nvJitLink ([`PtxCompiler`]), run on every core at once for all of a
//! compile's modules, each cubin
//! kept in memory (for the device while it is open; a general kernel's, shared across sizes,
//! for the process) and in coil's persistent compile cache ([`coil_cache`], namespace `cubin`),
//! so a module is turned into machine code once per machine, not once per process; loading a
//! cubin (`cuModuleLoadData`) does no compiling. [`ModuleSplit`] decides
//! how a compile's kernels share modules (one per core by default).
//!
//! A cubin's key is everything that changes it: the PTX text, the device's architecture, the
//! driver's version (its PTX compiler), the JIT options and coil's version.

use std::collections::HashMap;
use std::ffi::{CString, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

use coil_cache::{Cache, Key, KeyBuilder, Lookup};
use cudarc::driver::sys;

use crate::CudaError;

/// Which library turns PTX into a cubin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PtxCompiler {
    /// The driver's linker (`cuLink*`, in `libcuda`): always there with a driver.
    #[default]
    Driver,
    /// nvJitLink (`libnvJitLink.so`), where it loads.
    NvJitLink,
}

/// How PTX is turned into machine code: part of every cubin's cache key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JitOptions {
    /// The library.
    pub compiler: PtxCompiler,
    /// Optimization level, 0-4 (`CU_JIT_OPTIMIZATION_LEVEL`; 4, the driver's default, is
    /// ptxas's default `-O3` through nvJitLink).
    pub opt_level: u32,
    /// A cap on registers per thread (`CU_JIT_MAX_REGISTERS`, `-maxrregcount`); `None`
    /// leaves it to ptxas and the kernels' own bounds.
    pub max_registers: Option<u32>,
}

impl Default for JitOptions {
    fn default() -> Self {
        JitOptions {
            compiler: PtxCompiler::Driver,
            opt_level: 4,
            max_registers: None,
        }
    }
}

impl JitOptions {
    /// The options as the cache key spells them.
    fn key_text(&self) -> String {
        format!(
            "{:?} O{} regs {:?}",
            self.compiler, self.opt_level, self.max_registers
        )
    }
}

/// `ptx` as the C string the compilers take.
pub(crate) fn ptx_cstring(ptx: &str, kernel: &str) -> Result<CString, CudaError> {
    CString::new(ptx).map_err(|_| {
        CudaError::Ptx(coil_ptx::PtxError {
            kernel: kernel.to_string(),
            reason: "PTX text contains a NUL byte".into(),
        })
    })
}

/// The driver's JIT error, with its log (a NUL-terminated buffer), for `kernel`.
pub(crate) fn module_load_error(
    kernel: &str,
    source: cudarc::driver::DriverError,
    log: &[u8],
) -> CudaError {
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    CudaError::ModuleLoad {
        kernel: kernel.to_string(),
        source,
        log: String::from_utf8_lossy(&log[..end]).into_owned(),
    }
}

/// One module's trip to machine code, for the compile report.
#[derive(Clone, Debug, PartialEq)]
pub struct JitRecord {
    /// The module's first kernel.
    pub kernel: String,
    /// Milliseconds turning its PTX into a cubin (0 for a cubin found in a cache).
    pub ms: f64,
    /// Where the cubin came from: `"jit"`, `"cache"` (the persistent cache) or `"memory"`
    /// (compiled before in this process).
    pub source: &'static str,
}

/// The cubins of this process and the persistent cache behind them.
#[derive(Debug)]
pub(crate) struct Jit {
    cache: RwLock<Arc<Cache>>,
    arch: String,
    driver: i32,
    options: RwLock<JitOptions>,
    memo: Mutex<HashMap<Key, Arc<Vec<u8>>>>,
    records: Mutex<Vec<JitRecord>>,
}

/// Cubins by key, and their bytes in all.
type Cubins = (HashMap<Key, Arc<Vec<u8>>>, usize);

/// The most bytes of general kernels' cubins the process keeps in memory; past it that memo
/// starts again.
const GENERAL_MEMO_BYTES: usize = 256 << 20;

/// The cubins of general kernels' modules ([`crate::families`]) in this process, whichever
/// device's compile made them (their keys hold the architecture, the driver and the options),
/// and their bytes: a compile that opens the device again (each compile from Python does)
/// finds the ones an earlier compile made. Other modules are kept per device: a compile of
/// all of its own code stays as cold as it was.
fn general_memo() -> std::sync::MutexGuard<'static, Cubins> {
    static MEMO: std::sync::OnceLock<Mutex<Cubins>> = std::sync::OnceLock::new();
    MEMO.get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

impl Jit {
    pub(crate) fn new(compute_capability: (u32, u32), driver: i32) -> Jit {
        Jit {
            cache: RwLock::new(Arc::new(Cache::off())),
            arch: format!("sm_{}{}", compute_capability.0, compute_capability.1),
            driver,
            options: RwLock::new(JitOptions::default()),
            memo: Mutex::new(HashMap::new()),
            records: Mutex::new(Vec::new()),
        }
    }

    fn key(&self, ptx: &str, options: &JitOptions) -> Key {
        KeyBuilder::new()
            .part("ptx", ptx)
            .part("arch", &self.arch)
            .part("driver", self.driver.to_string())
            .part("jit-options", options.key_text())
            .part(
                "coil",
                concat!("coil-cuda ", env!("CARGO_PKG_VERSION"), " cubin v1"),
            )
            .finish()
    }

    /// The records since the last call (drained).
    pub(crate) fn take_records(&self) -> Vec<JitRecord> {
        std::mem::take(&mut *self.records.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// How later modules are compiled.
    pub(crate) fn options(&self) -> JitOptions {
        *self.options.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Compiles later modules with `options`.
    pub(crate) fn set_options(&self, options: JitOptions) {
        *self.options.write().unwrap_or_else(|p| p.into_inner()) = options;
    }

    /// The persistent cache (off until [`Jit::set_cache`]).
    pub(crate) fn cache(&self) -> Arc<Cache> {
        self.cache.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Sends later cubins through `cache`.
    pub(crate) fn set_cache(&self, cache: Arc<Cache>) {
        *self.cache.write().unwrap_or_else(|p| p.into_inner()) = cache;
    }

    /// The cubin of `ptx`: from memory, the persistent cache, or the JIT. `bind` makes the
    /// device's context current on this thread (the linker needs one).
    pub(crate) fn cubin(
        &self,
        ptx: &str,
        kernel: &str,
        bind: &dyn Fn() -> Result<(), CudaError>,
    ) -> Result<Arc<Vec<u8>>, CudaError> {
        let options = self.options();
        let key = self.key(ptx, &options);
        let record = |ms, source| {
            self.records
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(JitRecord {
                    kernel: kernel.to_string(),
                    ms,
                    source,
                });
        };
        let general = kernel.starts_with(crate::families::ENTRY_PREFIX);
        let remembered = if general {
            general_memo().0.get(&key).cloned()
        } else {
            let memo = self.memo.lock().unwrap_or_else(|p| p.into_inner());
            memo.get(&key).cloned()
        };
        if let Some(c) = remembered {
            record(0.0, "memory");
            return Ok(c.clone());
        }
        let cache = self.cache();
        let cubin = match cache.get("cubin", &key) {
            Lookup::Hit(bytes) => {
                record(0.0, "cache");
                Arc::new(bytes)
            }
            _ => {
                let start = Instant::now();
                let text = ptx_cstring(ptx, kernel)?;
                let bytes = match options.compiler {
                    PtxCompiler::Driver => {
                        bind()?;
                        link(&text, kernel, &options)?
                    }
                    PtxCompiler::NvJitLink => crate::nvjitlink::compile(
                        &text,
                        kernel,
                        &self.arch,
                        options.opt_level,
                        options.max_registers,
                    )?,
                };
                let ms = start.elapsed().as_secs_f64() * 1e3;
                tracing::debug!(target: "cuda", kernel, ms, bytes = bytes.len(), "PTX compiled to a cubin");
                record(ms, "jit");
                cache.put("cubin", &key, &bytes);
                Arc::new(bytes)
            }
        };
        if general {
            let mut kept = general_memo();
            if kept.1 + cubin.len() > GENERAL_MEMO_BYTES {
                *kept = Default::default();
            }
            kept.1 += cubin.len();
            kept.0.insert(key, cubin.clone());
        } else {
            self.memo
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key, cubin.clone());
        }
        Ok(cubin)
    }

    /// Compiles every text of `modules` (PTX, with the name of its first kernel) at once on
    /// up to `threads` threads. Failures are left for the module's own load to report.
    pub(crate) fn precompile(
        &self,
        modules: &[(String, String)],
        threads: usize,
        bind: &(dyn Fn() -> Result<(), CudaError> + Sync),
    ) {
        let next = AtomicUsize::new(0);
        let workers = threads.clamp(1, modules.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((ptx, kernel)) = modules.get(i) else { break };
                        if let Err(e) = self.cubin(ptx, kernel, bind) {
                            tracing::debug!(target: "cuda", kernel, %e, "precompiling failed (reported at load)");
                        }
                    }
                });
            }
        });
    }
}

/// PTX to a cubin through the driver's linker (the current thread's context's architecture).
fn link(text: &CString, kernel: &str, jit: &JitOptions) -> Result<Vec<u8>, CudaError> {
    let mut log = vec![0u8; 16 * 1024];
    let mut options = vec![
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        sys::CUjit_option::CU_JIT_OPTIMIZATION_LEVEL,
    ];
    let mut values = vec![
        log.as_mut_ptr().cast::<c_void>(),
        log.len() as *mut c_void,
        jit.opt_level as usize as *mut c_void,
    ];
    if let Some(r) = jit.max_registers {
        options.push(sys::CUjit_option::CU_JIT_MAX_REGISTERS);
        values.push(r as usize as *mut c_void);
    }
    let fail = |source, log: &[u8]| module_load_error(kernel, source, log);
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: the options point at live values (the log buffer outlives the link state).
    unsafe {
        sys::cuLinkCreate_v2(
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut state,
        )
    }
    .result()
    .map_err(|e| fail(e, &log))?;
    // SAFETY: `state` is a live link state; the PTX is NUL-terminated (its size includes the
    // NUL, as the driver asks); the cubin belongs to `state` and is copied before it is
    // destroyed.
    let result = unsafe {
        let name = c"coil.ptx";
        let added = sys::cuLinkAddData_v2(
            state,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            text.as_ptr() as *mut c_void,
            text.as_bytes_with_nul().len(),
            name.as_ptr(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
        .result();
        added.and_then(|()| {
            let mut cubin: *mut c_void = std::ptr::null_mut();
            let mut size = 0usize;
            sys::cuLinkComplete(state, &mut cubin, &mut size)
                .result()
                .map(|()| std::slice::from_raw_parts(cubin.cast::<u8>(), size).to_vec())
        })
    };
    // SAFETY: destroyed once, after its cubin was copied.
    let _ = unsafe { sys::cuLinkDestroy(state) };
    result.map_err(|e| fail(e, &log))
}

/// How a compile's kernels are shared out over PTX modules, each turned into machine code on a
/// core of its own (all at once) and loaded with one `cuModuleLoadData`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModuleSplit {
    /// A module per kernel: the most parallel compile (bounded by the slowest kernel), but a
    /// load per kernel on every start, cached or not (0.2-0.3 ms each on an H100: 40 ms for
    /// mobilenet's 172 kernels).
    PerKernel,
    /// At most this many modules, each a run of consecutive kernels of about equal PTX size.
    Groups(usize),
    /// The whole model one module: one JIT job, on one core.
    Whole,
}

impl ModuleSplit {
    /// One module per core of this machine (the default): the compile still uses every
    /// core, and a start loads as many modules as there are cores, not kernels.
    pub fn per_core() -> ModuleSplit {
        ModuleSplit::Groups(std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// The runs of `sizes` (each kernel's PTX bytes, in order) that make the modules: ranges
    /// of kernel indices covering `0..sizes.len()` in order, none empty.
    pub fn runs(self, sizes: &[usize]) -> Vec<std::ops::Range<usize>> {
        let n = sizes.len();
        let groups = match self {
            ModuleSplit::PerKernel => n,
            ModuleSplit::Groups(g) => g.clamp(1, n.max(1)),
            ModuleSplit::Whole => 1,
        };
        if n == 0 {
            return Vec::new();
        }
        let total: usize = sizes.iter().sum();
        let mut runs = Vec::with_capacity(groups);
        let (mut start, mut acc) = (0, 0usize);
        for (i, &size) in sizes.iter().enumerate() {
            acc += size;
            let left = n - (i + 1);
            let wanted = groups - runs.len() - 1;
            // Close the run once it reaches its share of the total, keeping a kernel for each
            // run still to come; or when only as many kernels are left as runs to fill.
            let share = total * (runs.len() + 1) / groups;
            if wanted > 0 && (acc >= share || left == wanted) && left >= wanted {
                runs.push(start..i + 1);
                start = i + 1;
            }
        }
        runs.push(start..n);
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each part of a cubin's key, changed on its own, gives another key.
    #[test]
    fn every_part_of_the_key_matters() {
        let jit = Jit::new((9, 0), 13000);
        let base = JitOptions::default();
        let key = jit.key("ptx", &base);
        assert_eq!(key, jit.key("ptx", &base));
        let others = [
            jit.key("ptx ", &base),
            Jit::new((10, 0), 13000).key("ptx", &base),
            Jit::new((9, 0), 13010).key("ptx", &base),
            jit.key(
                "ptx",
                &JitOptions {
                    compiler: PtxCompiler::NvJitLink,
                    ..base
                },
            ),
            jit.key(
                "ptx",
                &JitOptions {
                    opt_level: 1,
                    ..base
                },
            ),
            jit.key(
                "ptx",
                &JitOptions {
                    max_registers: Some(64),
                    ..base
                },
            ),
        ];
        for (i, other) in others.iter().enumerate() {
            assert_ne!(key, *other, "part {i} did not change the key");
        }
    }

    #[test]
    fn module_runs_cover_the_kernels_in_order_with_balanced_sizes() {
        let sizes = [5, 1, 1, 1, 1, 1, 9, 1, 1, 1];
        for split in [
            ModuleSplit::PerKernel,
            ModuleSplit::Whole,
            ModuleSplit::Groups(1),
            ModuleSplit::Groups(3),
            ModuleSplit::Groups(4),
            ModuleSplit::Groups(10),
            ModuleSplit::Groups(64),
        ] {
            let runs = split.runs(&sizes);
            let flat: Vec<usize> = runs.iter().cloned().flatten().collect();
            assert_eq!(flat, (0..sizes.len()).collect::<Vec<_>>(), "{split:?}");
            assert!(runs.iter().all(|r| !r.is_empty()), "{split:?}: {runs:?}");
            let want = match split {
                ModuleSplit::PerKernel => 10,
                ModuleSplit::Whole => 1,
                ModuleSplit::Groups(g) => g.min(10),
            };
            assert_eq!(runs.len(), want, "{split:?}: {runs:?}");
        }
        // Three runs of 22 bytes: none holds much more than a third.
        let runs = ModuleSplit::Groups(3).runs(&sizes);
        let biggest = runs
            .iter()
            .map(|r| sizes[r.clone()].iter().sum::<usize>())
            .max();
        assert!(biggest <= Some(12), "{runs:?}");
        assert!(ModuleSplit::Groups(4).runs(&[]).is_empty());
    }
}
