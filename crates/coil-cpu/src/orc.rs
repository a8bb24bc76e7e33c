//! Object code loaded into this process: an ORC `LLJIT` (LLVM's JIT linker) given a
//! relocatable object, which it links against coil's runtime helpers (absolute symbols) and
//! this process's libraries (libm, libc), then the addresses of the functions it defines.
//!
//! Every compiled CPU module goes this way, the one just generated and one read from the
//! compile cache alike: the same bytes load the same way, so a warm start runs the very
//! machine code a cold one did.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char};

use inkwell::llvm_sys;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcCreateLLJITBuilder, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup,
    LLVMOrcLLJITMangleAndIntern, LLVMOrcLLJITRef,
};
use llvm_sys::orc2::{
    LLVMJITEvaluatedSymbol, LLVMJITSymbolFlags, LLVMJITSymbolGenericFlags, LLVMOrcAbsoluteSymbols,
    LLVMOrcCSymbolMapPair, LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess,
    LLVMOrcJITDylibAddGenerator, LLVMOrcJITDylibDefine,
};

use crate::CpuError;

/// A linked object: the JIT that owns its memory, and its functions' addresses.
pub(crate) struct LoadedObject {
    jit: LLVMOrcLLJITRef,
    symbols: HashMap<String, usize>,
}

// SAFETY: the JIT is created in `load`, used by no one else, and only disposed in `Drop`;
// `&self` reads the Rust-side table only.
unsafe impl Send for LoadedObject {}
// SAFETY: as above.
unsafe impl Sync for LoadedObject {}

impl Drop for LoadedObject {
    fn drop(&mut self) {
        // SAFETY: created by `LLVMOrcCreateLLJIT`, disposed once; the code it holds is not
        // called after (the owner's promise, as for any compiled module).
        let e = unsafe { LLVMOrcDisposeLLJIT(self.jit) };
        let _ = take_error(e);
    }
}

fn take_error(e: LLVMErrorRef) -> Option<String> {
    if e.is_null() {
        return None;
    }
    // SAFETY: `e` is an error LLVM handed over; its message is consumed once.
    unsafe {
        let msg = LLVMGetErrorMessage(e);
        let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Some(text)
    }
}

impl LoadedObject {
    /// Links `object` (a relocatable object of module `name`) and resolves `functions`.
    /// Undefined symbols resolve to `runtime` (name, address) first, then to this process's
    /// exported symbols.
    pub(crate) fn load(
        name: &str,
        object: &[u8],
        functions: &[String],
        runtime: &[(&str, usize)],
    ) -> Result<LoadedObject, CpuError> {
        let fail = |stage: &str, message: String| CpuError::Jit {
            module: name.to_string(),
            message: format!("{stage}: {message}"),
        };
        let mut jit: LLVMOrcLLJITRef = std::ptr::null_mut();
        // SAFETY: the builder is consumed by `LLVMOrcCreateLLJIT`.
        let e = unsafe { LLVMOrcCreateLLJIT(&mut jit, LLVMOrcCreateLLJITBuilder()) };
        if let Some(m) = take_error(e) {
            return Err(fail("creating the JIT", m));
        }
        // From here `loaded` owns the JIT (disposed on every early return).
        let mut loaded = LoadedObject {
            jit,
            symbols: HashMap::new(),
        };
        // SAFETY: `jit` is live; the generator and the materialization unit become the
        // dylib's; the symbol names are interned by the JIT's pool.
        unsafe {
            let dylib = LLVMOrcLLJITGetMainJITDylib(jit);
            let mut process = std::ptr::null_mut();
            let e = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut process,
                LLVMOrcLLJITGetGlobalPrefix(jit),
                None,
                std::ptr::null_mut(),
            );
            if let Some(m) = take_error(e) {
                return Err(fail("looking up this process's symbols", m));
            }
            LLVMOrcJITDylibAddGenerator(dylib, process);
            if !runtime.is_empty() {
                let mut pairs = Vec::with_capacity(runtime.len());
                for (sym, addr) in runtime {
                    let c =
                        CString::new(*sym).map_err(|_| fail("runtime symbol", sym.to_string()))?;
                    pairs.push(LLVMOrcCSymbolMapPair {
                        Name: LLVMOrcLLJITMangleAndIntern(jit, c.as_ptr()),
                        Sym: LLVMJITEvaluatedSymbol {
                            Address: *addr as u64,
                            Flags: LLVMJITSymbolFlags {
                                GenericFlags: LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsExported as u8
                                    | LLVMJITSymbolGenericFlags::LLVMJITSymbolGenericFlagsCallable as u8,
                                TargetFlags: 0,
                            },
                        },
                    });
                }
                let unit = LLVMOrcAbsoluteSymbols(pairs.as_mut_ptr(), pairs.len());
                if let Some(m) = take_error(LLVMOrcJITDylibDefine(dylib, unit)) {
                    return Err(fail("defining the runtime helpers", m));
                }
            }
            let buf_name = CString::new(name).unwrap_or_default();
            let buffer = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast::<c_char>(),
                object.len(),
                buf_name.as_ptr(),
            );
            if let Some(m) = take_error(LLVMOrcLLJITAddObjectFile(jit, dylib, buffer)) {
                return Err(fail("adding the object", m));
            }
            for f in functions {
                let c = CString::new(f.as_str()).map_err(|_| fail("function name", f.clone()))?;
                let mut addr = 0u64;
                if let Some(m) = take_error(LLVMOrcLLJITLookup(jit, &mut addr, c.as_ptr())) {
                    return Err(fail(&format!("resolving `{f}`"), m));
                }
                loaded.symbols.insert(f.clone(), addr as usize);
            }
        }
        Ok(loaded)
    }

    /// The functions' addresses.
    pub(crate) fn symbols(&self) -> &HashMap<String, usize> {
        &self.symbols
    }
}
