//! Typed ids and the vector they index (`IndexVec<BufferId, Buffer>` accepts only `BufferId`s).

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// An id usable as an [`IndexVec`] index.
pub trait Idx: Copy + Eq {
    /// The id of position `i`.
    fn new(i: usize) -> Self;
    /// The position this id names.
    fn index(self) -> usize;
}

/// Declares a `u32` id type whose `Display` (and `Debug`) is `<prefix><n>` (`buf3`), usable
/// as an [`IndexVec`] index: the one id macro of the workspace (coil-lower's, coil-sched's and
/// coil-codegen's ids are all made by it).
///
/// ```
/// coil_kernel::typed_id!(
///     /// A thing.
///     ThingId,
///     "thing"
/// );
/// use coil_kernel::Idx;
/// assert_eq!(ThingId::new(3).to_string(), "thing3");
/// ```
#[macro_export]
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $crate::typed_id!($(#[$doc])* $name(), $prefix);
    };
    ($(#[$doc:meta])* $name:ident($($field_vis:tt)*), $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name($($field_vis)* u32);

        impl $crate::Idx for $name {
            fn new(i: usize) -> Self {
                $name(u32::try_from(i).expect("fewer than 2^32 ids"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $name {
            /// The position this id names.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::fmt::Display::fmt(self, f)
            }
        }

        // As its number (the compile cache's program entries hold ids).
        impl $crate::__serde::Serialize for $name {
            fn serialize<S: $crate::__serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_u32(self.0)
            }
        }

        impl<'de> $crate::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                <u32 as $crate::__serde::Deserialize>::deserialize(d).map($name)
            }
        }
    };
}

/// A vector indexed by one id type only.
#[derive(Clone, PartialEq, Eq)]
pub struct IndexVec<I, T> {
    raw: Vec<T>,
    _marker: PhantomData<fn(&I)>,
}

impl<I: Idx, T> IndexVec<I, T> {
    /// An empty vector.
    pub fn new() -> Self {
        IndexVec {
            raw: Vec::new(),
            _marker: PhantomData,
        }
    }

    /// Appends and returns the new element's id.
    pub fn push(&mut self, value: T) -> I {
        let id = I::new(self.raw.len());
        self.raw.push(value);
        id
    }

    /// The id the next push will return.
    pub fn next_id(&self) -> I {
        I::new(self.raw.len())
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The elements in id order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }

    /// The elements in id order, mutably.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.raw.iter_mut()
    }

    /// The elements with their ids, in id order, by value.
    pub fn into_iter_enumerated(self) -> impl DoubleEndedIterator<Item = (I, T)> {
        self.raw
            .into_iter()
            .enumerate()
            .map(|(i, t)| (I::new(i), t))
    }

    /// The elements with their ids, in id order.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + '_ {
        self.raw.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// Every id, in order.
    pub fn ids(&self) -> impl DoubleEndedIterator<Item = I> + use<I, T> {
        (0..self.raw.len()).map(I::new)
    }

    /// The element behind `id`, if it exists.
    pub fn get(&self, id: I) -> Option<&T> {
        self.raw.get(id.index())
    }

    /// The underlying slice.
    pub fn as_slice(&self) -> &[T] {
        &self.raw
    }
}

impl<I: Idx, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Idx, T> Index<I> for IndexVec<I, T> {
    type Output = T;
    fn index(&self, id: I) -> &T {
        &self.raw[id.index()]
    }
}

impl<I: Idx, T> IndexMut<I> for IndexVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.raw[id.index()]
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.raw.iter()).finish()
    }
}
