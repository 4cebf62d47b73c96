//! Layouts fixed at compile time: what the `layout!` macro generates implements
//! [`StaticLayout`] (and [`TypedLayout`] when its elements are whole Rust values), and
//! [`Buffer`], [`View`] and [`ViewMut`] store and address elements through it.
//!
//! None of this needs `alloc`: the constants and the accessors are generated code, and the
//! storage is an array or a borrowed slice.
//!
//! ```
//! use layout_runtime::fixed::{Buffer, StaticLayout};
//! # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
//! // Fig1 is what `layout! { struct Fig1 = f32[3,5]{1,0:T(2,2)}; }` generates.
//! assert_eq!(Fig1.offset([2, 3]), 17);
//! assert_eq!((Fig1::GRID_LEN, Fig1::XLA_BYTE_SIZE), (24, Some(96)));
//! let mut buf = Buffer::<Fig1>::zeroed();
//! buf[[2, 3]] = 1.5;
//! assert_eq!(buf.as_slice()[17], 1.5);
//! ```

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

use crate::{Element, PrimitiveType, TileDim};

/// A layout known at compile time: the constants of a validated array shape and its
/// offset map. Implemented by the types the `layout!` macro generates (zero-sized,
/// `Copy`); the same type also has `const fn` versions of the methods.
///
/// ```
/// use layout_runtime::fixed::StaticLayout;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// fn describe<L: StaticLayout>(l: L) -> (usize, &'static str) {
///     (L::RANK, L::TEXT)
/// }
/// assert_eq!(describe(Fig1), (2, "f32[3,5]{1,0:T(2,2)}"));
/// assert_eq!(Fig1.index_of(9), None); // padding
/// ```
pub trait StaticLayout:
    Copy + Default + fmt::Debug + PartialEq + Eq + core::hash::Hash + Send + Sync + 'static
{
    /// A logical index: `[usize; RANK]` (`Index::try_from(&slice[..])` converts a run-time
    /// index of the right length).
    type Index: Copy
        + fmt::Debug
        + PartialEq
        + Eq
        + AsRef<[usize]>
        + AsMut<[usize]>
        + for<'a> TryFrom<&'a [usize]>;
    /// The number of dimensions.
    const RANK: usize;
    /// The index of all zeros, `[0; RANK]`.
    const ZERO_INDEX: Self::Index;
    /// The dimension sizes, dimension 0 first.
    const DIMS: &'static [usize];
    /// The physical order, most minor first (XLA's `minor_to_major`).
    const MINOR_TO_MAJOR: &'static [usize];
    /// The tiles, first level first; entries most major first.
    const TILES: &'static [&'static [TileDim]];
    /// The element type.
    const ELEMENT_TYPE: PrimitiveType;
    /// Storage bits per element (`E(n)` when set, else the type's byte width × 8).
    const ELEMENT_BITS: usize;
    /// The canonical text, as XLA prints it.
    const TEXT: &'static str;
    /// Elements of the tiled grid, padding included (every offset is below it).
    const GRID_LEN: usize;
    /// [`StaticLayout::GRID_LEN`] rounded up to a multiple of `L(n)`: the storage length
    /// in elements.
    const PADDED_LEN: usize;
    /// The storage length in bytes (packed when the layout has `E(n)`).
    const BYTE_LEN: usize;
    /// XLA's `ShapeUtil::ArraySize`; `None` when the first tile contains `*`, for which XLA
    /// has no defined size.
    const XLA_BYTE_SIZE: Option<u64>;

    /// The element offset of a logical index; panics when the index is out of range.
    fn offset(self, index: Self::Index) -> usize;

    /// The element offset of a logical index, or `None` when it is out of range.
    fn checked_offset(self, index: Self::Index) -> Option<usize>;

    /// The logical index stored at `offset`; `None` for padding or beyond the grid.
    fn index_of(self, offset: usize) -> Option<Self::Index>;

    /// Every grid position in memory order: the logical index stored there, or `None` for
    /// padding.
    fn memory_order(self) -> MemoryOrder<Self> {
        MemoryOrder { layout: self, next: 0 }
    }

    /// The runtime [`Shape`](crate::Shape) of this layout.
    #[cfg(feature = "alloc")]
    fn to_shape(self) -> crate::Shape {
        // TEXT is XLA's canonical print of a shape the macro validated with this crate.
        Self::TEXT.parse().expect("a static layout's text is a valid shape")
    }
}

/// A [`StaticLayout`] whose elements are whole Rust values (no `E(n)` packing to another
/// width), so it can back typed storage.
pub trait TypedLayout: StaticLayout {
    /// The Rust type of one element (see [`elem`](crate::elem)).
    type Elem: Element;
    /// The storage of a [`Buffer`]: `[Elem; PADDED_LEN]`.
    type Storage: Copy + Send + Sync + 'static + AsRef<[Self::Elem]> + AsMut<[Self::Elem]>;
    /// Storage with every element zero.
    const ZEROED: Self::Storage;
}

/// Grid positions of a static layout in memory order; see [`StaticLayout::memory_order`].
#[derive(Clone, Debug)]
pub struct MemoryOrder<L> {
    layout: L,
    next: usize,
}

impl<L: StaticLayout> Iterator for MemoryOrder<L> {
    type Item = Option<L::Index>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= L::GRID_LEN {
            return None;
        }
        let at = self.layout.index_of(self.next);
        self.next += 1;
        Some(at)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = L::GRID_LEN.saturating_sub(self.next);
        (n, Some(n))
    }
}

impl<L: StaticLayout> ExactSizeIterator for MemoryOrder<L> {}

/// A slice of the wrong length for a layout's storage.
///
/// ```
/// use layout_runtime::fixed::View;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let e = View::<Fig1>::new(&[0.0; 15]).unwrap_err();
/// assert_eq!((e.expected, e.actual), (24, 15));
/// assert_eq!(e.to_string(), "the slice has 15 elements; the layout f32[3,5]{1,0:T(2,2)} stores 24");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LengthError {
    /// The length needed: [`StaticLayout::PADDED_LEN`] for storage, the product of the
    /// dimensions for a row-major array.
    pub expected: usize,
    /// The length given.
    pub actual: usize,
    text: &'static str,
    row_major: bool,
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.row_major {
            write!(
                f,
                "the row-major slice has {} elements; the array {} has {}",
                self.actual, self.text, self.expected
            )
        } else {
            write!(
                f,
                "the slice has {} elements; the layout {} stores {}",
                self.actual, self.text, self.expected
            )
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LengthError {}

fn check_len<L: StaticLayout>(actual: usize) -> Result<(), LengthError> {
    if actual == L::PADDED_LEN {
        Ok(())
    } else {
        Err(LengthError { expected: L::PADDED_LEN, actual, text: L::TEXT, row_major: false })
    }
}

/// The number of logical elements of `L` (the product of its dimensions).
fn logical_len<L: StaticLayout>() -> usize {
    L::DIMS.iter().product()
}

fn check_row_major<L: StaticLayout>(actual: usize) -> Result<(), LengthError> {
    let expected = logical_len::<L>();
    if actual == expected {
        Ok(())
    } else {
        Err(LengthError { expected, actual, text: L::TEXT, row_major: true })
    }
}

/// Calls `f(k, offset)` for every logical index in row-major order: `k` is its position in a
/// row-major array, `offset` its place in `L`'s storage. An odometer over the dimensions, so
/// the only arithmetic per element is the layout's own offset.
fn for_each_row_major<L: StaticLayout>(mut f: impl FnMut(usize, usize)) {
    let n = logical_len::<L>();
    let layout = L::default();
    let mut index = L::ZERO_INDEX;
    for k in 0..n {
        f(k, layout.offset(index));
        for (i, &d) in index.as_mut().iter_mut().zip(L::DIMS).rev() {
            *i += 1;
            if *i < d {
                break;
            }
            *i = 0;
        }
    }
}

/// Writes the row-major array `row_major` into `storage` in layout `L`; padding becomes zero.
fn pack<L: TypedLayout>(row_major: &[L::Elem], storage: &mut [L::Elem]) -> Result<(), LengthError> {
    check_row_major::<L>(row_major.len())?;
    check_len::<L>(storage.len())?;
    if logical_len::<L>() < L::PADDED_LEN {
        storage.fill(L::Elem::ZERO);
    }
    for_each_row_major::<L>(|k, offset| storage[offset] = row_major[k]);
    Ok(())
}

/// Reads `storage` in layout `L` into the row-major array `row_major`.
fn unpack<L: TypedLayout>(
    storage: &[L::Elem],
    row_major: &mut [L::Elem],
) -> Result<(), LengthError> {
    check_row_major::<L>(row_major.len())?;
    check_len::<L>(storage.len())?;
    for_each_row_major::<L>(|k, offset| row_major[k] = storage[offset]);
    Ok(())
}

/// Owned storage for one array in layout `L`, on the stack: `[L::Elem; PADDED_LEN]`, padding
/// included. Indexing with `buf[[i, j]]` checks the logical index against `L`'s dimensions
/// and computes the offset with `L`'s constants.
///
/// ```
/// use layout_runtime::fixed::Buffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let mut buf = Buffer::<Fig1>::zeroed();
/// buf[[0, 2]] = 4.0;
/// assert_eq!(buf.get([0, 2]), Some(&4.0));
/// assert_eq!(buf.get([3, 0]), None);
/// assert_eq!(buf.as_slice()[4], 4.0);
/// ```
pub struct Buffer<L: TypedLayout> {
    storage: L::Storage,
    layout: PhantomData<L>,
}

impl<L: TypedLayout> Clone for Buffer<L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: TypedLayout> Copy for Buffer<L> {}

impl<L: TypedLayout> fmt::Debug for Buffer<L>
where
    L::Elem: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("layout", &L::TEXT)
            .field("storage", &self.as_slice())
            .finish()
    }
}

impl<L: TypedLayout> Default for Buffer<L> {
    fn default() -> Self {
        Self::zeroed()
    }
}

impl<L: TypedLayout> Buffer<L> {
    /// A buffer of zero elements (padding included).
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(Buffer::<Fig1>::zeroed().as_slice().iter().all(|&x| x == 0.0));
    /// ```
    pub const fn zeroed() -> Self {
        Buffer { storage: L::ZEROED, layout: PhantomData }
    }

    /// A buffer holding `storage`, in memory order (as a device would hand it over).
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut raw = [0.0f32; 24];
    /// raw[17] = 1.0;
    /// assert_eq!(Buffer::<Fig1>::from_storage(raw)[[2, 3]], 1.0);
    /// ```
    pub const fn from_storage(storage: L::Storage) -> Self {
        Buffer { storage, layout: PhantomData }
    }

    /// A buffer holding the row-major array `row_major` (last index fastest, as numpy and
    /// host code store it), laid out in `L`; padding is zero.
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let host: Vec<f32> = (0..15).map(|k| k as f32).collect(); // 3x5, row-major
    /// let buf = Buffer::<Fig1>::pack_from(&host)?;
    /// assert_eq!(buf[[2, 3]], 13.0);
    /// assert_eq!(buf.as_slice()[..6], [0.0, 1.0, 5.0, 6.0, 2.0, 3.0]);
    /// assert!(Buffer::<Fig1>::pack_from(&host[1..]).is_err());
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn pack_from(row_major: &[L::Elem]) -> Result<Self, LengthError> {
        let mut buf = Self::zeroed();
        pack::<L>(row_major, buf.storage.as_mut())?;
        Ok(buf)
    }

    /// Writes the array into `row_major` in row-major order (last index fastest).
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let host: Vec<f32> = (0..15).map(|k| k as f32).collect();
    /// let mut back = vec![0.0; 15];
    /// Buffer::<Fig1>::pack_from(&host)?.unpack_into(&mut back)?;
    /// assert_eq!(back, host);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn unpack_into(&self, row_major: &mut [L::Elem]) -> Result<(), LengthError> {
        unpack::<L>(self.storage.as_ref(), row_major)
    }

    /// The storage, giving up the buffer.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let raw: [f32; 24] = Buffer::<Fig1>::zeroed().into_storage();
    /// # let _ = raw;
    /// ```
    pub fn into_storage(self) -> L::Storage {
        self.storage
    }

    /// The elements in memory order, padding included.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(Buffer::<Fig1>::zeroed().as_slice().len(), 24);
    /// ```
    pub fn as_slice(&self) -> &[L::Elem] {
        self.storage.as_ref()
    }

    /// The elements in memory order, mutably.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// buf.as_mut_slice()[1] = 2.0;
    /// assert_eq!(buf[[0, 1]], 2.0);
    /// ```
    pub fn as_mut_slice(&mut self) -> &mut [L::Elem] {
        self.storage.as_mut()
    }

    /// A view of the storage.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let buf = Buffer::<Fig1>::zeroed();
    /// assert_eq!(buf.view()[[1, 1]], 0.0);
    /// ```
    pub fn view(&self) -> View<'_, L> {
        View { data: self.storage.as_ref(), layout: PhantomData }
    }

    /// A mutable view of the storage.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// buf.view_mut()[[1, 1]] = 3.0;
    /// assert_eq!(buf.as_slice()[3], 3.0);
    /// ```
    pub fn view_mut(&mut self) -> ViewMut<'_, L> {
        ViewMut { data: self.storage.as_mut(), layout: PhantomData }
    }

    /// The element at a logical index; `None` when it is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(Buffer::<Fig1>::zeroed().get([2, 5]), None);
    /// ```
    #[inline]
    pub fn get(&self, index: L::Index) -> Option<&L::Elem> {
        self.as_slice().get(L::default().checked_offset(index)?)
    }

    /// The element at a logical index, mutably; `None` when it is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// *buf.get_mut([0, 0]).unwrap() = 1.0;
    /// assert_eq!(buf.as_slice()[0], 1.0);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, index: L::Index) -> Option<&mut L::Elem> {
        let offset = L::default().checked_offset(index)?;
        self.as_mut_slice().get_mut(offset)
    }
}

impl<L: TypedLayout> Index<L::Index> for Buffer<L> {
    type Output = L::Elem;

    /// The element at a logical index; panics when it is out of range.
    #[inline]
    #[track_caller]
    fn index(&self, index: L::Index) -> &L::Elem {
        &self.as_slice()[L::default().offset(index)]
    }
}

impl<L: TypedLayout> IndexMut<L::Index> for Buffer<L> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: L::Index) -> &mut L::Elem {
        let offset = L::default().offset(index);
        &mut self.as_mut_slice()[offset]
    }
}

/// Borrowed storage in layout `L`: a slice of exactly [`StaticLayout::PADDED_LEN`] elements,
/// checked once when the view is made.
///
/// ```
/// use layout_runtime::fixed::View;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let data: Vec<f32> = (0..24).map(|o| o as f32).collect();
/// let view = View::<Fig1>::new(&data)?;
/// assert_eq!(view[[2, 3]], 17.0);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub struct View<'a, L: TypedLayout> {
    data: &'a [L::Elem],
    layout: PhantomData<L>,
}

impl<L: TypedLayout> Clone for View<'_, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<L: TypedLayout> Copy for View<'_, L> {}

impl<L: TypedLayout> fmt::Debug for View<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View").field("layout", &L::TEXT).field("len", &self.data.len()).finish()
    }
}

impl<'a, L: TypedLayout> View<'a, L> {
    /// A view of `data`, which must hold exactly [`StaticLayout::PADDED_LEN`] elements.
    ///
    /// ```
    /// use layout_runtime::fixed::View;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(View::<Fig1>::new(&[0.0; 24]).is_ok());
    /// assert!(View::<Fig1>::new(&[0.0; 25]).is_err());
    /// ```
    pub fn new(data: &'a [L::Elem]) -> Result<Self, LengthError> {
        check_len::<L>(data.len())?;
        Ok(View { data, layout: PhantomData })
    }

    /// The element at a logical index; `None` when it is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::View;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let view = View::<Fig1>::new(&[1.0; 24]).unwrap();
    /// assert_eq!((view.get([2, 4]), view.get([3, 4])), (Some(&1.0), None));
    /// ```
    #[inline]
    pub fn get(&self, index: L::Index) -> Option<&'a L::Elem> {
        self.data.get(L::default().checked_offset(index)?)
    }

    /// Writes the array into `row_major` in row-major order; see [`Buffer::unpack_into`].
    ///
    /// ```
    /// use layout_runtime::fixed::View;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let storage: Vec<f32> = (0..24).map(|o| o as f32).collect();
    /// let mut host = [0.0; 15];
    /// View::<Fig1>::new(&storage)?.unpack_into(&mut host)?;
    /// assert_eq!(host[..5], [0.0, 1.0, 4.0, 5.0, 8.0]); // row 0 of Figure 1
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn unpack_into(&self, row_major: &mut [L::Elem]) -> Result<(), LengthError> {
        unpack::<L>(self.data, row_major)
    }

    /// The storage, in memory order.
    ///
    /// ```
    /// use layout_runtime::fixed::View;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(View::<Fig1>::new(&[0.0; 24]).unwrap().as_slice().len(), 24);
    /// ```
    pub fn as_slice(&self) -> &'a [L::Elem] {
        self.data
    }
}

impl<L: TypedLayout> Index<L::Index> for View<'_, L> {
    type Output = L::Elem;

    #[inline]
    #[track_caller]
    fn index(&self, index: L::Index) -> &L::Elem {
        &self.data[L::default().offset(index)]
    }
}

/// Mutably borrowed storage in layout `L`; see [`View`].
///
/// ```
/// use layout_runtime::fixed::ViewMut;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let mut data = vec![0.0f32; 24];
/// ViewMut::<Fig1>::new(&mut data)?[[2, 3]] = 5.0;
/// assert_eq!(data[17], 5.0);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub struct ViewMut<'a, L: TypedLayout> {
    data: &'a mut [L::Elem],
    layout: PhantomData<L>,
}

impl<L: TypedLayout> fmt::Debug for ViewMut<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ViewMut").field("layout", &L::TEXT).field("len", &self.data.len()).finish()
    }
}

impl<'a, L: TypedLayout> ViewMut<'a, L> {
    /// A mutable view of `data`, which must hold exactly [`StaticLayout::PADDED_LEN`]
    /// elements.
    ///
    /// ```
    /// use layout_runtime::fixed::ViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(ViewMut::<Fig1>::new(&mut [0.0; 23]).is_err());
    /// ```
    pub fn new(data: &'a mut [L::Elem]) -> Result<Self, LengthError> {
        check_len::<L>(data.len())?;
        Ok(ViewMut { data, layout: PhantomData })
    }

    /// The element at a logical index, mutably; `None` when it is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::ViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut data = [0.0f32; 24];
    /// let mut view = ViewMut::<Fig1>::new(&mut data).unwrap();
    /// *view.get_mut([1, 0]).unwrap() = 2.0;
    /// assert_eq!(data[2], 2.0);
    /// ```
    #[inline]
    pub fn get_mut(&mut self, index: L::Index) -> Option<&mut L::Elem> {
        let offset = L::default().checked_offset(index)?;
        self.data.get_mut(offset)
    }

    /// Overwrites the storage with the row-major array `row_major`, padding zero; see
    /// [`Buffer::pack_from`]. On error the storage is untouched.
    ///
    /// ```
    /// use layout_runtime::fixed::ViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut storage = vec![9.0f32; 24];
    /// let host: Vec<f32> = (0..15).map(|k| k as f32).collect();
    /// ViewMut::<Fig1>::new(&mut storage)?.pack_from(&host)?;
    /// assert_eq!((storage[17], storage[9]), (13.0, 0.0)); // (2,3), and padding
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn pack_from(&mut self, row_major: &[L::Elem]) -> Result<(), LengthError> {
        pack::<L>(row_major, self.data)
    }

    /// A read-only view of the same storage.
    ///
    /// ```
    /// use layout_runtime::fixed::ViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut data = [1.0f32; 24];
    /// let view = ViewMut::<Fig1>::new(&mut data).unwrap();
    /// assert_eq!(view.as_view()[[0, 0]], 1.0);
    /// ```
    pub fn as_view(&self) -> View<'_, L> {
        View { data: self.data, layout: PhantomData }
    }
}

impl<L: TypedLayout> Index<L::Index> for ViewMut<'_, L> {
    type Output = L::Elem;

    #[inline]
    #[track_caller]
    fn index(&self, index: L::Index) -> &L::Elem {
        &self.data[L::default().offset(index)]
    }
}

impl<L: TypedLayout> IndexMut<L::Index> for ViewMut<'_, L> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: L::Index) -> &mut L::Elem {
        let offset = L::default().offset(index);
        &mut self.data[offset]
    }
}
