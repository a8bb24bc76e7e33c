//! Launch configurations: grid and block sizes chosen from the problem size and the device's
//! capability flags.

use coil_ptx::GpuCaps;

/// A kernel launch's grid, block and dynamic shared memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid (x, y, z).
    pub grid: (u32, u32, u32),
    /// Threads per block (x, y, z).
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, in bytes (the builder's arrays are static: usually 0).
    pub shared_mem_bytes: u32,
}

impl LaunchConfig {
    /// A 1-D launch of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u32, threads: u32) -> LaunchConfig {
        LaunchConfig {
            grid: (blocks, 1, 1),
            block: (threads, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    /// For a grid-stride loop over `items` work items with `threads` per block: one item per
    /// thread up to as many blocks as the device keeps resident at once (full occupancy), never
    /// fewer than one block.
    pub fn grid_stride(items: u64, threads: u32, caps: &GpuCaps) -> LaunchConfig {
        let threads = threads.max(1);
        let needed = items.div_ceil(u64::from(threads)).max(1);
        let resident =
            u64::from(caps.sm_count.max(1)) * u64::from((caps.max_threads_per_sm / threads).max(1));
        LaunchConfig::linear(needed.min(resident) as u32, threads)
    }

    /// One block of `threads` per row (the row-reduction kernels loop over rows when the grid
    /// is smaller), capped at 2^31 - 1 blocks.
    pub fn per_row(rows: u64, threads: u32) -> LaunchConfig {
        LaunchConfig::linear(rows.clamp(1, (1 << 31) - 1) as u32, threads.max(1))
    }

    /// Threads per block, all dimensions multiplied.
    pub fn threads_per_block(&self) -> u64 {
        u64::from(self.block.0) * u64::from(self.block.1) * u64::from(self.block.2)
    }
}
