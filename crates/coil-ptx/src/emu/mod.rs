//! A reference interpreter for the PTX coil renders: parses a module's text, runs an entry
//! over a grid thread by thread (warp shuffles and block barriers synchronise the threads
//! that reach them), and checks every memory access against its buffer's bounds and its
//! alignment, as `compute-sanitizer` would. Slow (tens of millions of instructions a second)
//! and exact: its float arithmetic is IEEE, as the GPU's `.rn` instructions are, so kernels
//! can be checked bit for bit on machines without a GPU. [`crate::CudaBackend::emulated`]
//! runs whole models on it.
//!
//! It knows the instructions the translator and the math library emit (moves, conversions,
//! integer and float arithmetic, comparisons, global/shared/const/param memory including
//! 128-bit vectors, `shfl.sync` (bfly, up, down, idx), `bar.sync`, branches), not all of PTX.
//!
//! ```
//! use coil_ptx::{emu, kernels, math::MathFn, PtxTarget};
//! let k = kernels::elementwise("exp_f32", MathFn::Exp, true, PtxTarget::SM90)?;
//! let module = emu::parse(&k.to_string())?;
//! let mut mem = emu::Memory::new();
//! let x: Vec<u8> = [0.0f32, 1.0, -1.0, 2.0, 0.5].iter().flat_map(|v| v.to_le_bytes()).collect();
//! let (xa, ya) = (mem.alloc(20), mem.alloc(20));
//! mem.write(xa, &x)?;
//! emu::launch(&module, "exp_f32", 1, 256, &[xa, ya, 5], &mut mem, 1 << 24)?;
//! let mut y = [0u8; 20];
//! mem.read(ya, &mut y)?;
//! assert_eq!(f32::from_le_bytes(y[4..8].try_into().unwrap()), 1f32.exp());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod exec;
mod parse;

pub use exec::{Memory, launch};
pub use parse::{Entry, Module, parse};

/// What can go wrong emulating.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    /// The text is not PTX the emulator reads.
    #[error("PTX line {line}: {msg}")]
    Parse {
        /// 1-based line.
        line: usize,
        /// What was wrong.
        msg: String,
    },
    /// A kernel did something a GPU would fault on (or that is undefined).
    #[error("{entry}, block {block}: `{inst}`: {msg}")]
    Fault {
        /// The entry.
        entry: String,
        /// The block.
        block: u32,
        /// The instruction (and thread).
        inst: String,
        /// What went wrong.
        msg: String,
    },
    /// Threads wait at barriers or shuffles others never reach.
    #[error("deadlock: {0}")]
    Deadlock(String),
    /// More instructions ran than allowed.
    #[error("more than {0} instructions executed")]
    Budget(u64),
    /// A host-side misuse (bad address, wrong argument count).
    #[error("{0}")]
    Host(String),
}
