//! What the PTX renderer may assume about a GPU: the PTX target and ISA version, and the
//! capability flags (vector width, warp size, shared memory, SM count) as plain data.

use std::fmt;

/// A PTX target: the `sm_XY` architecture and the PTX ISA version written in `.version`.
///
/// The ISA defaults to 8.0 (CUDA 12.0), which every CUDA 12 and 13 driver JIT-compiles and which
/// is enough for `sm_90` (it needs 7.8). Newer architectures raise it to the first ISA that
/// knows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PtxTarget {
    /// Compute capability `(major, minor)`: `(9, 0)` renders `.target sm_90`.
    pub sm: (u32, u32),
    /// PTX ISA `(major, minor)`: `(8, 0)` renders `.version 8.0`.
    pub isa: (u32, u32),
}

/// The ISA every target gets at least: PTX 8.0 ships with CUDA 12.0.
const BASELINE_ISA: (u32, u32) = (8, 0);

impl PtxTarget {
    /// `sm_90` with PTX ISA 8.0: the H100/H200 default.
    pub const SM90: PtxTarget = PtxTarget {
        sm: (9, 0),
        isa: BASELINE_ISA,
    };

    /// The target for a device of compute capability `major.minor`, with the lowest PTX ISA
    /// (at least 8.0) that knows that architecture.
    pub fn for_compute_capability(major: u32, minor: u32) -> PtxTarget {
        let needed = match (major, minor) {
            (0..=9, _) => BASELINE_ISA,
            (10, 0) | (10, 1) => (8, 6),
            (10, 3) => (8, 8),
            (12, 0) => (8, 7),
            (12, 1) => (8, 8),
            // sm_110 and anything newer than this table: the ISA of CUDA 13.0.
            _ => (9, 0),
        };
        PtxTarget {
            sm: (major, minor),
            isa: needed.max(BASELINE_ISA),
        }
    }

    /// The architecture name, e.g. `sm_90` (what `ptxas -arch` takes).
    pub fn sm_name(&self) -> String {
        format!("sm_{}{}", self.sm.0, self.sm.1)
    }

    /// The three header lines of a PTX module (`.version`, `.target`, `.address_size 64`).
    pub fn header(&self) -> String {
        format!(
            ".version {}.{}\n.target {}\n.address_size 64\n",
            self.isa.0,
            self.isa.1,
            self.sm_name()
        )
    }
}

impl Default for PtxTarget {
    fn default() -> Self {
        PtxTarget::SM90
    }
}

impl fmt::Display for PtxTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (PTX ISA {}.{})",
            self.sm_name(),
            self.isa.0,
            self.isa.1
        )
    }
}

/// The capability flags a kernel generator reads, as plain data (tinygrad's renderer flags).
/// [`crate::Device::caps`] fills them from a real device; [`GpuCaps::h200`] is the default
/// used to render without one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuCaps {
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors: sizes grids (a few waves of blocks per SM).
    pub sm_count: u32,
    /// Threads per warp (32 on every NVIDIA GPU so far).
    pub warp_size: u32,
    /// Most threads in one block.
    pub max_threads_per_block: u32,
    /// Most resident threads per SM (2048 on sm_80/sm_90).
    pub max_threads_per_sm: u32,
    /// Statically declared shared memory one block may use, in bytes (48 KiB without opt-in).
    pub shared_mem_per_block: u32,
    /// The widest global load or store in bytes: 16 (`ld.global.v4.f32`).
    pub vector_bytes: u32,
    /// Bytes of L2 cache (50 MiB on an H100/H200): what a kernel may still find there of what
    /// the kernel before it read.
    pub l2_bytes: u64,
}

impl GpuCaps {
    /// An NVIDIA H200 (sm_90, 132 SMs): what coil renders for when no device is open.
    pub const fn h200() -> GpuCaps {
        GpuCaps {
            compute_capability: (9, 0),
            sm_count: 132,
            warp_size: 32,
            max_threads_per_block: 1024,
            max_threads_per_sm: 2048,
            shared_mem_per_block: 48 * 1024,
            vector_bytes: 16,
            l2_bytes: 50 << 20,
        }
    }

    /// The PTX target matching [`GpuCaps::compute_capability`].
    pub fn target(&self) -> PtxTarget {
        PtxTarget::for_compute_capability(self.compute_capability.0, self.compute_capability.1)
    }
}

impl Default for GpuCaps {
    fn default() -> Self {
        GpuCaps::h200()
    }
}
