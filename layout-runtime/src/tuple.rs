//! A tuple's elements, each distinct element shape stored once and the elements as ids of
//! them: a tuple of a million `f32[]` leaves holds one `f32[]` and a million 4-byte ids, not a
//! million shapes of 152 bytes and their dimension lists, and a tuple of equal nested tuples
//! holds each nested tuple once.

use alloc::vec::Vec;
use core::fmt;
use core::hash::BuildHasher;

use hashbrown::HashTable;

use crate::Shape;

/// The elements of a tuple shape, `(f32[2]{0}, s32[])`: read with [`Tuple::get`],
/// [`Tuple::iter`] and [`Tuple::len`] as a list of shapes; stored as the distinct element
/// shapes ([`Tuple::distinct`], in the order they first appear) and one id per element
/// ([`Tuple::ids`]), so an element repeated a million times is stored once.
///
/// Two tuples of the same elements are equal and hash alike: the stored form is a function
/// of the elements alone.
///
/// ```
/// use layout_runtime::{Shape, Tuple};
/// let s: Shape = "(f32[2]{0}, s32[], f32[2]{0})".parse()?;
/// let Shape::Tuple(t) = &s else { unreachable!() };
/// assert_eq!((t.len(), t.distinct().len(), t.ids()), (3, 2, &[0, 1, 0][..]));
/// assert_eq!(t.get(2).map(ToString::to_string).as_deref(), Some("f32[2]{0}"));
/// let same: Tuple = t.iter().cloned().collect();
/// assert_eq!(&same, t);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Tuple {
    /// The distinct element shapes, in the order they first appear.
    shapes: Vec<Shape>,
    /// Per element: its shape's place in `shapes`.
    ids: Vec<u32>,
}

impl Tuple {
    /// The empty tuple, `()`.
    ///
    /// ```
    /// assert!(layout_runtime::Tuple::new().is_empty());
    /// ```
    pub fn new() -> Tuple {
        Tuple::default()
    }

    /// The number of elements.
    ///
    /// ```
    /// let t: layout_runtime::Tuple = vec![layout_runtime::Shape::Token; 3].into();
    /// assert_eq!(t.len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether it has no element.
    ///
    /// ```
    /// assert!(!layout_runtime::Tuple::from(vec![layout_runtime::Shape::Token]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Element `i`, if there is one.
    ///
    /// ```
    /// use layout_runtime::{Shape, Tuple};
    /// let t = Tuple::from(vec![Shape::Token, Shape::Opaque]);
    /// assert_eq!((t.get(1), t.get(2)), (Some(&Shape::Opaque), None));
    /// ```
    pub fn get(&self, i: usize) -> Option<&Shape> {
        self.ids.get(i).map(|&id| &self.shapes[id as usize])
    }

    /// The first element.
    ///
    /// ```
    /// use layout_runtime::{Shape, Tuple};
    /// assert_eq!(Tuple::from(vec![Shape::Opaque]).first(), Some(&Shape::Opaque));
    /// ```
    pub fn first(&self) -> Option<&Shape> {
        self.get(0)
    }

    /// The elements in order.
    ///
    /// ```
    /// use layout_runtime::{Shape, Tuple};
    /// let t = Tuple::from(vec![Shape::Token, Shape::Opaque, Shape::Token]);
    /// assert_eq!(t.iter().rev().nth(1), Some(&Shape::Opaque));
    /// ```
    pub fn iter(&self) -> TupleIter<'_> {
        TupleIter { shapes: &self.shapes, ids: self.ids.iter() }
    }

    /// The distinct element shapes, each once, in the order they first appear: what an
    /// analysis of each element does once per distinct shape reads.
    ///
    /// ```
    /// use layout_runtime::{Shape, Tuple};
    /// let t = Tuple::from(vec![Shape::Token; 1000]);
    /// assert_eq!(t.distinct(), [Shape::Token]);
    /// ```
    pub fn distinct(&self) -> &[Shape] {
        &self.shapes
    }

    /// Per element, the place of its shape in [`Tuple::distinct`].
    ///
    /// ```
    /// use layout_runtime::{Shape, Tuple};
    /// let t = Tuple::from(vec![Shape::Token, Shape::Opaque, Shape::Token]);
    /// assert_eq!(t.ids(), [0, 1, 0]);
    /// ```
    pub fn ids(&self) -> &[u32] {
        &self.ids
    }

    /// Gives back the room its lists and its shapes' lists keep beyond their length.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.ids.shrink_to_fit();
        self.shapes.shrink_to_fit();
        self.shapes.iter_mut().for_each(Shape::shrink_to_fit);
    }
}

/// A tuple being built one element at a time: a table of the distinct shapes so far, by
/// hash, finds an element seen before in one look-up. The hash is seeded per process
/// (foldhash's `RandomState`), so that a hostile text cannot aim its elements at one bucket.
pub(crate) struct TupleBuilder {
    tuple: Tuple,
    table: HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl TupleBuilder {
    pub(crate) fn new() -> TupleBuilder {
        TupleBuilder {
            tuple: Tuple::new(),
            table: HashTable::new(),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// Appends `shape`: its id if an equal shape is there already, else it is stored.
    pub(crate) fn push(&mut self, shape: Shape) {
        let hasher = &self.hasher;
        let hash = hasher.hash_one(&shape);
        let shapes = &mut self.tuple.shapes;
        let id = match self.table.find(hash, |&k| shapes[k as usize] == shape) {
            Some(&k) => k,
            None => {
                // Every id fits: 2³² distinct shapes would take hundreds of gigabytes.
                let k = u32::try_from(shapes.len()).unwrap_or(u32::MAX);
                shapes.push(shape);
                let shapes = &*shapes;
                self.table.insert_unique(hash, k, |&j| hasher.hash_one(&shapes[j as usize]));
                k
            }
        };
        self.tuple.ids.push(id);
    }

    /// The number of elements so far.
    pub(crate) fn len(&self) -> usize {
        self.tuple.len()
    }

    /// The tuple, its lists at their length.
    pub(crate) fn finish(self) -> Tuple {
        let mut t = self.tuple;
        t.ids.shrink_to_fit();
        t.shapes.shrink_to_fit();
        t
    }
}

impl FromIterator<Shape> for Tuple {
    fn from_iter<I: IntoIterator<Item = Shape>>(elements: I) -> Tuple {
        let mut b = TupleBuilder::new();
        elements.into_iter().for_each(|e| b.push(e));
        b.finish()
    }
}

impl From<Vec<Shape>> for Tuple {
    /// The tuple of these elements, in order.
    fn from(elements: Vec<Shape>) -> Tuple {
        elements.into_iter().collect()
    }
}

impl fmt::Debug for Tuple {
    /// The elements as a list, as a `Vec<Shape>` prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl core::ops::Index<usize> for Tuple {
    type Output = Shape;

    /// Element `i`; panics past the end, as a slice does ([`Tuple::get`] does not).
    fn index(&self, i: usize) -> &Shape {
        &self.shapes[self.ids[i] as usize]
    }
}

impl<'a> IntoIterator for &'a Tuple {
    type Item = &'a Shape;
    type IntoIter = TupleIter<'a>;

    fn into_iter(self) -> TupleIter<'a> {
        self.iter()
    }
}

/// The elements of a [`Tuple`], in order.
#[derive(Clone, Debug)]
pub struct TupleIter<'a> {
    shapes: &'a [Shape],
    ids: core::slice::Iter<'a, u32>,
}

impl<'a> Iterator for TupleIter<'a> {
    type Item = &'a Shape;

    fn next(&mut self) -> Option<&'a Shape> {
        self.ids.next().map(|&k| &self.shapes[k as usize])
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ids.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<&'a Shape> {
        self.ids.nth(n).map(|&k| &self.shapes[k as usize])
    }
}

impl DoubleEndedIterator for TupleIter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.ids.next_back().map(|&k| &self.shapes[k as usize])
    }
}

impl ExactSizeIterator for TupleIter<'_> {}

impl core::iter::FusedIterator for TupleIter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::string::ToString;
    use alloc::vec;

    #[test]
    fn equal_elements_are_stored_once_and_read_back_in_order() {
        let a: Shape = "f32[2]{0}".parse().unwrap();
        let b: Shape = "(s8[], f32[2]{0})".parse().unwrap();
        let t = Tuple::from(vec![a.clone(), b.clone(), a.clone(), b.clone(), a.clone()]);
        assert_eq!(t.distinct(), [a.clone(), b.clone()]);
        assert_eq!(t.ids(), [0, 1, 0, 1, 0]);
        let back: Vec<&Shape> = t.iter().collect();
        assert_eq!(back, [&a, &b, &a, &b, &a]);
        assert_eq!((&t[3], t.iter().len(), t.iter().nth(4)), (&b, 5, Some(&a)));
        assert_eq!(format!("{t:?}"), format!("{:?}", vec![&a, &b, &a, &b, &a]));
        // Built from the same elements another way: equal, and hashed alike.
        let again: Tuple = t.iter().cloned().collect();
        let h = foldhash::fast::FixedState::default();
        assert_eq!((&again, h.hash_one(&again)), (&t, h.hash_one(&t)));
        assert_ne!(Tuple::from(vec![b.clone(), a.clone()]), Tuple::from(vec![a, b]));
    }

    #[test]
    fn a_million_equal_leaves_are_one_shape() {
        let s: Shape = format!("({})", vec!["f32[]"; 1 << 20].join(", ")).parse().unwrap();
        let Shape::Tuple(t) = &s else { panic!("{s:?}") };
        assert_eq!((t.len(), t.distinct().len()), (1 << 20, 1));
        assert_eq!(t.get((1 << 20) - 1).map(ToString::to_string).as_deref(), Some("f32[]"));
    }
}
