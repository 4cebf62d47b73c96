//! [`PackedBuffer`]: storage for one array in a [`PackedLayout`], whose sub-byte elements
//! sit `8 / n` to a byte (or across bytes, for 6-bit ones) as XLA packs them: element `k`
//! occupies bits `[k·n, (k+1)·n)` of the little-endian bit stream, the first element in the
//! low bits (`xla/packing.cc`; the same order as [`read_packed`](crate::read_packed)). One
//! element is read or written with a shift and a mask.

use core::fmt;
use core::marker::PhantomData;

use super::{check_length, for_each_row_major, logical_len, Counted, LengthError};
use super::{Inline, InlineLayout, PackedLayout};
use crate::SubByte;

/// The byte holding element `offset`'s low bit, and that bit's position in it.
#[inline(always)]
fn locate<E: SubByte>(offset: usize) -> (usize, u32) {
    if 8 % E::BITS == 0 {
        // Whole elements per byte: a shift and a mask, never a division.
        let per_byte = (8 / E::BITS) as usize;
        (offset / per_byte, (offset % per_byte) as u32 * E::BITS)
    } else {
        // 6-bit elements: the bit index, in 64 bits so that it cannot overflow.
        let bit = offset as u64 * u64::from(E::BITS);
        ((bit / 8) as usize, (bit % 8) as u32)
    }
}

/// Element `offset` of a packed stream.
#[inline(always)]
fn load<E: SubByte>(bytes: &[u8], offset: usize) -> E {
    let (byte, shift) = locate::<E>(offset);
    let mut word = u16::from(bytes[byte]);
    if shift + E::BITS > 8 {
        word |= u16::from(bytes[byte + 1]) << 8;
    }
    E::from_packed((word >> shift) as u8)
}

/// Replaces element `offset` of a packed stream, leaving every other bit as it was.
#[inline(always)]
fn store<E: SubByte>(bytes: &mut [u8], offset: usize, value: E) {
    let (byte, shift) = locate::<E>(offset);
    let mask = ((1u16 << E::BITS) - 1) << shift;
    let bits = (u16::from(value.to_packed()) << shift) & mask;
    bytes[byte] = (bytes[byte] & !(mask as u8)) | bits as u8;
    if shift + E::BITS > 8 {
        bytes[byte + 1] = (bytes[byte + 1] & !((mask >> 8) as u8)) | (bits >> 8) as u8;
    }
}

/// Storage for one array in a [`PackedLayout`]: exactly [`StaticLayout::BYTE_LEN`](super::StaticLayout::BYTE_LEN) bytes,
/// elements packed as XLA packs them, read and written by logical index with
/// [`get`](PackedBuffer::get) / [`set`](PackedBuffer::set) (a packed element has no address,
/// so there is no `&T` and no `buf[[i, j]]`). Signed elements come back sign-extended.
///
/// The forms are [`Buffer`](super::Buffer)'s: `PackedBuffer<L>` inline (on the stack),
/// [`PackedHeapBuffer<L>`] on the heap, [`PackedView`] and [`PackedViewMut`] over borrowed
/// bytes; the same methods on all four.
///
/// ```
/// use layout_runtime::fixed::PackedBuffer;
/// use layout_runtime::U4;
/// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
/// // Nibbles is `layout! { struct Nibbles = u4[4,4]{1,0:E(4)}; }`: two elements a byte.
/// let mut buf = PackedBuffer::<Nibbles>::zeroed();
/// buf.set([0, 1], U4::new(9).unwrap());
/// buf.set([3, 3], U4::MAX);
/// assert_eq!(buf.get([0, 1]), Some(U4::new(9).unwrap()));
/// assert_eq!(buf.as_bytes()[0], 0x90); // element 1 in the high nibble of byte 0
/// assert_eq!(buf.as_bytes()[7], 0xf0);
/// assert_eq!(buf.get([4, 0]), None);
/// ```
pub struct PackedBuffer<L: PackedLayout, S = Inline<<L as PackedLayout>::Storage>> {
    storage: S,
    layout: PhantomData<L>,
}

/// A [`PackedBuffer`] on the heap, for arrays of any size.
///
/// ```
/// use layout_runtime::fixed::PackedHeapBuffer;
/// use layout_runtime::U4;
/// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
/// let mut buf = PackedHeapBuffer::<Nibbles>::zeroed();
/// buf.set([1, 0], U4::new(3).unwrap());
/// assert_eq!(buf.as_bytes()[2], 0x03);
/// ```
#[cfg(feature = "alloc")]
pub type PackedHeapBuffer<L> = PackedBuffer<L, alloc::boxed::Box<[u8]>>;

/// A [`PackedBuffer`] over borrowed bytes, checked once for their length when made.
///
/// ```
/// use layout_runtime::fixed::PackedView;
/// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
/// let bytes = [0x21, 0x43, 0, 0, 0, 0, 0, 0xf0];
/// let view = PackedView::<Nibbles>::new(&bytes)?;
/// assert_eq!(view.read([0, 3]).get(), 4);
/// assert_eq!(view.read([3, 3]).get(), 15);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub type PackedView<'a, L> = PackedBuffer<L, &'a [u8]>;

/// A [`PackedBuffer`] over mutably borrowed bytes; see [`PackedView`].
///
/// ```
/// use layout_runtime::fixed::PackedViewMut;
/// use layout_runtime::U4;
/// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
/// let mut bytes = [0xffu8; 8];
/// PackedViewMut::<Nibbles>::new(&mut bytes)?.set([0, 0], U4::ZERO);
/// assert_eq!(bytes[0], 0xf0);
/// # Ok::<(), layout_runtime::fixed::LengthError>(())
/// ```
pub type PackedViewMut<'a, L> = PackedBuffer<L, &'a mut [u8]>;

impl<L: PackedLayout, S: Clone> Clone for PackedBuffer<L, S> {
    fn clone(&self) -> Self {
        PackedBuffer { storage: self.storage.clone(), layout: PhantomData }
    }
}

impl<L: PackedLayout> Copy for PackedBuffer<L, &[u8]> {}

impl<L: PackedLayout, S: AsRef<[u8]>> fmt::Debug for PackedBuffer<L, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackedBuffer")
            .field("layout", &L::TEXT)
            .field("bytes", &self.storage.as_ref())
            .finish()
    }
}

impl<L: PackedLayout + InlineLayout> Default for PackedBuffer<L> {
    fn default() -> Self {
        Self::zeroed()
    }
}

/// As [`Buffer`](super::Buffer)'s: made only for an [`InlineLayout`] (at most 1 MiB).
impl<L: PackedLayout> PackedBuffer<L> {
    /// A buffer of zero bytes, on the stack. `const`, for statics.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert_eq!(PackedBuffer::<Nibbles>::zeroed().as_bytes(), [0; 8]);
    /// ```
    pub const fn zeroed() -> Self
    where
        L: InlineLayout,
    {
        PackedBuffer { storage: Inline(<L as PackedLayout>::ZEROED), layout: PhantomData }
    }

    /// A buffer holding `storage`, packed bytes in memory order.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let buf = PackedBuffer::<Nibbles>::from_storage([0x10, 0, 0, 0, 0, 0, 0, 0]);
    /// assert_eq!(buf.read([0, 1]).get(), 1);
    /// ```
    pub const fn from_storage(storage: <L as PackedLayout>::Storage) -> Self
    where
        L: InlineLayout,
    {
        PackedBuffer { storage: Inline(storage), layout: PhantomData }
    }

    /// A buffer holding the row-major array `row_major`, packed in `L`; padding is zero.
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let host: Vec<U4> = (0..16).map(|k| U4::new(k).unwrap()).collect();
    /// let buf = PackedBuffer::<Nibbles>::from_row_major(&host)?;
    /// assert_eq!(buf.as_bytes(), [0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe]);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn from_row_major(row_major: &[<L as PackedLayout>::Elem]) -> Result<Self, LengthError>
    where
        L: InlineLayout,
    {
        let mut buf = Self::zeroed();
        buf.pack_from(row_major)?;
        Ok(buf)
    }

    /// The packed bytes, giving up the buffer.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert_eq!(PackedBuffer::<Nibbles>::zeroed().into_storage(), [0; 8]);
    /// ```
    pub fn into_storage(self) -> <L as PackedLayout>::Storage {
        self.storage.0
    }
}

#[cfg(feature = "alloc")]
impl<L: PackedLayout> Default for PackedHeapBuffer<L> {
    fn default() -> Self {
        Self::zeroed()
    }
}

#[cfg(feature = "alloc")]
impl<L: PackedLayout> PackedHeapBuffer<L> {
    /// A buffer of zero bytes on the heap, allocated zeroed.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedHeapBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert_eq!(PackedHeapBuffer::<Nibbles>::zeroed().as_bytes(), [0; 8]);
    /// ```
    pub fn zeroed() -> Self {
        let storage = alloc::vec![0u8; L::BYTE_LEN].into_boxed_slice();
        PackedBuffer { storage, layout: PhantomData }
    }

    /// A heap buffer holding the row-major array `row_major`; see
    /// [`PackedBuffer::from_row_major`].
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedHeapBuffer;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let host = [U4::MAX; 16];
    /// assert_eq!(PackedHeapBuffer::<Nibbles>::from_row_major(&host)?.as_bytes(), [0xff; 8]);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn from_row_major(row_major: &[<L as PackedLayout>::Elem]) -> Result<Self, LengthError> {
        let mut buf = Self::zeroed();
        buf.pack_from(row_major)?;
        Ok(buf)
    }
}

impl<'a, L: PackedLayout> PackedView<'a, L> {
    /// A view of `bytes`, which must hold exactly [`StaticLayout::BYTE_LEN`](super::StaticLayout::BYTE_LEN) bytes.
    ///
    /// Errors: `bytes` has another length.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedView;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let e = PackedView::<Nibbles>::new(&[0; 16]).unwrap_err();
    /// assert_eq!(e.to_string(), "the slice has 16 bytes; the packed layout u4[4,4]{1,0:E(4)} stores 8");
    /// ```
    pub fn new(bytes: &'a [u8]) -> Result<Self, LengthError> {
        check_length::<L>(Counted::Bytes, L::BYTE_LEN, bytes.len())?;
        Ok(PackedBuffer { storage: bytes, layout: PhantomData })
    }
}

impl<'a, L: PackedLayout> PackedViewMut<'a, L> {
    /// A mutable view of `bytes`, which must hold exactly [`StaticLayout::BYTE_LEN`](super::StaticLayout::BYTE_LEN) bytes.
    ///
    /// Errors: `bytes` has another length.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedViewMut;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert!(PackedViewMut::<Nibbles>::new(&mut [0; 7]).is_err());
    /// ```
    pub fn new(bytes: &'a mut [u8]) -> Result<Self, LengthError> {
        check_length::<L>(Counted::Bytes, L::BYTE_LEN, bytes.len())?;
        Ok(PackedBuffer { storage: bytes, layout: PhantomData })
    }
}

impl<L: PackedLayout, S: AsRef<[u8]>> PackedBuffer<L, S> {
    /// The packed bytes, in memory order.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert_eq!(PackedBuffer::<Nibbles>::zeroed().as_bytes().len(), 8);
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.storage.as_ref()
    }

    /// The element at a logical index; `None` when the index is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedView;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let bytes = [0x21u8, 0, 0, 0, 0, 0, 0, 0];
    /// let view = PackedView::<Nibbles>::new(&bytes).unwrap();
    /// assert_eq!(view.get([0, 1]).map(|x| x.get()), Some(2));
    /// assert_eq!(view.get([0, 4]), None);
    /// ```
    #[inline]
    pub fn get(&self, index: L::Index) -> Option<<L as PackedLayout>::Elem> {
        let offset = L::LAYOUT.checked_offset(index)?;
        Some(load(self.as_bytes(), offset))
    }

    /// The element at a logical index; panics when the index is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// assert_eq!(PackedBuffer::<Nibbles>::zeroed().read([3, 3]).get(), 0);
    /// ```
    #[inline]
    #[track_caller]
    pub fn read(&self, index: L::Index) -> <L as PackedLayout>::Elem {
        load(self.as_bytes(), L::LAYOUT.offset(index))
    }

    /// Writes the array into `row_major` in row-major order (last index fastest).
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedView;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let bytes = [0x10u8, 0x32, 0, 0, 0, 0, 0, 0];
    /// let mut host = [U4::ZERO; 16];
    /// PackedView::<Nibbles>::new(&bytes)?.unpack_into(&mut host)?;
    /// assert_eq!(host[..4].iter().map(|x| x.get()).collect::<Vec<_>>(), [0, 1, 2, 3]);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn unpack_into(
        &self,
        row_major: &mut [<L as PackedLayout>::Elem],
    ) -> Result<(), LengthError> {
        check_length::<L>(Counted::RowMajor, logical_len::<L>(), row_major.len())?;
        let bytes = self.as_bytes();
        for_each_row_major::<L>(|k, offset| row_major[k] = load(bytes, offset));
        Ok(())
    }

    /// A borrowed view of the same bytes.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let buf = PackedBuffer::<Nibbles>::from_storage([0xff; 8]);
    /// assert_eq!(buf.view().read([2, 2]).get(), 15);
    /// ```
    #[inline]
    pub fn view(&self) -> PackedView<'_, L> {
        PackedBuffer { storage: self.as_bytes(), layout: PhantomData }
    }
}

impl<L: PackedLayout, S: AsRef<[u8]> + AsMut<[u8]>> PackedBuffer<L, S> {
    /// The packed bytes, mutably.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let mut buf = PackedBuffer::<Nibbles>::zeroed();
    /// buf.as_mut_bytes()[0] = 0x0f;
    /// assert_eq!(buf.read([0, 0]).get(), 15);
    /// ```
    #[inline]
    pub fn as_mut_bytes(&mut self) -> &mut [u8] {
        self.storage.as_mut()
    }

    /// Writes the element at a logical index, leaving every other element as it was; panics
    /// when the index is out of range (as `buf[[i, j]] = x` does for a [`Buffer`](super::Buffer)).
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let mut buf = PackedBuffer::<Nibbles>::from_storage([0xff; 8]);
    /// buf.set([0, 1], U4::new(2).unwrap());
    /// assert_eq!(buf.as_bytes()[0], 0x2f);
    /// ```
    #[inline]
    #[track_caller]
    pub fn set(&mut self, index: L::Index, value: <L as PackedLayout>::Elem) {
        let offset = L::LAYOUT.offset(index);
        store(self.as_mut_bytes(), offset, value);
    }

    /// Writes the element at a logical index and returns the one it replaces; `None` (and no
    /// write) when the index is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedBuffer;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let mut buf = PackedBuffer::<Nibbles>::zeroed();
    /// assert_eq!(buf.replace([1, 1], U4::MAX), Some(U4::ZERO));
    /// assert_eq!(buf.replace([1, 1], U4::ZERO), Some(U4::MAX));
    /// assert_eq!(buf.replace([9, 9], U4::MAX), None);
    /// ```
    #[inline]
    pub fn replace(
        &mut self,
        index: L::Index,
        value: <L as PackedLayout>::Elem,
    ) -> Option<<L as PackedLayout>::Elem> {
        let offset = L::LAYOUT.checked_offset(index)?;
        let bytes = self.as_mut_bytes();
        let old = load(bytes, offset);
        store(bytes, offset, value);
        Some(old)
    }

    /// Overwrites the bytes with the row-major array `row_major`, packed; padding and unused
    /// bits become zero. On error the bytes are untouched.
    ///
    /// Errors: `row_major` does not have exactly one element per logical index.
    ///
    /// ```
    /// use layout_runtime::fixed::PackedViewMut;
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// let mut bytes = [0xaau8; 8];
    /// let host = [U4::new(1).unwrap(); 16];
    /// PackedViewMut::<Nibbles>::new(&mut bytes)?.pack_from(&host)?;
    /// assert_eq!(bytes, [0x11; 8]);
    /// # Ok::<(), layout_runtime::fixed::LengthError>(())
    /// ```
    pub fn pack_from(
        &mut self,
        row_major: &[<L as PackedLayout>::Elem],
    ) -> Result<(), LengthError> {
        check_length::<L>(Counted::RowMajor, logical_len::<L>(), row_major.len())?;
        let bytes = self.as_mut_bytes();
        bytes.fill(0);
        for_each_row_major::<L>(|k, offset| store(bytes, offset, row_major[k]));
        Ok(())
    }

    /// A mutably borrowed view of the same bytes.
    ///
    /// ```
    /// use layout_runtime::fixed::{PackedHeapBuffer, PackedViewMut};
    /// use layout_runtime::U4;
    /// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
    /// fn one(mut v: PackedViewMut<'_, Nibbles>) {
    ///     v.set([0, 0], U4::new(1).unwrap());
    /// }
    /// let mut buf = PackedHeapBuffer::<Nibbles>::zeroed();
    /// one(buf.view_mut());
    /// assert_eq!(buf.as_bytes()[0], 1);
    /// ```
    #[inline]
    pub fn view_mut(&mut self) -> PackedViewMut<'_, L> {
        PackedBuffer { storage: self.as_mut_bytes(), layout: PhantomData }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{F6e2m3fn, S2, S4};

    /// Element by element against the runtime's general bit reader and writer.
    fn agrees_with_read_packed<E: SubByte + PartialEq + fmt::Debug>(values: &[E]) {
        let n = values.len();
        let mut bytes = alloc::vec![0u8; (n * E::BITS as usize).div_ceil(8)];
        for (k, &v) in values.iter().enumerate() {
            store(&mut bytes, k, v);
        }
        for (k, &v) in values.iter().enumerate() {
            assert_eq!(load::<E>(&bytes, k), v);
            let bits = crate::read_packed(&bytes, k, E::BITS).unwrap();
            assert_eq!(bits, u64::from(v.to_packed()), "element {k}");
        }
        let mut theirs = alloc::vec![0u8; bytes.len()];
        for (k, &v) in values.iter().enumerate() {
            crate::write_packed(&mut theirs, k, E::BITS, u64::from(v.to_packed())).unwrap();
        }
        assert_eq!(bytes, theirs);
    }

    #[test]
    fn loads_and_stores_agree_with_read_and_write_packed() {
        let s4: alloc::vec::Vec<S4> = (0..37u8).map(|k| S4::wrapping((k * 5) as i8)).collect();
        agrees_with_read_packed(&s4);
        let s2: alloc::vec::Vec<S2> = (0..37).map(|k| S2::wrapping(k as i8)).collect();
        agrees_with_read_packed(&s2);
        let pred: alloc::vec::Vec<bool> = (0..37).map(|k| k % 3 == 0).collect();
        agrees_with_read_packed(&pred);
        let f6: alloc::vec::Vec<F6e2m3fn> = (0..37).map(|k| F6e2m3fn::from_bits(k * 7)).collect();
        agrees_with_read_packed(&f6);
    }

    #[test]
    fn six_bit_elements_cross_bytes_and_keep_their_neighbours() {
        let mut bytes = [0xffu8; 3]; // four 6-bit elements
        store(&mut bytes, 1, F6e2m3fn::from_bits(0)); // bits 6..12
        assert_eq!(bytes, [0x3f, 0xf0, 0xff]);
        assert_eq!(load::<F6e2m3fn>(&bytes, 1).to_bits(), 0);
        assert_eq!(load::<F6e2m3fn>(&bytes, 2).to_bits(), 0x3f);
        assert_eq!(load::<S4>(&[0x8f], 1).get(), -8);
    }
}
