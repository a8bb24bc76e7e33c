//! Interned dependencies: every `Dep` the schedule holds (as the lowering wrote it, and
//! normalized) is stored once and named by a `DepId`, so nodes keep small id lists and fusing
//! two nodes merges ids instead of cloning index expressions.

use coil_lower::{BufRef, Dep, IndexVec};
use hashbrown::HashMap;

coil_lower::typed_id!(
    /// An interned dependency (`dep3`); [`crate::Schedule::dep`] gives the `Dep`.
    DepId,
    "dep"
);

/// The schedule's dependencies, each with its normalized form and byte count.
#[derive(Clone, Debug, Default)]
pub(crate) struct DepTable {
    deps: IndexVec<DepId, Dep>,
    index: HashMap<Dep, DepId>,
    /// The normalized form of each dep (itself for normalized deps).
    norm: IndexVec<DepId, DepId>,
    bytes: IndexVec<DepId, usize>,
}

impl DepTable {
    fn push(&mut self, dep: Dep) -> DepId {
        let id = self.deps.push(dep.clone());
        self.bytes.push(dep.numbytes());
        self.norm.push(id);
        self.index.insert(dep, id);
        id
    }

    /// The id of `dep`, interning it (and its normalized form) if new.
    pub(crate) fn intern(&mut self, dep: &Dep) -> DepId {
        if let Some(&id) = self.index.get(dep) {
            return id;
        }
        let id = self.push(dep.clone());
        if let Dep::Memory(m) = dep {
            let n = Dep::Memory(m.normalized());
            if n != *dep {
                let nid = match self.index.get(&n) {
                    Some(&nid) => nid,
                    None => self.push(n),
                };
                self.norm[id] = nid;
            }
        }
        id
    }

    /// The dep behind an id.
    pub(crate) fn get(&self, id: DepId) -> &Dep {
        &self.deps[id]
    }

    /// Its normalized form.
    pub(crate) fn norm(&self, id: DepId) -> DepId {
        self.norm[id]
    }

    /// Bytes it moves.
    pub(crate) fn bytes(&self, id: DepId) -> usize {
        self.bytes[id]
    }

    /// The buffer it touches.
    pub(crate) fn buffer(&self, id: DepId) -> BufRef {
        self.deps[id].buffer()
    }
}
