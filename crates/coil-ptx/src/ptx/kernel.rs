//! A finished kernel ([`PtxKernel`]) and a module of kernels ([`PtxModule`]): their PTX text.

use std::fmt;

use super::operand::{Param, Ty};
use crate::PtxError;
use crate::PtxTarget;

/// A module-scope constant table (`.const .align 8 .b64 name[N] = {...}`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct ConstTable {
    pub(super) name: String,
    pub(super) ty: Ty,
    pub(super) values: Vec<u64>,
}

/// A rendered, verified kernel. `Display` prints a complete PTX module (header, constant
/// tables, the `.entry`), ready for `ptxas` or the driver.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    pub(super) name: String,
    pub(super) target: PtxTarget,
    pub(super) params: Vec<Param>,
    pub(super) shared_bytes: u32,
    pub(super) max_threads: Option<u32>,
    pub(super) tables: Vec<ConstTable>,
    pub(super) entry: String,
}

impl PtxKernel {
    /// The entry's name (what the driver looks up).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The target it was rendered for.
    pub fn target(&self) -> PtxTarget {
        self.target
    }

    /// The parameters, in order: what a launch must pass.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// Static shared memory per block, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.shared_bytes
    }

    /// The `.maxntid` bound, if declared: launches may not use more threads per block.
    pub fn max_threads_per_block(&self) -> Option<u32> {
        self.max_threads
    }

    /// The `.entry` alone (no module header).
    pub fn entry_text(&self) -> &str {
        &self.entry
    }
}

fn render_tables<'a>(
    f: &mut fmt::Formatter<'_>,
    tables: impl Iterator<Item = &'a ConstTable>,
) -> fmt::Result {
    for t in tables {
        write!(
            f,
            ".const .align {} .{} {}[{}] = {{",
            t.ty.bits() / 8,
            t.ty,
            t.name,
            t.values.len()
        )?;
        for (i, v) in t.values.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            if t.ty.bits() == 64 {
                write!(f, "0x{v:016X}")?;
            } else {
                write!(f, "0x{v:08X}")?;
            }
        }
        f.write_str("};\n")?;
    }
    Ok(())
}

impl fmt::Display for PtxKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.target.header())?;
        f.write_str("\n")?;
        if !self.tables.is_empty() {
            render_tables(f, self.tables.iter())?;
            f.write_str("\n")?;
        }
        f.write_str(&self.entry)
    }
}

/// Several kernels in one PTX module (one header, shared constant tables), loaded with one
/// driver call.
#[derive(Clone, Debug)]
pub struct PtxModule {
    target: PtxTarget,
    kernels: Vec<PtxKernel>,
}

impl PtxModule {
    /// An empty module for `target`.
    pub fn new(target: PtxTarget) -> PtxModule {
        PtxModule {
            target,
            kernels: Vec::new(),
        }
    }

    /// Adds a kernel; it must have been rendered for this module's target and have a new name.
    pub fn push(&mut self, kernel: PtxKernel) -> Result<(), PtxError> {
        if kernel.target != self.target {
            return Err(PtxError {
                kernel: kernel.name,
                reason: format!(
                    "rendered for {} but the module targets {}",
                    kernel.target, self.target
                ),
            });
        }
        if self.kernels.iter().any(|k| k.name == kernel.name) {
            return Err(PtxError {
                kernel: kernel.name,
                reason: "a kernel of this name is already in the module".into(),
            });
        }
        self.kernels.push(kernel);
        Ok(())
    }

    /// The kernels, in order.
    pub fn kernels(&self) -> &[PtxKernel] {
        &self.kernels
    }

    /// The target.
    pub fn target(&self) -> PtxTarget {
        self.target
    }
}

impl fmt::Display for PtxModule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.target.header())?;
        f.write_str("\n")?;
        let mut seen: Vec<&str> = Vec::new();
        let tables: Vec<&ConstTable> = self
            .kernels
            .iter()
            .flat_map(|k| k.tables.iter())
            .filter(|t| {
                if seen.contains(&t.name.as_str()) {
                    false
                } else {
                    seen.push(&t.name);
                    true
                }
            })
            .collect();
        if !tables.is_empty() {
            render_tables(f, tables.into_iter())?;
            f.write_str("\n")?;
        }
        for (i, k) in self.kernels.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&k.entry)?;
        }
        Ok(())
    }
}
