//! Typed indices and the vectors they index (rustc's `IndexVec`, rust-analyzer's
//! `la-arena`): an instruction id cannot index the computations, and "none" is `None`.
//!
//! An id stores its index plus one in a `NonZeroU32`, so `Option<Id>` is as small as the id.
//! Written here rather than taken from `la-arena` or `index_vec`, whose ids are plain `u32`
//! (no niche for `Option`); the whole of it is the few methods below.

use std::fmt;
use std::marker::PhantomData;
use std::num::NonZeroU32;
use std::ops::{Index, IndexMut};

/// An index type: a position in an [`IndexVec`].
pub trait Id: Copy + Eq + Ord + std::hash::Hash + fmt::Debug {
    /// The id of position `index`.
    ///
    /// # Panics
    ///
    /// If `index` is [`MAX_ITEMS`] or more: no vector of the HLO model holds that many
    /// elements (the reader stops before).
    fn new(index: usize) -> Self;
    /// Its position.
    fn index(self) -> usize;
}

/// The most elements a vector of the model holds: ids are 32-bit (position + 1).
pub const MAX_ITEMS: usize = u32::MAX as usize;

macro_rules! id {
    ($(#[$meta:meta])* $vis:vis $name:ident) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis struct $name(::std::num::NonZeroU32);

        impl $crate::hlo::id::Id for $name {
            #[inline]
            fn new(index: usize) -> Self {
                $name($crate::hlo::id::nonzero(index))
            }
            #[inline]
            fn index(self) -> usize {
                self.0.get() as usize - 1
            }
        }

        impl $name {
            /// The id of position `index` (as [`Id::new`](crate::hlo::Id::new)).
            #[inline]
            #[allow(dead_code)]
            $vis fn new(index: usize) -> Self {
                <Self as $crate::hlo::id::Id>::new(index)
            }
            /// Its position (as [`Id::index`](crate::hlo::Id::index)).
            #[inline]
            #[allow(dead_code)]
            $vis fn index(self) -> usize {
                <Self as $crate::hlo::id::Id>::index(self)
            }
            /// The id `k` places further on (positions of one block are contiguous).
            #[inline]
            #[allow(dead_code)]
            $vis fn plus(self, k: usize) -> Self {
                Self::new(self.index() + k)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.index())
            }
        }

        impl ::serde::Serialize for $name {
            /// As its index: the JSON of a report holds plain numbers.
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_u64(self.index() as u64)
            }
        }
    };
}
pub(crate) use id;

/// `index + 1` as a `NonZeroU32`.
#[inline]
pub(crate) fn nonzero(index: usize) -> NonZeroU32 {
    u32::try_from(index)
        .ok()
        .and_then(|i| i.checked_add(1))
        .and_then(NonZeroU32::new)
        .expect("an HLO model holds fewer than u32::MAX elements of a kind")
}

/// A position of an [`IdRange`] (at most [`MAX_ITEMS`]).
fn position(k: usize) -> u32 {
    u32::try_from(k).expect("an HLO model holds at most u32::MAX elements of a kind")
}

id! {
    /// An instruction: an index into [`Module::instructions`](crate::hlo::Module::instructions).
    ///
    /// ```
    /// use xlayout::hlo::{InstrId, Module};
    /// let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(%a)\n");
    /// let b = m.instruction_id("b").unwrap();
    /// assert_eq!((b, b.index()), (InstrId::new(1), 1));
    /// assert_eq!(m.instructions[b].operands[0].id, Some(InstrId::new(0)));
    /// assert_eq!(std::mem::size_of::<Option<InstrId>>(), 4);
    /// ```
    pub InstrId
}

id! {
    /// A computation: an index into [`Module::computations`](crate::hlo::Module::computations).
    ///
    /// ```
    /// let m = xlayout::hlo::Module::parse("%f {\n}\n\nENTRY main {\n}\n");
    /// assert_eq!(m.entry.map(|e| e.index()), Some(1));
    /// ```
    pub CompId
}

id! {
    /// A distinct result shape: an index into [`Module::shapes`](crate::hlo::Module::shapes).
    ///
    /// ```
    /// use xlayout::hlo::Module;
    /// let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[2]{0} negate(%a)\n");
    /// let [a, b] = [0, 1].map(|i| m.instructions.raw()[i].shape);
    /// assert_eq!((a, m.shapes.len()), (b, 1));
    /// ```
    pub ShapeId
}

id! {
    /// A value with a live range: an index into [`Peak::values`](crate::hlo::Peak::values).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let v = peak.xla.live[0];
    /// assert_eq!(m.instructions[peak.values[v].instruction].name, "p");
    /// ```
    pub ValueId
}

/// A vector indexed by its own id type `I` (and by nothing else).
///
/// ```
/// use xlayout::hlo::{CompId, IndexVec};
/// let mut v: IndexVec<CompId, &str> = IndexVec::new();
/// let f = v.push("f");
/// assert_eq!((v[f], v.len()), ("f", 1));
/// assert_eq!(v.ids().collect::<Vec<_>>(), [f]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct IndexVec<I, T> {
    raw: Vec<T>,
    id: PhantomData<fn(&I)>,
}

impl<I: Id, T> IndexVec<I, T> {
    /// An empty vector.
    pub fn new() -> Self {
        IndexVec { raw: Vec::new(), id: PhantomData }
    }

    /// `n` copies of `value`.
    pub fn from_elem(value: T, n: usize) -> Self
    where
        T: Clone,
    {
        IndexVec { raw: vec![value; n], id: PhantomData }
    }

    /// The vector whose element `I::new(k)` is `raw[k]`.
    pub fn from_raw(raw: Vec<T>) -> Self {
        IndexVec { raw, id: PhantomData }
    }

    /// Appends `value`; returns its id.
    pub fn push(&mut self, value: T) -> I {
        let id = I::new(self.raw.len());
        self.raw.push(value);
        id
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.raw.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.raw.is_empty()
    }

    /// The element `id`, if there is one.
    pub fn get(&self, id: I) -> Option<&T> {
        self.raw.get(id.index())
    }

    /// The element `id`, mutable, if there is one.
    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.raw.get_mut(id.index())
    }

    /// The elements in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.raw.iter()
    }

    /// The elements in order, mutable.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.raw.iter_mut()
    }

    /// Every id, in order.
    pub fn ids(&self) -> <IdRange<I> as IntoIterator>::IntoIter {
        IdRange::new(0, self.raw.len()).into_iter()
    }

    /// Each id with its element.
    pub fn iter_enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + '_ {
        self.raw.iter().enumerate().map(|(k, t)| (I::new(k), t))
    }

    /// The elements as a slice (positions, not ids).
    pub fn raw(&self) -> &[T] {
        &self.raw
    }

    /// The id the next [`push`](Self::push) returns.
    pub fn next_id(&self) -> I {
        I::new(self.raw.len())
    }
}

impl<I: Id, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I: Id, T> Index<I> for IndexVec<I, T> {
    type Output = T;
    #[inline]
    fn index(&self, id: I) -> &T {
        &self.raw[id.index()]
    }
}

impl<I: Id, T> IndexMut<I> for IndexVec<I, T> {
    #[inline]
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.raw[id.index()]
    }
}

impl<'a, I: Id, T> IntoIterator for &'a IndexVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<I: Id, T> FromIterator<T> for IndexVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(it: It) -> Self {
        IndexVec::from_raw(it.into_iter().collect())
    }
}

impl<I, T: fmt::Debug> fmt::Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I, T: serde::Serialize> serde::Serialize for IndexVec<I, T> {
    /// As a sequence.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.raw.serialize(s)
    }
}

/// The ids `start..end` (a computation's instructions, a subtree's nodes).
///
/// ```
/// use xlayout::hlo::{Id, IdRange, InstrId};
/// let r: IdRange<InstrId> = IdRange::new(2, 4);
/// assert_eq!((r.len(), r.first(), r.last()), (2, Some(InstrId::new(2)), Some(InstrId::new(3))));
/// assert!(r.contains(InstrId::new(3)) && !r.contains(InstrId::new(4)));
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IdRange<I> {
    start: u32,
    end: u32,
    id: PhantomData<fn(&I)>,
}

impl<I: Id> IdRange<I> {
    /// The ids of positions `start..end` (empty when `end <= start`).
    pub fn new(start: usize, end: usize) -> Self {
        let start = position(start);
        IdRange { start, end: position(end).max(start), id: PhantomData }
    }

    /// How many ids.
    pub fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }

    /// The first position.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// One past the last position.
    pub fn end(&self) -> usize {
        self.end as usize
    }

    /// Whether `id` is in the range.
    pub fn contains(&self, id: I) -> bool {
        (self.start as usize..self.end as usize).contains(&id.index())
    }

    /// The `k`-th id, if there are that many.
    pub fn get(&self, k: usize) -> Option<I> {
        (k < self.len()).then(|| I::new(self.start as usize + k))
    }

    /// The first id.
    pub fn first(&self) -> Option<I> {
        self.get(0)
    }

    /// The last id.
    pub fn last(&self) -> Option<I> {
        self.len().checked_sub(1).and_then(|k| self.get(k))
    }

    /// The place of `id` in the range, if it is in it.
    pub fn offset(&self, id: I) -> Option<usize> {
        id.index().checked_sub(self.start as usize).filter(|&k| k < self.len())
    }

    /// The ids in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = I> + ExactSizeIterator {
        (self.start as usize..self.end as usize).map(I::new)
    }

    pub(crate) fn set_end(&mut self, end: usize) {
        self.end = position(end).max(self.start);
    }
}

impl<I: Id> IntoIterator for IdRange<I> {
    type Item = I;
    type IntoIter = std::iter::Map<std::ops::Range<usize>, fn(usize) -> I>;
    fn into_iter(self) -> Self::IntoIter {
        (self.start as usize..self.end as usize).map(I::new as fn(usize) -> I)
    }
}

impl<I> fmt::Debug for IdRange<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

impl<I> serde::Serialize for IdRange<I> {
    /// `{"start": N, "end": N}`, as a `Range` serializes.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (self.start..self.end).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_positions_plus_one() {
        assert_eq!(InstrId::new(0).0.get(), 1);
        assert_eq!(InstrId::new(MAX_ITEMS - 1).index(), MAX_ITEMS - 1);
        assert!(std::panic::catch_unwind(|| InstrId::new(MAX_ITEMS)).is_err());
        assert_eq!(format!("{:?}", CompId::new(7)), "CompId(7)");
        assert_eq!(InstrId::new(3).plus(2), InstrId::new(5));
        let r: IdRange<InstrId> = IdRange::new(5, 3);
        assert!(r.is_empty() && r.first().is_none());
        assert_eq!(IdRange::<InstrId>::new(3, 6).offset(InstrId::new(5)), Some(2));
    }
}
