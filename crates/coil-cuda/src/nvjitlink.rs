//! PTX to a cubin through NVIDIA's `nvJitLink` library (`libnvJitLink.so.13`, or `.12`, as
//! the CUDA toolkit and PyTorch's wheels ship it), loaded at run time: the alternative to the
//! driver's linker that [`crate::jit`] measures against. Each call has a handle of its own,
//! so calls on different threads share nothing; unlike the driver's linker it needs no
//! context current on the thread.
//!
//! A machine without the library still runs: [`available`] says why not, and the backend
//! keeps the driver's linker.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::OnceLock;

use crate::CudaError;

type Handle = *mut c_void;

/// `nvJitLinkInputType::NVJITLINK_INPUT_PTX`.
const INPUT_PTX: c_int = 2;

/// The entry points coil calls (the unversioned names every release exports).
struct Api {
    create: unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Handle) -> c_int,
    add_data: unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int,
    complete: unsafe extern "C" fn(Handle) -> c_int,
    cubin_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(Handle, *mut c_void) -> c_int,
    error_log_size: unsafe extern "C" fn(Handle, *mut usize) -> c_int,
    error_log: unsafe extern "C" fn(Handle, *mut c_char) -> c_int,
    /// Which file was loaded.
    soname: &'static str,
    /// Keeps the functions above valid.
    _lib: libloading::Library,
}

static API: OnceLock<Result<Api, String>> = OnceLock::new();

const SONAMES: [&str; 3] = [
    "libnvJitLink.so.13",
    "libnvJitLink.so.12",
    "libnvJitLink.so",
];

fn load() -> Result<Api, String> {
    let mut tried = Vec::new();
    for soname in SONAMES {
        // SAFETY: loading NVIDIA's library runs its initialisers, which have no unsound ones.
        let lib = match unsafe { libloading::Library::new(soname) } {
            Ok(l) => l,
            Err(e) => {
                tried.push(format!("{soname}: {e}"));
                continue;
            }
        };
        // SAFETY: each symbol is looked up by its documented name and given its documented
        // C signature (nvJitLink.h); the library outlives them (kept in `Api`).
        let api = unsafe {
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("{soname} lacks {}: {e}", $name))?
                };
            }
            Api {
                create: sym!("nvJitLinkCreate"),
                destroy: sym!("nvJitLinkDestroy"),
                add_data: sym!("nvJitLinkAddData"),
                complete: sym!("nvJitLinkComplete"),
                cubin_size: sym!("nvJitLinkGetLinkedCubinSize"),
                cubin: sym!("nvJitLinkGetLinkedCubin"),
                error_log_size: sym!("nvJitLinkGetErrorLogSize"),
                error_log: sym!("nvJitLinkGetErrorLog"),
                soname,
                _lib: lib,
            }
        };
        return Ok(api);
    }
    Err(format!(
        "nvJitLink is not loadable ({}); put the directory holding libnvJitLink.so.13 on LD_LIBRARY_PATH",
        tried.join("; ")
    ))
}

fn api() -> Result<&'static Api, String> {
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// Whether nvJitLink can be used here: the library's file name, or why not.
pub fn available() -> Result<&'static str, String> {
    api().map(|a| a.soname)
}

/// The options nvJitLink takes for `arch` (`sm_90`), a ptxas optimization level (0-3; 4,
/// the driver's default, is ptxas's default too) and a register cap.
fn options(arch: &str, opt_level: u32, max_registers: Option<u32>) -> Vec<CString> {
    let mut o = vec![format!("-arch={arch}")];
    if opt_level < 4 {
        o.push(format!("-Xptxas=-O{opt_level}"));
    }
    if let Some(r) = max_registers {
        o.push(format!("-maxrregcount={r}"));
    }
    o.into_iter()
        .map(|s| CString::new(s).unwrap_or_default())
        .collect()
}

/// `ptx` (NUL-terminated) compiled to a cubin for `arch`.
pub(crate) fn compile(
    ptx: &CString,
    kernel: &str,
    arch: &str,
    opt_level: u32,
    max_registers: Option<u32>,
) -> Result<Vec<u8>, CudaError> {
    let fail = |reason: String, log: String| CudaError::PtxCompile {
        kernel: kernel.to_string(),
        compiler: "nvJitLink",
        reason,
        log,
    };
    let api = api().map_err(|e| fail(e, String::new()))?;
    let opts = options(arch, opt_level, max_registers);
    let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
    let mut handle: Handle = std::ptr::null_mut();
    // SAFETY: `ptrs` holds `ptrs.len()` NUL-terminated strings that live through the call.
    let status = unsafe { (api.create)(&mut handle, ptrs.len() as u32, ptrs.as_ptr()) };
    if status != 0 {
        return Err(fail(
            format!("nvJitLinkCreate returned {status}"),
            String::new(),
        ));
    }
    // SAFETY: a live handle; the PTX pointer and length (with its NUL) describe live bytes;
    // the cubin buffer is sized by the library's own answer; the handle is destroyed once.
    unsafe {
        let name = c"coil.ptx";
        let mut step = "nvJitLinkAddData";
        let mut status = (api.add_data)(
            handle,
            INPUT_PTX,
            ptx.as_ptr().cast(),
            ptx.as_bytes_with_nul().len(),
            name.as_ptr(),
        );
        if status == 0 {
            step = "nvJitLinkComplete";
            status = (api.complete)(handle);
        }
        let mut size = 0usize;
        if status == 0 {
            step = "nvJitLinkGetLinkedCubinSize";
            status = (api.cubin_size)(handle, &mut size);
        }
        let mut bytes = vec![0u8; size];
        if status == 0 {
            step = "nvJitLinkGetLinkedCubin";
            status = (api.cubin)(handle, bytes.as_mut_ptr().cast());
        }
        let result = if status == 0 {
            Ok(bytes)
        } else {
            let mut len = 0usize;
            let mut log = String::new();
            if (api.error_log_size)(handle, &mut len) == 0 && len > 0 {
                let mut buf = vec![0u8; len];
                if (api.error_log)(handle, buf.as_mut_ptr().cast()) == 0 {
                    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
                    log = String::from_utf8_lossy(&buf[..end]).into_owned();
                }
            }
            Err(fail(format!("{step} returned {status}"), log))
        };
        (api.destroy)(&mut handle);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_arch_and_only_non_default_levels() {
        let o = |l, r| {
            options("sm_90", l, r)
                .into_iter()
                .map(|c| c.into_string().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(o(4, None), ["-arch=sm_90"]);
        assert_eq!(
            o(1, Some(64)),
            ["-arch=sm_90", "-Xptxas=-O1", "-maxrregcount=64"]
        );
    }
}
