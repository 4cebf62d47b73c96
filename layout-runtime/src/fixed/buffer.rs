//! [`Buffer`]: typed storage for one array in a [`TypedLayout`], over any storage that is a
//! slice of elements of exactly the layout's length. Its four forms share every method:
//! [`Buffer`] on the stack, [`HeapBuffer`] on the heap, [`StaticView`] and [`StaticViewMut`] borrowed.

use core::fmt;
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

use super::{check_length, for_each_row_major, logical_len, Counted, LengthError};
use super::{InlineLayout, TiledLayout, Tiles, TilesMut, TypedLayout};
use crate::Element;

/// Storage held inline (an array on the stack, or wherever the buffer lives): the default
/// storage of [`Buffer`] and [`PackedBuffer`](super::PackedBuffer). A wrapper so that the
/// stack and heap forms are different types with their own constructors.
///
/// ```
/// use layout_runtime::fixed::{Buffer, Inline};
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let buf: Buffer<Fig1, Inline<[f32; 24]>> = Buffer::<Fig1>::zeroed();
/// assert_eq!(buf.as_slice().len(), 24);
/// ```
#[derive(Clone)]
pub struct Inline<A>(pub(super) A);

impl<A: AsRef<[T]>, T> AsRef<[T]> for Inline<A> {
    fn as_ref(&self) -> &[T] {
        self.0.as_ref()
    }
}

impl<A: AsMut<[T]>, T> AsMut<[T]> for Inline<A> {
    fn as_mut(&mut self) -> &mut [T] {
        self.0.as_mut()
    }
}

/// Typed storage for one array in layout `L`: exactly [`StaticLayout::PADDED_LEN`](super::StaticLayout::PADDED_LEN) elements,
/// padding included, addressed by logical index. `buf[[i, j]]` checks the index against `L`'s
/// dimensions and computes the offset with `L`'s constants (shifts and masks for
/// power-of-two tiles).
///
/// Which form to use:
///
/// | form | storage | for |
/// |---|---|---|
/// | `Buffer<L>` | `[L::Elem; PADDED_LEN]` inline (on the stack) | small arrays (at most 1 MiB: an [`InlineLayout`]), `no_std` without `alloc`; `Buffer::zeroed` is `const` |
/// | [`HeapBuffer<L>`] | [`AlignedBox<L::Elem>`](crate::AlignedBox), zeroed in place, from a 64-byte boundary | any size (a large array on the stack overflows it) |
/// | [`StaticView<'a, L>`] | `&'a [L::Elem]` | storage someone else owns (a device buffer, a `Vec`) |
/// | [`StaticViewMut<'a, L>`] | `&'a mut [L::Elem]` | the same, writable |
///
/// All four have the same indexing, `get`, `pack_from` / `unpack_into`, `view` / `view_mut`,
/// `bits`, and (for a [`TiledLayout`]) `tiles`. A `Buffer` is `Clone` but not `Copy`: a copy
/// of a large array is always written out. Name the layout when making one
/// (`Buffer::<L>::zeroed()`, `HeapBuffer::<L>::zeroed()`): a bare `Buffer::zeroed()` could be
/// either form.
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
pub struct Buffer<L: TypedLayout, S = Inline<<L as TypedLayout>::Storage>> {
    storage: S,
    layout: PhantomData<L>,
}

/// A [`Buffer`] on the heap, for arrays of any size: allocated zeroed, never built on the
/// stack first, starting on a 64-byte boundary (a cache line, where relayout's streaming
/// stores are fastest: see [`AlignedBox`](crate::AlignedBox)).
///
/// ```
/// use layout_runtime::fixed::HeapBuffer;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let mut buf = HeapBuffer::<Fig1>::zeroed();
/// buf[[2, 3]] = 1.0;
/// assert_eq!(buf.as_slice()[17], 1.0);
/// assert_eq!(buf.as_slice().as_ptr() as usize % 64, 0);
/// ```
#[cfg(feature = "alloc")]
pub type HeapBuffer<L> = Buffer<L, crate::AlignedBox<<L as TypedLayout>::Elem>>;

/// A [`Buffer`] over a borrowed slice, checked once for its length when made.
///
/// ```
/// use layout_runtime::fixed::StaticView;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let data: Vec<f32> = (0..24).map(|o| o as f32).collect();
/// let view = StaticView::<Fig1>::new(&data)?;
/// assert_eq!(view[[2, 3]], 17.0);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub type StaticView<'a, L> = Buffer<L, &'a [<L as TypedLayout>::Elem]>;

/// A [`Buffer`] over a mutably borrowed slice; see [`StaticView`].
///
/// ```
/// use layout_runtime::fixed::StaticViewMut;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let mut data = vec![0.0f32; 24];
/// StaticViewMut::<Fig1>::new(&mut data)?[[2, 3]] = 5.0;
/// assert_eq!(data[17], 5.0);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub type StaticViewMut<'a, L> = Buffer<L, &'a mut [<L as TypedLayout>::Elem]>;

impl<L: TypedLayout, S: Clone> Clone for Buffer<L, S> {
    fn clone(&self) -> Self {
        Buffer { storage: self.storage.clone(), layout: PhantomData }
    }
}

impl<L: TypedLayout> Copy for Buffer<L, &[L::Elem]> {}

impl<L: TypedLayout, S: AsRef<[L::Elem]>> fmt::Debug for Buffer<L, S>
where
    L::Elem: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Buffer")
            .field("layout", &L::TEXT)
            .field("storage", &self.storage.as_ref())
            .finish()
    }
}

impl<L: TypedLayout + InlineLayout> Default for Buffer<L> {
    fn default() -> Self {
        Self::zeroed()
    }
}

/// The inline form is made only for an [`InlineLayout`] (at most 1 MiB of storage): the
/// bound is on each constructor, so that `Buffer::<L>::zeroed()` of a larger layout is one
/// error at the call, naming [`HeapBuffer`].
impl<L: TypedLayout> Buffer<L> {
    /// A buffer of zero elements (padding included), on the stack. `const`, for statics.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// static ZEROS: Buffer<Fig1> = Buffer::<Fig1>::zeroed();
    /// assert!(ZEROS.as_slice().iter().all(|&x| x == 0.0));
    /// ```
    pub const fn zeroed() -> Self
    where
        L: InlineLayout,
    {
        Buffer { storage: Inline(L::ZEROED), layout: PhantomData }
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
    pub const fn from_storage(storage: L::Storage) -> Self
    where
        L: InlineLayout,
    {
        Buffer { storage: Inline(storage), layout: PhantomData }
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
    /// let buf = Buffer::<Fig1>::from_row_major(&host)?;
    /// assert_eq!(buf[[2, 3]], 13.0);
    /// assert_eq!(buf.as_slice()[..6], [0.0, 1.0, 5.0, 6.0, 2.0, 3.0]);
    /// assert!(Buffer::<Fig1>::from_row_major(&host[1..]).is_err());
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn from_row_major(row_major: &[L::Elem]) -> Result<Self, LengthError>
    where
        L: InlineLayout,
    {
        let mut buf = Self::zeroed();
        buf.pack_from(row_major)?;
        Ok(buf)
    }

    /// The storage, giving up the buffer.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let raw: [f32; 24] = Buffer::<Fig1>::zeroed().into_storage();
    /// assert_eq!(raw, [0.0; 24]);
    /// ```
    pub fn into_storage(self) -> L::Storage {
        self.storage.0
    }
}

#[cfg(feature = "alloc")]
impl<L: TypedLayout> Default for HeapBuffer<L> {
    fn default() -> Self {
        Self::zeroed()
    }
}

#[cfg(feature = "alloc")]
impl<L: TypedLayout> HeapBuffer<L> {
    /// A buffer of zero elements on the heap, allocated zeroed (no copy of the array passes
    /// through the stack, whatever its size).
    ///
    /// ```
    /// use layout_runtime::fixed::HeapBuffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(HeapBuffer::<Fig1>::zeroed().as_slice().iter().all(|&x| x == 0.0));
    /// ```
    pub fn zeroed() -> Self {
        Buffer { storage: crate::AlignedBox::zeroed(L::PADDED_LEN), layout: PhantomData }
    }

    /// A heap buffer holding the row-major array `row_major`; see [`Buffer::from_row_major`].
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::HeapBuffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let host: Vec<f32> = (0..15).map(|k| k as f32).collect();
    /// assert_eq!(HeapBuffer::<Fig1>::from_row_major(&host)?[[2, 3]], 13.0);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn from_row_major(row_major: &[L::Elem]) -> Result<Self, LengthError> {
        let mut buf = Self::zeroed();
        buf.pack_from(row_major)?;
        Ok(buf)
    }

    /// A heap buffer holding `storage`, which must hold exactly
    /// [`StaticLayout::PADDED_LEN`](super::StaticLayout::PADDED_LEN) elements in memory order
    /// (copied to a 64-byte boundary).
    ///
    /// Errors: `storage` has another length.
    ///
    /// ```
    /// use layout_runtime::fixed::HeapBuffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let buf = HeapBuffer::<Fig1>::from_boxed(vec![1.0; 24].into_boxed_slice())?;
    /// assert_eq!(buf[[2, 4]], 1.0);
    /// assert!(HeapBuffer::<Fig1>::from_boxed(vec![1.0; 23].into_boxed_slice()).is_err());
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn from_boxed(storage: alloc::boxed::Box<[L::Elem]>) -> Result<Self, LengthError> {
        check_length::<L>(Counted::Storage, L::PADDED_LEN, storage.len())?;
        Ok(Buffer { storage: crate::AlignedBox::from_slice(&storage), layout: PhantomData })
    }

    /// The storage as a `Box` (a copy), giving up the buffer.
    ///
    /// ```
    /// use layout_runtime::fixed::HeapBuffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(HeapBuffer::<Fig1>::zeroed().into_boxed().len(), 24);
    /// ```
    pub fn into_boxed(self) -> alloc::boxed::Box<[L::Elem]> {
        self.storage[..].into()
    }
}

impl<'a, L: TypedLayout> StaticView<'a, L> {
    /// A view of `data`, which must hold exactly [`StaticLayout::PADDED_LEN`](super::StaticLayout::PADDED_LEN) elements.
    ///
    /// Errors: `data` has another length.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticView;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(StaticView::<Fig1>::new(&[0.0; 24]).is_ok());
    /// assert!(StaticView::<Fig1>::new(&[0.0; 25]).is_err());
    /// ```
    pub fn new(data: &'a [L::Elem]) -> Result<Self, LengthError> {
        check_length::<L>(Counted::Storage, L::PADDED_LEN, data.len())?;
        Ok(Buffer { storage: data, layout: PhantomData })
    }

    /// The storage, in memory order, for as long as the borrowed slice lives.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticView;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let data = [2.0f32; 24];
    /// let slice: &[f32] = StaticView::<Fig1>::new(&data).unwrap().into_slice();
    /// assert_eq!(slice.len(), 24);
    /// ```
    pub fn into_slice(self) -> &'a [L::Elem] {
        self.storage
    }
}

impl<'a, L: TypedLayout> StaticViewMut<'a, L> {
    /// A mutable view of `data`, which must hold exactly [`StaticLayout::PADDED_LEN`](super::StaticLayout::PADDED_LEN)
    /// elements.
    ///
    /// Errors: `data` has another length.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert!(StaticViewMut::<Fig1>::new(&mut [0.0; 23]).is_err());
    /// ```
    pub fn new(data: &'a mut [L::Elem]) -> Result<Self, LengthError> {
        check_length::<L>(Counted::Storage, L::PADDED_LEN, data.len())?;
        Ok(Buffer { storage: data, layout: PhantomData })
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]>> Buffer<L, S> {
    /// The storage, in memory order, padding included.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(Buffer::<Fig1>::zeroed().as_slice().len(), 24);
    /// ```
    #[inline]
    pub fn as_slice(&self) -> &[L::Elem] {
        self.storage.as_ref()
    }

    /// The element at a logical index; `None` when the index is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(Buffer::<Fig1>::zeroed().get([2, 5]), None);
    /// ```
    #[inline]
    pub fn get(&self, index: L::Index) -> Option<&L::Elem> {
        self.as_slice().get(L::LAYOUT.checked_offset(index)?)
    }

    /// Writes the array into `row_major` in row-major order (last index fastest).
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticView;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let storage: Vec<f32> = (0..24).map(|o| o as f32).collect();
    /// let mut host = [0.0; 15];
    /// StaticView::<Fig1>::new(&storage)?.unpack_into(&mut host)?;
    /// assert_eq!(host[..5], [0.0, 1.0, 4.0, 5.0, 8.0]); // row 0 of Figure 1
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn unpack_into(&self, row_major: &mut [L::Elem]) -> Result<(), LengthError> {
        check_length::<L>(Counted::RowMajor, logical_len::<L>(), row_major.len())?;
        let storage = self.as_slice();
        for_each_row_major::<L>(|k, offset| row_major[k] = storage[offset]);
        Ok(())
    }

    /// A borrowed view of the same storage.
    ///
    /// ```
    /// use layout_runtime::fixed::{Buffer, StaticView};
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// fn first(v: StaticView<'_, Fig1>) -> f32 {
    ///     v[[0, 0]]
    /// }
    /// let buf = Buffer::<Fig1>::from_storage([1.0; 24]);
    /// assert_eq!(first(buf.view()), 1.0);
    /// ```
    #[inline]
    pub fn view(&self) -> StaticView<'_, L> {
        Buffer { storage: self.as_slice(), layout: PhantomData }
    }

    /// The raw bits of the storage, one [`Element::Bits`] per element (`u16` for `bf16`, `u8`
    /// for `bool`).
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// buf[[0, 0]] = 1.0;
    /// assert_eq!(buf.bits()[0], 0x3f80_0000);
    /// ```
    #[inline]
    pub fn bits(&self) -> &[<L::Elem as Element>::Bits] {
        // Element types and their bits have the same size, and bits accept any pattern.
        bytemuck::cast_slice(self.as_slice())
    }

    /// The tiles, in memory order: each a [`StaticView`] of the tile's own layout with its logical
    /// origin.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let buf = Buffer::<Fig1>::from_storage(core::array::from_fn(|o| o as f32));
    /// let origins: Vec<[usize; 2]> = buf.tiles().map(|t| t.origin).collect();
    /// assert_eq!(origins, [[0, 0], [0, 2], [0, 4], [2, 0], [2, 2], [2, 4]]);
    /// let last = buf.tiles().last().unwrap();
    /// assert_eq!(last.view[[0, 0]], 20.0); // element (2,4), offset 20
    /// ```
    pub fn tiles(&self) -> Tiles<'_, L>
    where
        L: TiledLayout,
    {
        Tiles::new(self.as_slice())
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]> + AsMut<[L::Elem]>> Buffer<L, S> {
    /// The storage, in memory order, mutably.
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// buf.as_mut_slice()[17] = 3.0;
    /// assert_eq!(buf[[2, 3]], 3.0);
    /// ```
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [L::Elem] {
        self.storage.as_mut()
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
        let offset = L::LAYOUT.checked_offset(index)?;
        self.as_mut_slice().get_mut(offset)
    }

    /// Overwrites the storage with the row-major array `row_major` (last index fastest);
    /// padding becomes zero. On error the storage is untouched.
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticViewMut;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut storage = vec![9.0f32; 24];
    /// let host: Vec<f32> = (0..15).map(|k| k as f32).collect();
    /// StaticViewMut::<Fig1>::new(&mut storage)?.pack_from(&host)?;
    /// assert_eq!((storage[17], storage[9]), (13.0, 0.0)); // (2,3), and padding
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn pack_from(&mut self, row_major: &[L::Elem]) -> Result<(), LengthError> {
        check_length::<L>(Counted::RowMajor, logical_len::<L>(), row_major.len())?;
        let storage = self.as_mut_slice();
        if logical_len::<L>() < L::PADDED_LEN {
            storage.fill(L::Elem::ZERO);
        }
        for_each_row_major::<L>(|k, offset| storage[offset] = row_major[k]);
        Ok(())
    }

    /// A mutably borrowed view of the same storage.
    ///
    /// ```
    /// use layout_runtime::fixed::{HeapBuffer, StaticViewMut};
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// fn set_corner(mut v: StaticViewMut<'_, Fig1>) {
    ///     v[[2, 4]] = 7.0;
    /// }
    /// let mut buf = HeapBuffer::<Fig1>::zeroed();
    /// set_corner(buf.view_mut());
    /// assert_eq!(buf[[2, 4]], 7.0);
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> StaticViewMut<'_, L> {
        Buffer { storage: self.as_mut_slice(), layout: PhantomData }
    }

    /// The raw bits of the storage, writable; for element types where every bit pattern is
    /// a value (all but `bool`).
    ///
    /// ```
    /// use layout_runtime::fixed::Buffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = Buffer::<Fig1>::zeroed();
    /// buf.bits_mut()[17] = 0xbf80_0000;
    /// assert_eq!(buf[[2, 3]], -1.0);
    /// ```
    #[inline]
    pub fn bits_mut(&mut self) -> &mut [<L::Elem as Element>::Bits]
    where
        L::Elem: bytemuck::Pod,
    {
        bytemuck::cast_slice_mut(self.as_mut_slice())
    }

    /// The tiles, in memory order, each writable; see [`Buffer::tiles`].
    ///
    /// ```
    /// use layout_runtime::fixed::HeapBuffer;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let mut buf = HeapBuffer::<Fig1>::zeroed();
    /// for mut tile in buf.tiles_mut() {
    ///     let [i, j] = tile.origin;
    ///     tile.view[[0, 0]] = (10 * i + j) as f32; // each tile's first element
    /// }
    /// assert_eq!((buf[[2, 4]], buf[[0, 2]], buf[[1, 1]]), (24.0, 2.0, 0.0));
    /// ```
    pub fn tiles_mut(&mut self) -> TilesMut<'_, L>
    where
        L: TiledLayout,
    {
        TilesMut::new(self.as_mut_slice())
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]>> Index<L::Index> for Buffer<L, S> {
    type Output = L::Elem;

    /// The element at a logical index; panics when it is out of range.
    #[inline]
    #[track_caller]
    fn index(&self, index: L::Index) -> &L::Elem {
        &self.as_slice()[L::LAYOUT.offset(index)]
    }
}

impl<L: TypedLayout, S: AsRef<[L::Elem]> + AsMut<[L::Elem]>> IndexMut<L::Index> for Buffer<L, S> {
    #[inline]
    #[track_caller]
    fn index_mut(&mut self, index: L::Index) -> &mut L::Elem {
        let offset = L::LAYOUT.offset(index);
        &mut self.as_mut_slice()[offset]
    }
}
