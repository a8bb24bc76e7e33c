//! The execution plan (Inductor's wrapper): which memory each buffer lives in, with freed
//! memory reused, the order of kernel launches and extern calls, and where each graph output
//! is read from.

use std::collections::HashMap;
use std::fmt;

use coil_graph::DType;
use coil_lower::{BufRef, ExternInput, ExternKind, OutputRef};

/// A piece of memory the plan allocates once and reuses across runs.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct SlotId(pub u32);

impl fmt::Display for SlotId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot{}", self.0)
    }
}

/// What a buffer is to the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BufferRole {
    /// Graph input number `n`: copied in before the first step.
    Input(usize),
    /// Computed by a step; read by later steps only.
    Intermediate,
    /// Computed by a step and returned (must survive to the end).
    Output,
    /// The index-check flags ([`BufRef::IndexChecks`]): zeroed when allocated, written by
    /// kernels that find an indirect index out of range, read (and zeroed again) by the
    /// runtime after a run; never freed.
    Checks,
}

/// A buffer the plan places.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedBuffer {
    /// The lowering's buffer (or graph input).
    pub buffer: BufRef,
    /// Its name, for messages and dumps (`x`, `buf3`).
    pub name: String,
    /// Bytes of storage.
    pub bytes: usize,
    /// Element type.
    pub dtype: DType,
    /// Input, intermediate or output.
    pub role: BufferRole,
}

/// An extern call of the plan: its kind, operands (realized buffers seen through strided
/// layouts, Inductor's `ReinterpretView`s) and its output buffer with the layout eager gives.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ExternStep {
    /// What it computes.
    pub kind: ExternKind,
    /// The operands, in the kind's order.
    pub inputs: Vec<ExternInput>,
    /// The buffer it writes, with its layout.
    pub out: ExternInput,
}

/// One step: a kernel launch or an extern call, with the buffers it reads and writes.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Step {
    /// Launch kernel `kernel` with these buffers as its arguments.
    Kernel {
        /// Index into the program's kernels (and the backend's compiled kernels).
        kernel: usize,
        /// Buffers, in the kernel's argument order.
        args: Vec<BufRef>,
        /// Which of `args` it writes.
        writes: Vec<BufRef>,
    },
    /// An extern call.
    Extern(ExternStep),
}

impl Step {
    /// The buffers the step reads (and does not write).
    pub fn reads(&self) -> Vec<BufRef> {
        match self {
            Step::Kernel { args, writes, .. } => args
                .iter()
                .filter(|a| !writes.contains(a))
                .copied()
                .collect(),
            Step::Extern(e) => e.inputs.iter().map(|i| i.buffer).collect(),
        }
    }

    /// The buffers the step writes.
    pub fn writes(&self) -> Vec<BufRef> {
        match self {
            Step::Kernel { writes, .. } => writes.clone(),
            Step::Extern(e) => vec![e.out.buffer],
        }
    }
}

/// Where every buffer lives, when steps run, and where outputs come from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Plan {
    /// Bytes of each slot.
    pub slots: Vec<usize>,
    /// The slot of each buffer.
    #[serde(with = "pairs")]
    pub placement: HashMap<BufRef, SlotId>,
    /// Every buffer placed.
    pub buffers: Vec<PlannedBuffer>,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The graph's outputs: a buffer or input, and the strided view the graph returns.
    pub outputs: Vec<OutputRef>,
}

impl Plan {
    /// Places buffers: inputs (and the index-check flags) first, each other buffer when first
    /// written, in a slot freed by a buffer whose last use is over (same or larger size,
    /// smallest first; for an output, only of exactly its size, and never for an output the
    /// size of an input: a caller may give it that input's memory, the new value of a KV cache
    /// written in place, which an earlier buffer in its slot would overwrite), or a new slot.
    /// Outputs and inputs are never freed. An error names a step that uses an unknown buffer
    /// or a buffer no step writes (a bug of whoever made the steps).
    pub fn new(
        buffers: Vec<PlannedBuffer>,
        steps: Vec<Step>,
        outputs: Vec<OutputRef>,
    ) -> Result<Plan, String> {
        let info: HashMap<BufRef, &PlannedBuffer> = buffers.iter().map(|b| (b.buffer, b)).collect();
        let mut last_use: HashMap<BufRef, usize> = HashMap::new();
        for (i, s) in steps.iter().enumerate() {
            for n in s.reads().into_iter().chain(s.writes()) {
                if !info.contains_key(&n) {
                    return Err(format!(
                        "step {i} uses a buffer the plan does not know ({n:?})"
                    ));
                }
                last_use.insert(n, i);
            }
        }
        let mut slots: Vec<usize> = Vec::new();
        let mut placement: HashMap<BufRef, SlotId> = HashMap::new();
        let mut free: Vec<SlotId> = Vec::new();
        let input_bytes: std::collections::HashSet<usize> = buffers
            .iter()
            .filter(|b| matches!(b.role, BufferRole::Input(_)))
            .map(|b| b.bytes)
            .collect();
        // Inputs, and the index-check flags (zeroed once, so never in a shared slot).
        for b in buffers
            .iter()
            .filter(|b| matches!(b.role, BufferRole::Input(_) | BufferRole::Checks))
        {
            placement.insert(b.buffer, SlotId(slots.len() as u32));
            slots.push(b.bytes);
        }
        for (i, s) in steps.iter().enumerate() {
            // A step may read an empty buffer no step writes (the kernel of a zero-size result
            // is dropped): it gets a slot of its own, of 0 bytes. Anything else read before it
            // is written is a bug of whoever made the steps.
            for n in s.reads() {
                if let std::collections::hash_map::Entry::Vacant(e) = placement.entry(n) {
                    let b = info[&n];
                    if b.bytes > 0 {
                        return Err(format!(
                            "step {i} reads {} before any step writes it",
                            b.name
                        ));
                    }
                    e.insert(SlotId(slots.len() as u32));
                    slots.push(0);
                }
            }
            for n in s.writes() {
                if placement.contains_key(&n) {
                    continue;
                }
                let bytes = info[&n].bytes;
                // An output takes a freed slot only of exactly its size, so that its slot is
                // its own extent (a caller's tensor can then stand in for it).
                let output = info[&n].role == BufferRole::Output;
                let own_slot = output && input_bytes.contains(&bytes);
                let best = free
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| {
                        let size = slots[s.0 as usize];
                        size >= bytes && (!output || size == bytes) && !own_slot
                    })
                    .min_by_key(|(_, s)| slots[s.0 as usize])
                    .map(|(k, _)| k);
                let slot = match best {
                    Some(k) => free.swap_remove(k),
                    None => {
                        slots.push(bytes);
                        SlotId(slots.len() as u32 - 1)
                    }
                };
                placement.insert(n, slot);
            }
            for n in s.reads().into_iter().chain(s.writes()) {
                let b = info[&n];
                if last_use.get(&n) == Some(&i) && b.role == BufferRole::Intermediate {
                    let slot = placement[&n];
                    if !free.contains(&slot) {
                        free.push(slot);
                    }
                }
            }
        }
        for b in &buffers {
            if let std::collections::hash_map::Entry::Vacant(e) = placement.entry(b.buffer) {
                if b.bytes > 0 {
                    return Err(format!("buffer {} is never written", b.name));
                }
                // An empty output no step writes (its kernel has nothing to do).
                e.insert(SlotId(slots.len() as u32));
                slots.push(0);
            }
        }
        for o in &outputs {
            if o.layout.storage_len() > 0 && !placement.contains_key(&o.buffer) {
                return Err(format!(
                    "an output reads a buffer the plan does not place ({:?})",
                    o.buffer
                ));
            }
        }
        Ok(Plan {
            slots,
            placement,
            buffers,
            steps,
            outputs,
        })
    }

    /// Total bytes allocated.
    pub fn total_bytes(&self) -> usize {
        self.slots.iter().sum()
    }

    /// The name of a placed buffer, for messages.
    pub fn name(&self, b: BufRef) -> String {
        self.buffers
            .iter()
            .find(|p| p.buffer == b)
            .map_or_else(|| format!("{b:?}"), |p| p.name.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coil_lower::{BufferId, FixedLayout, Idx, InputId};

    fn b(n: usize) -> BufRef {
        BufRef::Buffer(BufferId::new(n))
    }

    fn x() -> BufRef {
        BufRef::Input(InputId::new(0))
    }

    fn buf(buffer: BufRef, bytes: usize, role: BufferRole) -> PlannedBuffer {
        PlannedBuffer {
            buffer,
            name: format!("{buffer:?}"),
            bytes,
            dtype: DType::F32,
            role,
        }
    }

    fn kernel(k: usize, args: &[BufRef], writes: &[BufRef]) -> Step {
        Step::Kernel {
            kernel: k,
            args: args.to_vec(),
            writes: writes.to_vec(),
        }
    }

    fn output(buffer: BufRef) -> OutputRef {
        OutputRef {
            buffer,
            layout: FixedLayout::contiguous(DType::F32, vec![16]),
        }
    }

    #[test]
    fn freed_buffers_are_reused_and_outputs_are_not() {
        let buffers = vec![
            buf(x(), 48, BufferRole::Input(0)),
            buf(b(0), 64, BufferRole::Intermediate),
            buf(b(1), 64, BufferRole::Intermediate),
            buf(b(2), 32, BufferRole::Intermediate),
            buf(b(3), 64, BufferRole::Output),
        ];
        let steps = vec![
            kernel(0, &[x(), b(0)], &[b(0)]),
            kernel(1, &[b(0), b(1)], &[b(1)]),
            // buf0 is dead: buf2 (smaller) takes its slot.
            kernel(2, &[b(1), b(2)], &[b(2)]),
            kernel(3, &[b(2), b(3)], &[b(3)]),
        ];
        let plan = Plan::new(buffers, steps, vec![output(b(3))]).unwrap();
        assert_eq!(plan.placement[&b(2)], plan.placement[&b(0)]);
        // buf1 died at step 2 and buf3 (64 bytes) reuses it.
        assert_eq!(plan.placement[&b(3)], plan.placement[&b(1)]);
        assert_eq!(plan.slots.len(), 3);
        assert_ne!(plan.placement[&x()], plan.placement[&b(0)]);
    }

    #[test]
    fn an_output_the_size_of_an_input_takes_no_freed_slot() {
        // The new value of a KV cache: a caller may give it the cache's own memory, which an
        // earlier buffer of its slot would overwrite before the copy reads the cache.
        let buffers = vec![
            buf(x(), 64, BufferRole::Input(0)),
            buf(b(0), 64, BufferRole::Intermediate),
            buf(b(2), 32, BufferRole::Intermediate),
            buf(b(1), 64, BufferRole::Output),
        ];
        let steps = vec![
            kernel(0, &[x(), b(0)], &[b(0)]),
            // buf0 dies here: a free slot of exactly the output's size.
            kernel(1, &[b(0), b(2)], &[b(2)]),
            kernel(2, &[x(), b(2), b(1)], &[b(1)]),
        ];
        let plan = Plan::new(buffers, steps, vec![output(b(1))]).unwrap();
        assert_ne!(plan.placement[&b(1)], plan.placement[&b(0)]);
        assert_eq!(plan.slots.len(), 4);
    }

    #[test]
    fn unknown_or_unwritten_buffers_are_errors() {
        let bufs = vec![
            buf(x(), 4, BufferRole::Input(0)),
            buf(b(0), 4, BufferRole::Output),
        ];
        let unknown = Plan::new(bufs.clone(), vec![kernel(0, &[x(), b(7)], &[b(7)])], vec![]);
        assert!(unknown.unwrap_err().contains("does not know"));
        let unwritten = Plan::new(bufs.clone(), vec![], vec![]);
        assert!(unwritten.unwrap_err().contains("never written"));
        let unplaced = Plan::new(
            bufs,
            vec![kernel(0, &[x(), b(0)], &[b(0)])],
            vec![output(b(5))],
        );
        assert!(unplaced.unwrap_err().contains("output"));
    }
}

/// A map as a list of pairs (its keys are not strings, so JSON cannot key an object by them).
mod pairs {
    use std::collections::HashMap;
    use std::hash::Hash;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub(super) fn serialize<K, V, S>(map: &HashMap<K, V>, s: S) -> Result<S::Ok, S::Error>
    where
        K: Serialize + Ord,
        V: Serialize,
        S: Serializer,
    {
        let mut pairs: Vec<(&K, &V)> = map.iter().collect();
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        pairs.serialize(s)
    }

    pub(super) fn deserialize<'de, K, V, D>(d: D) -> Result<HashMap<K, V>, D::Error>
    where
        K: Deserialize<'de> + Eq + Hash,
        V: Deserialize<'de>,
        D: Deserializer<'de>,
    {
        Ok(Vec::<(K, V)>::deserialize(d)?.into_iter().collect())
    }
}
