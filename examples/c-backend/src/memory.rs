//! Host memory behind handles: 8-byte aligned, zeroed allocations, and the extern matmul that
//! runs on them.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use coil_kernel::{BackendError, BufferHandle, DType, ExternCall, StridedOperand};

#[derive(Default)]
struct Inner {
    next: u64,
    /// Each allocation as 8-byte words (so that every dtype is aligned), and its byte size.
    live: HashMap<u64, (Vec<u64>, usize)>,
}

/// The backend's memory.
#[derive(Default)]
pub(crate) struct Memory {
    inner: Mutex<Inner>,
}

fn runtime(msg: String) -> BackendError {
    BackendError::Runtime(msg)
}

fn bytes_of(words: &[u64], len: usize) -> &[u8] {
    // SAFETY: a u64 slice is readable as bytes; `len` is at most its byte length.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), len) }
}

fn bytes_of_mut(words: &mut [u64], len: usize) -> &mut [u8] {
    // SAFETY: as above, uniquely borrowed.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

impl Memory {
    fn lock(&self) -> Result<MutexGuard<'_, Inner>, BackendError> {
        self.inner
            .lock()
            .map_err(|_| runtime("the memory lock is poisoned (a run panicked)".into()))
    }

    pub(crate) fn alloc(&self, bytes: usize) -> Result<BufferHandle, BackendError> {
        let mut words = Vec::new();
        words
            .try_reserve_exact(bytes.div_ceil(8).max(1))
            .map_err(|_| runtime(format!("cannot allocate {bytes} bytes")))?;
        words.resize(bytes.div_ceil(8).max(1), 0);
        let mut m = self.lock()?;
        m.next += 1;
        let h = m.next;
        m.live.insert(h, (words, bytes));
        Ok(BufferHandle(h))
    }

    pub(crate) fn free(&self, buffer: BufferHandle) {
        if let Ok(mut m) = self.inner.lock() {
            m.live.remove(&buffer.0);
        }
    }

    pub(crate) fn write(&self, buffer: BufferHandle, bytes: &[u8]) -> Result<(), BackendError> {
        let mut m = self.lock()?;
        let (words, len) = m
            .live
            .get_mut(&buffer.0)
            .ok_or_else(|| runtime(format!("no buffer {buffer}")))?;
        if bytes.len() > *len {
            return Err(runtime(format!(
                "{} bytes do not fit {buffer} ({len})",
                bytes.len()
            )));
        }
        bytes_of_mut(words, bytes.len()).copy_from_slice(bytes);
        Ok(())
    }

    pub(crate) fn read(&self, buffer: BufferHandle, out: &mut [u8]) -> Result<(), BackendError> {
        let m = self.lock()?;
        let (words, len) = m
            .live
            .get(&buffer.0)
            .ok_or_else(|| runtime(format!("no buffer {buffer}")))?;
        if out.len() > *len {
            return Err(runtime(format!(
                "{buffer} holds {len} bytes, not {}",
                out.len()
            )));
        }
        out.copy_from_slice(bytes_of(words, out.len()));
        Ok(())
    }

    /// Calls `f` with the base pointers of `args`, holding the lock throughout.
    pub(crate) fn with_pointers<T>(
        &self,
        args: &[BufferHandle],
        f: impl FnOnce(&[*mut u8]) -> Result<T, BackendError>,
    ) -> Result<T, BackendError> {
        let mut m = self.lock()?;
        let mut ptrs = Vec::with_capacity(args.len());
        for h in args {
            let (words, _) = m
                .live
                .get_mut(&h.0)
                .ok_or_else(|| runtime(format!("no buffer {h}")))?;
            ptrs.push(words.as_mut_ptr().cast::<u8>());
        }
        f(&ptrs)
    }

    /// `out = a @ b`, 2-D or batched, on any strides; f32, f64, i32 and i64 (accumulated in
    /// f64 or i64).
    pub(crate) fn matmul(&self, call: &ExternCall) -> Result<(), BackendError> {
        let (a, b) = call.matmul_operands()?;
        let out = &call.out;
        let rank = a.sizes.len();
        if !(rank == 2 || rank == 3) || b.sizes.len() != rank || out.sizes.len() != rank {
            return Err(runtime(format!(
                "matmul of ranks {:?}",
                [a.sizes.len(), b.sizes.len()]
            )));
        }
        let d = rank - 2;
        let (batch, m, k, n) = (
            if rank == 3 { a.sizes[0] } else { 1 },
            a.sizes[d],
            a.sizes[d + 1],
            b.sizes[d + 1],
        );
        let at = |o: &StridedOperand, bb: usize, i: usize, j: usize| {
            let batch_stride = if rank == 3 { o.strides[0] } else { 0 };
            o.offset + bb * batch_stride + i * o.strides[d] + j * o.strides[d + 1]
        };
        let mut mem = self.lock()?;
        let get = |mem: &Inner, o: &StridedOperand| -> Result<Vec<f64>, BackendError> {
            let (words, len) = mem
                .live
                .get(&o.buffer.0)
                .ok_or_else(|| runtime(format!("no buffer {}", o.buffer)))?;
            decode(bytes_of(words, *len), o.dtype)
        };
        let (av, bv) = (get(&mem, a)?, get(&mem, b)?);
        let bias = call
            .matmul_bias()
            .map(|x| get(&mem, x).map(|v| (x, v)))
            .transpose()?;
        let (words, len) = mem
            .live
            .get_mut(&out.buffer.0)
            .ok_or_else(|| runtime(format!("no buffer {}", out.buffer)))?;
        let bytes = bytes_of_mut(words, *len);
        for bb in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let mut acc = match &bias {
                        Some((x, v)) => v.get(at(x, bb, i, j)).copied().ok_or_else(|| {
                            runtime("the addmm bias reaches past its buffer".into())
                        })?,
                        None => 0.0f64,
                    };
                    for p in 0..k {
                        let x = av.get(at(a, bb, i, p)).copied();
                        let y = bv.get(at(b, bb, p, j)).copied();
                        let (Some(x), Some(y)) = (x, y) else {
                            return Err(runtime("a matmul operand reaches past its buffer".into()));
                        };
                        acc += x * y;
                    }
                    encode(bytes, out.dtype, at(out, bb, i, j), acc)?;
                }
            }
        }
        Ok(())
    }
}

fn decode(bytes: &[u8], dtype: DType) -> Result<Vec<f64>, BackendError> {
    Ok(match dtype {
        DType::F32 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        DType::F64 => bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect(),
        DType::I32 => bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        DType::I64 => bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]) as f64)
            .collect(),
        other => {
            return Err(runtime(format!(
                "the C backend's matmul does not take {other}"
            )));
        }
    })
}

fn encode(bytes: &mut [u8], dtype: DType, i: usize, v: f64) -> Result<(), BackendError> {
    let n = dtype.itemsize();
    let slot = bytes
        .get_mut(i * n..(i + 1) * n)
        .ok_or_else(|| runtime("a matmul result reaches past its buffer".into()))?;
    match dtype {
        DType::F32 => slot.copy_from_slice(&(v as f32).to_le_bytes()),
        DType::F64 => slot.copy_from_slice(&v.to_le_bytes()),
        DType::I32 => slot.copy_from_slice(&(v as i32).to_le_bytes()),
        DType::I64 => slot.copy_from_slice(&(v as i64).to_le_bytes()),
        other => {
            return Err(runtime(format!(
                "the C backend's matmul does not give {other}"
            )));
        }
    }
    Ok(())
}
