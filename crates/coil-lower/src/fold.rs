//! Template epilogues folded into their matmul after the scheduler chose them: the lowering
//! records each pointwise buffer that could run inside a matmul's library call as post-ops
//! ([`Epilogue`]); [`LoweredGraph::fold_epilogues`] makes the chosen ones part of the call.
//! The call takes the chain's post-ops and operands, every reader of a folded buffer reads the
//! call's output instead (the same elements: both are contiguous with the same number of
//! elements, the buffer's sizes a reshape of the call's at most), and the buffers after it are
//! renumbered, so the result is what lowering with those post-ops folded would give.

use std::collections::HashMap;

use crate::LoweredGraph;
use crate::error::LowerError;
use crate::idx::Idx;
use crate::ir::{BufRef, BufferId, BufferKind, Epilogue, StorageData};

impl LoweredGraph {
    /// The pointwise buffers that could be post-ops of a matmul's library call, for the
    /// scheduler to choose from (empty when the backend's matmul library takes none).
    pub fn epilogues(&self) -> &[Epilogue] {
        &self.epilogues
    }

    /// This graph with the epilogue buffers in `chosen` (among [`Self::epilogues`]) inside
    /// their matmul's call. A buffer of a chain can only be chosen with every buffer of the
    /// chain before it (the scheduler's fusion cannot take a later one alone: the earlier one
    /// would lie between the call and it). An unknown buffer is an error.
    pub fn fold_epilogues(&self, chosen: &[BufferId]) -> Result<LoweredGraph, LowerError> {
        let mut g = self.clone();
        g.epilogues.clear();
        if chosen.is_empty() {
            return Ok(g);
        }
        let mut by_template: Vec<(BufferId, Vec<&Epilogue>)> = Vec::new();
        for &b in chosen {
            let e = self
                .epilogues
                .iter()
                .find(|e| e.buffer == b)
                .ok_or_else(|| LowerError::Invalid(format!("{b} is no template epilogue")))?;
            match by_template.iter_mut().find(|(t, _)| *t == e.template) {
                Some((_, v)) => v.push(e),
                None => by_template.push((e.template, vec![e])),
            }
        }
        // Folded buffer -> the call that computes it now.
        let mut into: HashMap<BufferId, BufferId> = HashMap::new();
        for (template, chain) in &by_template {
            let Some(last) = chain.iter().max_by_key(|e| e.buffer) else {
                continue;
            };
            let mut origins = g.buffers[*template].origins.clone();
            for e in chain {
                for o in &self.buffers[e.buffer].origins {
                    if !origins.contains(o) {
                        origins.push(o.clone());
                    }
                }
                into.insert(e.buffer, *template);
            }
            let call = &mut g.buffers[*template];
            let BufferKind::Extern(ext) = &mut call.kind else {
                return Err(LowerError::Invalid(format!(
                    "{template}, an epilogue's template, is no library call"
                )));
            };
            ext.kind = last.kind.clone();
            ext.inputs = last.inputs.clone();
            call.reads = last.reads.clone();
            call.origins = origins;
            tracing::debug!(
                target: "fusion",
                "template epilogue: {} fused into {template}: {}",
                chain.iter().map(|e| e.buffer.to_string()).collect::<Vec<_>>().join(", "),
                ext.kind.kernel_name()
            );
        }
        g.remove_buffers(&into);
        Ok(g)
    }

    /// Drops the buffers in `into`'s keys, every reference to one becoming its value's, and
    /// renumbers the rest in order.
    fn remove_buffers(&mut self, into: &HashMap<BufferId, BufferId>) {
        let old = std::mem::take(&mut self.buffers);
        let mut new_id: Vec<Option<BufferId>> = Vec::with_capacity(old.len());
        let mut next = 0;
        for (id, _) in old.iter_enumerated() {
            if into.contains_key(&id) {
                new_id.push(None);
            } else {
                new_id.push(Some(BufferId::new(next)));
                next += 1;
            }
        }
        let map = |b: BufferId| -> BufferId {
            let kept = into.get(&b).copied().unwrap_or(b);
            new_id[kept.index()].unwrap_or(kept)
        };
        let map_ref = |r: BufRef| match r {
            BufRef::Buffer(b) => BufRef::Buffer(map(b)),
            other => other,
        };
        for (id, mut buf) in old.into_iter_enumerated() {
            if into.contains_key(&id) {
                continue;
            }
            buf.id = map(id);
            match &mut buf.kind {
                BufferKind::Computed(c) => {
                    c.body.exprs.map_loads(map_ref);
                    if let Some(sc) = &mut c.scatter {
                        sc.target = map(sc.target);
                    }
                }
                BufferKind::Extern(e) => {
                    for i in &mut e.inputs {
                        i.buffer = map_ref(i.buffer);
                    }
                }
            }
            for d in buf.reads.iter_mut().chain(buf.writes.iter_mut()) {
                let r = d.buffer_mut();
                *r = map_ref(*r);
            }
            self.buffers.push(buf);
        }
        for s in self.storages.iter_mut() {
            s.data = match s.data {
                StorageData::Computed(b) if into.contains_key(&b) => StorageData::Extern(map(b)),
                StorageData::Computed(b) => StorageData::Computed(map(b)),
                StorageData::Extern(b) => StorageData::Extern(map(b)),
                ref other => other.clone(),
            };
        }
        for o in &mut self.outputs {
            o.buffer = map_ref(o.buffer);
        }
    }
}
