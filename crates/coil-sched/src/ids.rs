//! Typed ids of the scheduler (`op3` for operations, arena ids for nodes) and `OpSet`, the
//! bitset over operations that holds ancestors.

use std::fmt;

use coil_lower::{BufferId, Idx};

use coil_lower::typed_id;

typed_id!(
    /// An operation: the computation of one realized buffer (`op3` computes `buf3`), Inductor's
    /// `ir.Operation` name.
    OpId,
    "op"
);

typed_id!(
    /// A scheduler node in the schedule's arena: a base node (one operation) or a fused node.
    /// Nodes print by name through [`crate::SchedNode::name`] (`op0`, `op0_op1`).
    NodeId,
    "node"
);

impl OpId {
    /// The operation computing `buffer`.
    pub fn of_buffer(buffer: BufferId) -> OpId {
        OpId::new(buffer.index())
    }

    /// The buffer this operation computes.
    pub fn buffer(self) -> BufferId {
        BufferId::new(self.index())
    }
}

/// A set of operations as a bitset (ancestors, member sets): union and intersection tests are
/// a few word operations, so the fusion checks stay cheap on graphs of thousands of nodes.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct OpSet {
    words: Vec<u64>,
}

impl OpSet {
    /// The empty set over `n` operations.
    pub fn new(n: usize) -> OpSet {
        OpSet {
            words: vec![0; n.div_ceil(64)],
        }
    }

    /// Adds `op`.
    pub fn insert(&mut self, op: OpId) {
        let i = op.index();
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// True when `op` is in the set.
    pub fn contains(&self, op: OpId) -> bool {
        let i = op.index();
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Adds every element of `other`.
    pub fn union_with(&mut self, other: &OpSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// Removes every element of `other`.
    pub fn subtract(&mut self, other: &OpSet) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a &= !b;
        }
    }

    /// True when the sets share an element.
    pub fn intersects(&self, other: &OpSet) -> bool {
        self.words.iter().zip(&other.words).any(|(a, b)| a & b != 0)
    }

    /// True when every element of `self` is in `other`.
    pub fn is_subset(&self, other: &OpSet) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .all(|(a, b)| a & !b == 0)
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|w| *w == 0)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The largest element.
    pub fn last(&self) -> Option<OpId> {
        self.words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)
            .map(|(i, w)| OpId::new(i * 64 + 63 - w.leading_zeros() as usize))
    }

    /// The smallest operation below `n` in none of `sets`, if any.
    pub fn first_missing(sets: &[&OpSet], n: usize) -> Option<OpId> {
        let words = n.div_ceil(64);
        for i in 0..words {
            let covered = sets
                .iter()
                .fold(0u64, |acc, s| acc | s.words.get(i).copied().unwrap_or(0));
            let missing = !covered;
            if missing != 0 {
                let bit = i * 64 + missing.trailing_zeros() as usize;
                return (bit < n).then(|| OpId::new(bit));
            }
        }
        None
    }

    /// The elements of `self` not in `other`, in increasing order.
    pub fn iter_difference<'a>(&'a self, other: &'a OpSet) -> impl Iterator<Item = OpId> + 'a {
        self.words.iter().enumerate().flat_map(move |(wi, &w)| {
            let mut w = w & !other.words.get(wi).copied().unwrap_or(0);
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(OpId::new(wi * 64 + b))
            })
        })
    }

    /// The elements in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = OpId> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(OpId::new(wi * 64 + b))
            })
        })
    }
}

impl fmt::Debug for OpSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opset_operations() {
        let mut a = OpSet::new(130);
        for i in [0, 63, 64, 129] {
            a.insert(OpId::new(i));
        }
        assert_eq!(a.len(), 4);
        assert!(a.contains(OpId::new(64)) && !a.contains(OpId::new(65)));
        assert_eq!(
            a.iter().map(|o| o.to_string()).collect::<Vec<_>>(),
            ["op0", "op63", "op64", "op129"]
        );
        let mut b = OpSet::new(130);
        b.insert(OpId::new(129));
        assert!(a.intersects(&b) && b.is_subset(&a) && !a.is_subset(&b));
        a.subtract(&b);
        assert!(!a.intersects(&b));
        b.union_with(&a);
        assert_eq!(b.len(), 4);
        assert_eq!(b.last(), Some(OpId::new(129)));
        assert_eq!(OpSet::new(130).last(), None);
        let mut c = OpSet::new(130);
        (0..70).for_each(|i| c.insert(OpId::new(i)));
        assert_eq!(OpSet::first_missing(&[&c], 130), Some(OpId::new(70)));
        assert_eq!(OpSet::first_missing(&[&c, &b], 130), Some(OpId::new(70)));
        assert_eq!(OpSet::first_missing(&[&c], 70), None);
    }
}
