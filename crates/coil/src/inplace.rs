//! Which graph outputs may be written straight into a graph input's memory: the new value of
//! an input the graph mutates (an optimizer's parameters and state, batch norm's running
//! statistics, a KV cache), so that the caller's write-back (`input.copy_(output)`) has
//! nothing left to copy. Inductor decides the same on its buffers (`reinplace_inplaceable_ops`
//! and its buffer reuse); coil decides on the plan, after fusion, where it knows which step
//! writes what and in which order.
//!
//! An output's memory is its plan slot, which earlier buffers may share. Putting the input's
//! memory there is safe when no step reads the input after the slot's first write, or when
//! the only such step is the pointwise kernel that writes the output and reads the input at
//! the very element it writes (each element read, then overwritten, by the same lane).

use coil_codegen::{BufferRole, KExpr, Kernel, KernelKind, Plan, SlotId, Step, StoreMode};
use coil_lower::BufRef;

/// Whether output `output` may be written into input `input`'s memory (`input_bytes` long,
/// contiguous, of the output's dtype) during a run in which the output is lent its own slot.
pub(crate) fn output_may_alias_input(
    plan: &Plan,
    kernels: &[Kernel],
    output: usize,
    input: usize,
    input_bytes: usize,
) -> bool {
    let Some(o) = plan.outputs.get(output) else {
        return false;
    };
    if !matches!(o.buffer, BufRef::Buffer(_))
        || o.layout.offset != 0
        || !coil_graph::is_contiguous(&o.layout.sizes, &o.layout.strides)
    {
        return false;
    }
    let Some(&slot) = plan.placement.get(&o.buffer) else {
        return false;
    };
    if plan.slots.get(slot.0 as usize) != Some(&input_bytes) || input_bytes == 0 {
        return false;
    }
    // Another output in the same slot would be written into the input too.
    if plan
        .outputs
        .iter()
        .enumerate()
        .any(|(j, p)| j != output && plan.placement.get(&p.buffer) == Some(&slot))
    {
        return false;
    }
    let in_slot: Vec<BufRef> = plan
        .placement
        .iter()
        .filter(|(_, s)| **s == slot)
        .map(|(b, _)| *b)
        .collect();
    let Some(first_write) = first_write_into(plan, slot) else {
        return false;
    };
    let input_ref = input_buffer(plan, input);
    // An output that reads the input itself (the input returned, or a view of it) must see
    // its old value, which writing in place would overwrite.
    if input_ref.is_some_and(|r| plan.outputs.iter().any(|p| p.buffer == r)) {
        return false;
    }
    let last_read = input_ref.and_then(|r| plan.steps.iter().rposition(|s| s.reads().contains(&r)));
    match (last_read, input_ref) {
        (None, _) | (_, None) => true,
        (Some(r), _) if r < first_write => true,
        (Some(r), Some(input_ref)) if r == first_write => reads_each_element_before_writing_it(
            &plan.steps[r],
            kernels,
            input_ref,
            o.buffer,
            &in_slot,
        ),
        _ => false,
    }
}

/// Whether `step` is a pointwise kernel whose only write into the output's slot is `out`, and
/// which loads `input` only at the index where it stores `out` (plain stores, elements of one
/// size, no indirect index).
fn reads_each_element_before_writing_it(
    step: &Step,
    kernels: &[Kernel],
    input: BufRef,
    out: BufRef,
    in_slot: &[BufRef],
) -> bool {
    let Step::Kernel {
        kernel,
        args,
        writes,
    } = step
    else {
        return false;
    };
    let Some(k) = kernels.get(*kernel) else {
        return false;
    };
    if k.kind != KernelKind::Pointwise
        || writes.iter().filter(|w| in_slot.contains(w)).count() != 1
        || !writes.contains(&out)
    {
        return false;
    }
    let position = |b: BufRef| args.iter().position(|a| *a == b);
    let (Some(a_in), Some(a_out)) = (position(input), position(out)) else {
        return false;
    };
    if args.iter().filter(|a| **a == input).count() != 1
        || k.args[a_in].dtype.itemsize() != k.args[a_out].dtype.itemsize()
    {
        return false;
    }
    let stores: Vec<_> = k
        .stages
        .iter()
        .flat_map(|s| &s.stores)
        .filter(|st| st.arg.index() == a_out)
        .collect();
    let Some(first) = stores.first() else {
        return false;
    };
    if stores
        .iter()
        .any(|st| st.mode != StoreMode::Set || st.index != first.index)
        || !first.index.indirect_nodes().is_empty()
    {
        return false;
    }
    k.values.iter().all(|(e, _)| match e {
        KExpr::Load { arg, index, .. } if arg.index() == a_in => *index == first.index,
        _ => true,
    })
}

/// For each step of `plan`, the `(source, destination)` buffers when the step is a kernel
/// that only copies one buffer into another, element for element at the same index (the copy
/// of `self` a scatter starts with: `index_put` on a KV cache, say). When the caller gives the
/// destination the source's own memory (an output written into the input it is the new value
/// of), such a copy has nothing to do and [`skippable_copies`] finds it to leave out: what would be a
/// pass over the whole cache per token is no work.
pub(crate) fn identity_copies(plan: &Plan, kernels: &[Kernel]) -> Vec<Option<(BufRef, BufRef)>> {
    plan.steps
        .iter()
        .map(|step| {
            let Step::Kernel { kernel, args, .. } = step else {
                return None;
            };
            let k = kernels.get(*kernel)?;
            let (src, dst) = identity_copy(k)?;
            Some((*args.get(src)?, *args.get(dst)?))
        })
        .collect()
}

/// The argument positions `(source, destination)` of a kernel that is one plain store of one
/// load: `dst[e] = src[e]`, the same index, dtype and length, no mask, nothing else computed.
fn identity_copy(k: &Kernel) -> Option<(usize, usize)> {
    if k.kind != KernelKind::Pointwise || k.args.len() != 2 || k.values.len() != 1 {
        return None;
    }
    let [stage] = k.stages.as_slice() else {
        return None;
    };
    let [store] = stage.stores.as_slice() else {
        return None;
    };
    let (KExpr::Load { arg, index, mask }, _) = &k.values[store.value.0 as usize] else {
        return None;
    };
    let (src, dst) = (arg.index(), store.arg.index());
    let same = |a: &coil_codegen::KernelArg, b: &coil_codegen::KernelArg| {
        a.dtype == b.dtype && a.len == b.len
    };
    (store.mode == StoreMode::Set
        && mask.is_none()
        && *index == store.index
        && src != dst
        && same(&k.args[src], &k.args[dst]))
    .then_some((src, dst))
}

/// For each output, the step a run may leave out when the caller makes that output an
/// input's memory, and which input: the identity copy (from [`identity_copies`]) of the input
/// into the output that is the first step to write the output's slot (so the memory still
/// holds the input's values when the copy would run). Found once, at compile time: a run
/// then only compares addresses ([`copies_to_skip`]).
pub(crate) fn skippable_copies(
    plan: &Plan,
    copies: &[Option<(BufRef, BufRef)>],
) -> Vec<Option<(usize, usize)>> {
    // The first step to write each slot, in one pass over the steps.
    let mut first_write: std::collections::HashMap<SlotId, usize> = Default::default();
    for (i, s) in plan.steps.iter().enumerate() {
        for b in s.writes() {
            if let Some(&slot) = plan.placement.get(&b) {
                first_write.entry(slot).or_insert(i);
            }
        }
    }
    let inputs: std::collections::HashMap<BufRef, usize> = plan
        .buffers
        .iter()
        .filter_map(|b| match b.role {
            BufferRole::Input(n) => Some((b.buffer, n)),
            _ => None,
        })
        .collect();
    plan.outputs
        .iter()
        .map(|o| {
            let slot = plan.placement.get(&o.buffer)?;
            let step = *first_write.get(slot)?;
            let (src, dst) = copies.get(step).copied().flatten()?;
            (dst == o.buffer).then_some(())?;
            Some((*inputs.get(&src)?, step))
        })
        .collect()
}

/// Which steps a run leaves out, given the caller's `(address, bytes)` of each input and
/// output: the copies of [`skippable_copies`] whose output `lent(i)` says uses the caller's
/// memory and whose address is that input's. Empty when there are none.
pub(crate) fn copies_to_skip<A: PartialEq + Copy>(
    steps: usize,
    skippable: &[Option<(usize, usize)>],
    inputs: &[(A, usize)],
    outputs: &[(A, usize)],
    lent: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let mut skip = Vec::new();
    for (o, entry) in skippable.iter().enumerate() {
        let Some((input, step)) = *entry else {
            continue;
        };
        let (Some(out), Some(inp)) = (outputs.get(o), inputs.get(input)) else {
            continue;
        };
        if out.1 > 0 && lent(o) && out.0 == inp.0 {
            if skip.is_empty() {
                skip = vec![false; steps];
            }
            if let Some(s) = skip.get_mut(step) {
                *s = true;
            }
        }
    }
    skip
}

/// The plan's buffer of graph input `input`, if it has one.
pub(crate) fn input_buffer(plan: &Plan, input: usize) -> Option<BufRef> {
    plan.buffers
        .iter()
        .find(|b| b.role == BufferRole::Input(input))
        .map(|b| b.buffer)
}

/// The first step that writes a buffer placed in `slot`.
fn first_write_into(plan: &Plan, slot: SlotId) -> Option<usize> {
    plan.steps.iter().position(|s| {
        s.writes()
            .iter()
            .any(|b| plan.placement.get(b) == Some(&slot))
    })
}
