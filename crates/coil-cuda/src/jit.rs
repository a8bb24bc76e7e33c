//! PTX to machine code (cubins): the driver's linker (`cuLinkCreate`, `cuLinkAddData`,
//! `cuLinkComplete`) run on every core at once for all of a compile's modules, each cubin
//! kept in memory for the process and in coil's persistent compile cache ([`coil_cache`],
//! namespace `cubin`), so a module is turned into machine code once per machine, not once per
//! process; loading a cubin (`cuModuleLoadData`) does no compiling.
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

/// The JIT's optimization level (`CU_JIT_OPTIMIZATION_LEVEL`, 0-4; 4 is the driver's
/// default).
pub(crate) const OPT_LEVEL: u32 = 4;

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
    memo: Mutex<HashMap<Key, Arc<Vec<u8>>>>,
    records: Mutex<Vec<JitRecord>>,
}

impl Jit {
    pub(crate) fn new(compute_capability: (u32, u32), driver: i32) -> Jit {
        Jit {
            cache: RwLock::new(Arc::new(Cache::off())),
            arch: format!("sm_{}{}", compute_capability.0, compute_capability.1),
            driver,
            memo: Mutex::new(HashMap::new()),
            records: Mutex::new(Vec::new()),
        }
    }

    fn key(&self, ptx: &str) -> Key {
        KeyBuilder::new()
            .part("ptx", ptx)
            .part("arch", &self.arch)
            .part("driver", self.driver.to_string())
            .part("jit-options", format!("O{OPT_LEVEL}"))
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
        let key = self.key(ptx);
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
        if let Some(c) = self
            .memo
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
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
                bind()?;
                let start = Instant::now();
                let bytes = link(ptx, kernel)?;
                let ms = start.elapsed().as_secs_f64() * 1e3;
                tracing::debug!(target: "cuda", kernel, ms, bytes = bytes.len(), "PTX compiled to a cubin");
                record(ms, "jit");
                cache.put("cubin", &key, &bytes);
                Arc::new(bytes)
            }
        };
        self.memo
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, cubin.clone());
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
fn link(ptx: &str, kernel: &str) -> Result<Vec<u8>, CudaError> {
    let text = CString::new(ptx).map_err(|_| {
        CudaError::Ptx(coil_ptx::PtxError {
            kernel: kernel.to_string(),
            reason: "PTX text contains a NUL byte".into(),
        })
    })?;
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        sys::CUjit_option::CU_JIT_OPTIMIZATION_LEVEL,
    ];
    let mut values = [
        log.as_mut_ptr().cast::<c_void>(),
        log.len() as *mut c_void,
        OPT_LEVEL as usize as *mut c_void,
    ];
    let fail = |source, log: &[u8]| {
        let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
        CudaError::ModuleLoad {
            kernel: kernel.to_string(),
            source,
            log: String::from_utf8_lossy(&log[..end]).into_owned(),
        }
    };
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
