//! The execution plan (Inductor's wrapper): which memory each buffer lives in, with freed
//! memory reused, and the order of kernel launches and library calls.

use std::collections::HashMap;
use std::fmt;

use coil_graph::DType;

/// A piece of memory the plan allocates once and reuses across runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotId(pub u32);

impl fmt::Display for SlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot{}", self.0)
    }
}

/// What a named buffer is to the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferRole {
    /// Graph input number `n`: copied in before the first step.
    Input(usize),
    /// Computed by a step; read by later steps only.
    Intermediate,
    /// Computed by a step and returned (must survive to the end).
    Output,
}

/// A buffer the plan places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedBuffer {
    /// Its name (`x`, `buf3`).
    pub name: String,
    /// Bytes of storage.
    pub bytes: usize,
    /// Element type.
    pub dtype: DType,
    /// Input, intermediate or output.
    pub role: BufferRole,
}

/// One step: a kernel launch or a library call, with the buffers it reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Launch kernel `kernel` with these buffers as its arguments.
    Kernel {
        /// Index into the compiled kernels.
        kernel: usize,
        /// Buffer names, in the kernel's argument order.
        args: Vec<String>,
        /// Which of `args` it writes.
        writes: Vec<String>,
    },
    /// A library matmul.
    Matmul {
        /// `mm` or `bmm`.
        op: &'static str,
        /// Left operand buffer.
        a: String,
        /// Right operand buffer.
        b: String,
        /// Result buffer.
        out: String,
    },
}

impl Step {
    fn reads(&self) -> Vec<&str> {
        match self {
            Step::Kernel { args, writes, .. } => args
                .iter()
                .filter(|a| !writes.contains(a))
                .map(String::as_str)
                .collect(),
            Step::Matmul { a, b, .. } => vec![a.as_str(), b.as_str()],
        }
    }

    fn writes(&self) -> Vec<&str> {
        match self {
            Step::Kernel { writes, .. } => writes.iter().map(String::as_str).collect(),
            Step::Matmul { out, .. } => vec![out.as_str()],
        }
    }
}

/// Where every buffer lives and when steps run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Bytes of each slot.
    pub slots: Vec<usize>,
    /// The slot of each buffer.
    pub placement: HashMap<String, SlotId>,
    /// Every buffer placed.
    pub buffers: Vec<PlannedBuffer>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl Plan {
    /// Places buffers: inputs first, each other buffer when first written, in a slot freed by a
    /// buffer whose last use is over (same or larger size, smallest first), or a new slot.
    /// Outputs and inputs are never freed.
    pub fn new(buffers: Vec<PlannedBuffer>, steps: Vec<Step>) -> Result<Plan, String> {
        let info: HashMap<&str, &PlannedBuffer> =
            buffers.iter().map(|b| (b.name.as_str(), b)).collect();
        let mut last_use: HashMap<&str, usize> = HashMap::new();
        for (i, s) in steps.iter().enumerate() {
            for n in s.reads().into_iter().chain(s.writes()) {
                if !info.contains_key(n) {
                    return Err(format!("step {i} uses the unknown buffer {n}"));
                }
                last_use.insert(n, i);
            }
        }
        let mut slots: Vec<usize> = Vec::new();
        let mut placement: HashMap<String, SlotId> = HashMap::new();
        let mut free: Vec<SlotId> = Vec::new();
        for b in buffers
            .iter()
            .filter(|b| matches!(b.role, BufferRole::Input(_)))
        {
            placement.insert(b.name.clone(), SlotId(slots.len() as u32));
            slots.push(b.bytes);
        }
        for (i, s) in steps.iter().enumerate() {
            for n in s.writes() {
                if placement.contains_key(n) {
                    continue;
                }
                let bytes = info[n].bytes;
                let best = free
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| slots[s.0 as usize] >= bytes)
                    .min_by_key(|(_, s)| slots[s.0 as usize])
                    .map(|(k, _)| k);
                let slot = match best {
                    Some(k) => free.swap_remove(k),
                    None => {
                        slots.push(bytes);
                        SlotId(slots.len() as u32 - 1)
                    }
                };
                placement.insert(n.to_string(), slot);
            }
            for n in s.reads().into_iter().chain(s.writes()) {
                let b = info[n];
                if last_use.get(n) == Some(&i) && b.role == BufferRole::Intermediate {
                    let slot = placement[n];
                    if !free.contains(&slot) {
                        free.push(slot);
                    }
                }
            }
        }
        for b in &buffers {
            if !placement.contains_key(&b.name) {
                return Err(format!("buffer {} is never written", b.name));
            }
        }
        Ok(Plan {
            slots,
            placement,
            buffers,
            steps,
        })
    }

    /// Total bytes allocated.
    pub fn total_bytes(&self) -> usize {
        self.slots.iter().sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buf(name: &str, bytes: usize, role: BufferRole) -> PlannedBuffer {
        PlannedBuffer {
            name: name.into(),
            bytes,
            dtype: DType::F32,
            role,
        }
    }

    fn kernel(k: usize, args: &[&str], writes: &[&str]) -> Step {
        Step::Kernel {
            kernel: k,
            args: args.iter().map(|s| s.to_string()).collect(),
            writes: writes.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn freed_buffers_are_reused_and_outputs_are_not() {
        let buffers = vec![
            buf("x", 64, BufferRole::Input(0)),
            buf("buf0", 64, BufferRole::Intermediate),
            buf("buf1", 64, BufferRole::Intermediate),
            buf("buf2", 32, BufferRole::Intermediate),
            buf("buf3", 64, BufferRole::Output),
        ];
        let steps = vec![
            kernel(0, &["x", "buf0"], &["buf0"]),
            kernel(1, &["buf0", "buf1"], &["buf1"]),
            // buf0 is dead: buf2 (smaller) takes its slot.
            kernel(2, &["buf1", "buf2"], &["buf2"]),
            kernel(3, &["buf2", "buf3"], &["buf3"]),
        ];
        let plan = Plan::new(buffers, steps).unwrap();
        assert_eq!(plan.placement["buf2"], plan.placement["buf0"]);
        // buf1 died at step 2 and buf3 (64 bytes) reuses it.
        assert_eq!(plan.placement["buf3"], plan.placement["buf1"]);
        assert_eq!(plan.slots.len(), 3);
        assert_ne!(plan.placement["x"], plan.placement["buf0"]);
    }

    #[test]
    fn unknown_or_unwritten_buffers_are_errors() {
        let b = vec![
            buf("x", 4, BufferRole::Input(0)),
            buf("buf0", 4, BufferRole::Output),
        ];
        assert!(Plan::new(b.clone(), vec![kernel(0, &["x", "nope"], &["nope"])]).is_err());
        assert!(Plan::new(b, vec![]).is_err());
    }
}
