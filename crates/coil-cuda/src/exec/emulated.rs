//! coil-ptx's PTX emulator as an executor: the PTX rendered for an H200 runs on the host with
//! every access bounds- and alignment-checked (exact and slow: for tests on machines without a
//! GPU). Memory is emulator memory behind handles; matmuls are a plain f32 loop (what cuBLAS
//! `sgemm` computes, up to the order of the sums).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use coil_codegen::{BackendError, BufferHandle, Kernel};
use coil_graph::DType;

use super::{Executor, LoadOptions, LoadedModule, dead, too_small};
use crate::blas::{Gemm, MatLayout};
use crate::emu;
use crate::error::CudaError;
use crate::ptx::PtxModule;
use crate::render::{LaunchArg, RenderedKernel};

/// Instructions one emulated launch may execute before it is stopped.
const EMULATOR_BUDGET: u64 = 20_000_000_000;

fn emu_err(e: emu::EmuError) -> BackendError {
    BackendError::Runtime(format!("PTX emulator: {e}"))
}

#[derive(Default)]
struct Memory {
    next: u64,
    emu: emu::Memory,
    /// Each handle's emulator address and bytes.
    buffers: HashMap<u64, (u64, usize)>,
}

impl Memory {
    fn buffer(&self, h: BufferHandle) -> Result<(u64, usize), BackendError> {
        self.buffers.get(&h.0).copied().ok_or_else(|| dead(h))
    }

    /// A buffer's elements of `dtype` (f32, f16 or bf16), widened to f32.
    fn read_floats(&mut self, h: BufferHandle, dtype: DType) -> Result<Vec<f32>, BackendError> {
        let (addr, len) = self.buffer(h)?;
        let mut bytes = vec![0u8; len];
        self.emu.read(addr, &mut bytes).map_err(emu_err)?;
        Ok(match dtype {
            DType::F16 => bytes
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            DType::BF16 => bytes
                .chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            _ => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        })
    }
}

/// The executor of [`crate::CudaBackend::emulated`].
#[derive(Default)]
pub(crate) struct Emulated {
    memory: Arc<Mutex<Memory>>,
}

fn lock(m: &Mutex<Memory>) -> MutexGuard<'_, Memory> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A module parsed by the emulator, with each kernel's scratch addresses.
struct EmulatedModule {
    module: emu::Module,
    scratch: Vec<Vec<u64>>,
    memory: Arc<Mutex<Memory>>,
}

impl Drop for EmulatedModule {
    fn drop(&mut self) {
        let mut mem = lock(&self.memory);
        for addr in self.scratch.iter().flatten() {
            mem.emu.free(*addr);
        }
    }
}

impl LoadedModule for EmulatedModule {
    fn launch(
        &self,
        index: usize,
        main: &RenderedKernel,
        args: &[BufferHandle],
    ) -> Result<(), BackendError> {
        let mut mem = lock(&self.memory);
        let mut addrs = Vec::with_capacity(args.len());
        for (&h, &need) in args.iter().zip(&main.arg_bytes) {
            let (addr, len) = mem.buffer(h)?;
            if len < need {
                return Err(too_small(&main.name, h, len, need));
            }
            addrs.push(addr);
        }
        let scratch = self.scratch.get(index).map_or(&[][..], Vec::as_slice);
        for launch in &main.launches {
            let params: Vec<u64> = launch
                .args
                .iter()
                .map(|a| match a {
                    LaunchArg::Arg(i) => addrs.get(*i).copied().unwrap_or(0),
                    LaunchArg::Scratch(j) => scratch.get(*j).copied().unwrap_or(0),
                    // The emulator's parameters are 64-bit words: an `.s64` as its bits.
                    LaunchArg::Size(j) => main.sizes.get(*j).map_or(0, |&v| v as u64),
                })
                .collect();
            emu::launch(
                &self.module,
                launch.kernel.name(),
                launch.config.grid.0,
                launch.config.block.0,
                &params,
                &mut mem.emu,
                EMULATOR_BUDGET,
            )
            .map_err(emu_err)?;
        }
        Ok(())
    }
}

impl Executor for Emulated {
    fn load(
        &self,
        _module: &PtxModule,
        source: &str,
        rendered: &[RenderedKernel],
        _kernels: &[&Kernel],
        _options: &LoadOptions<'_>,
    ) -> Result<Box<dyn LoadedModule>, CudaError> {
        let module = emu::parse(source).map_err(|e| {
            CudaError::Ptx(coil_ptx::PtxError {
                kernel: "<module>".into(),
                reason: e.to_string(),
            })
        })?;
        let mut mem = lock(&self.memory);
        let scratch = rendered
            .iter()
            .map(|r| r.scratch_bytes.iter().map(|&b| mem.emu.alloc(b)).collect())
            .collect();
        Ok(Box::new(EmulatedModule {
            module,
            scratch,
            memory: Arc::clone(&self.memory),
        }))
    }

    fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let mut mem = lock(&self.memory);
        mem.next += 1;
        let h = mem.next;
        let addr = mem.emu.alloc(bytes);
        mem.buffers.insert(h, (addr, bytes));
        Ok(BufferHandle(h))
    }

    fn free(&self, buffer: BufferHandle) {
        let mut mem = lock(&self.memory);
        if let Some((addr, _)) = mem.buffers.remove(&buffer.0) {
            mem.emu.free(addr);
        }
    }

    fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut mem = lock(&self.memory);
        let (addr, _) = mem.buffer(buffer)?;
        mem.emu.write(addr, bytes).map_err(emu_err)
    }

    fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let mut mem = lock(&self.memory);
        let (addr, _) = mem.buffer(buffer)?;
        mem.emu.read(addr, out).map_err(emu_err)
    }

    fn sgemm(
        &self,
        gemm: Gemm,
        a: (BufferHandle, MatLayout),
        b: (BufferHandle, MatLayout),
        c: (BufferHandle, MatLayout),
    ) -> Result<(), BackendError> {
        self.gemm(gemm, a, b, c, None)
    }

    /// As cuBLASLt's bias epilogue: the bias row added to every row of the product.
    fn sgemm_bias(
        &self,
        gemm: Gemm,
        a: (BufferHandle, MatLayout),
        b: (BufferHandle, MatLayout),
        c: (BufferHandle, MatLayout),
        bias: (BufferHandle, usize),
    ) -> Result<bool, BackendError> {
        if gemm.batch != 1 {
            return Ok(false);
        }
        self.gemm(gemm, a, b, c, Some(bias)).map(|()| true)
    }

    fn synchronize(&self) -> Result<(), BackendError> {
        Ok(())
    }
}

impl Emulated {
    /// `c = alpha a @ b + beta c (+ the bias row)` in f32, one rounding into 16-bit outputs.
    fn gemm(
        &self,
        gemm: Gemm,
        (a, la): (BufferHandle, MatLayout),
        (b, lb): (BufferHandle, MatLayout),
        (c, lc): (BufferHandle, MatLayout),
        bias: Option<(BufferHandle, usize)>,
    ) -> Result<(), BackendError> {
        let Gemm {
            dtype,
            batch,
            m,
            n,
            k,
            alpha,
            beta,
        } = gemm;
        let mut mem = lock(&self.memory);
        let (av, bv, mut cv) = (
            mem.read_floats(a, dtype)?,
            mem.read_floats(b, dtype)?,
            mem.read_floats(c, dtype)?,
        );
        let bias = match bias {
            Some((h, offset)) => {
                let v = mem.read_floats(h, dtype)?;
                if v.len() < offset + n {
                    return Err(BackendError::Runtime(format!(
                        "a bias of {n} values at element {offset} overruns its {} elements",
                        v.len()
                    )));
                }
                Some(v[offset..offset + n].to_vec())
            }
            None => None,
        };
        let at = |l: &MatLayout, v: &[f32], bi: usize, i: usize, j: usize| -> f32 {
            let (r, c) = if l.transposed { (j, i) } else { (i, j) };
            v.get(l.offset + bi * l.batch_stride + r * l.row_stride + c)
                .copied()
                .unwrap_or(f32::NAN)
        };
        for bi in 0..batch {
            // Row-major A and B^T, then dot products (cache-friendly).
            let a: Vec<f32> = (0..m * k).map(|x| at(&la, &av, bi, x / k, x % k)).collect();
            let bt: Vec<f32> = (0..n * k).map(|x| at(&lb, &bv, bi, x % k, x / k)).collect();
            for i in 0..m {
                let row = &a[i * k..(i + 1) * k];
                for j in 0..n {
                    let col = &bt[j * k..(j + 1) * k];
                    let mut acc: f32 = row.iter().zip(col).map(|(x, y)| x * y).sum();
                    acc *= alpha;
                    if let Some(bias) = &bias {
                        acc += bias[j];
                    }
                    let o = lc.offset + bi * lc.batch_stride + i * lc.row_stride + j;
                    if let Some(slot) = cv.get_mut(o) {
                        *slot = if beta == 0.0 { acc } else { acc + beta * *slot };
                    }
                }
            }
        }
        let (addr, _) = mem.buffer(c)?;
        // One rounding per element into 16-bit outputs, as cublasGemmEx with f32 compute.
        let bytes: Vec<u8> = match dtype {
            DType::F16 => cv
                .iter()
                .flat_map(|&x| half::f16::from_f32(x).to_le_bytes())
                .collect(),
            DType::BF16 => cv
                .iter()
                .flat_map(|&x| half::bf16::from_f32(x).to_le_bytes())
                .collect(),
            _ => cv.iter().flat_map(|x| x.to_le_bytes()).collect(),
        };
        mem.emu.write(addr, &bytes).map_err(emu_err)
    }
}
