//! The traits of a layout fixed at compile time, and what they are made of. What `layout!`
//! writes per layout is only what differs between layouts: one value of [`Constants`] (with
//! the inverse index program as data), the offset arithmetic, and the storage types; every other item comes from the defaults here,
//! written once.

use core::fmt;

use super::inverse::{index_of_program, Inverse};
use crate::{Element, PrimitiveType, SubByte, TileDim};

/// A logical index of a static layout: `[usize; RANK]`, for every rank.
///
/// ```
/// use layout_runtime::fixed::LogicalIndex;
/// assert_eq!(<[usize; 3]>::ZERO, [0, 0, 0]);
/// ```
pub trait LogicalIndex:
    Copy
    + fmt::Debug
    + PartialEq
    + Eq
    + core::hash::Hash
    + AsRef<[usize]>
    + AsMut<[usize]>
    + for<'a> TryFrom<&'a [usize]>
    + Send
    + Sync
    + 'static
{
    /// The index of all zeros.
    const ZERO: Self;
}

impl<const N: usize> LogicalIndex for [usize; N] {
    const ZERO: Self = [0; N];
}

/// Inline storage: an array of elements, `[Item; N]`, with its all-zero value.
///
/// ```
/// use layout_runtime::fixed::StorageArray;
/// assert_eq!(<[f32; 4] as StorageArray>::ZEROED, [0.0; 4]);
/// ```
pub trait StorageArray:
    Copy + Send + Sync + 'static + AsRef<[Self::Item]> + AsMut<[Self::Item]>
{
    /// One element of storage.
    type Item: Element;
    /// Every element zero (every bit, for the element types of XLA).
    const ZEROED: Self;
}

impl<T: Element, const N: usize> StorageArray for [T; N] {
    type Item = T;
    const ZEROED: Self = [T::ZERO; N];
}

/// Every constant of a static layout, in one value, with its index arithmetic as function
/// pointers: what `layout!` writes for each layout (one constant for the compiler to check,
/// where ten constants and two forwarding methods would cost a dozen items). The constants
/// and the two required methods of [`StaticLayout`] read it; the pointers are constants, so
/// an optimized call through them is a direct call, inlined.
#[doc(hidden)]
pub struct Constants<L: StaticLayout> {
    /// The layout's value (a unit struct: what the library's generic code calls methods on).
    pub layout: L,
    /// [`StaticLayout::offset_unchecked`]: the layout's own `const fn`.
    pub offset_unchecked: fn(L, L::Index) -> usize,
    /// [`StaticLayout::index_of`]: [`program_index_of`] over [`Constants::inverse`] for what
    /// `layout!` generates, else the layout's own function.
    pub index_of: fn(L, usize) -> Option<L::Index>,
    /// The inverse index program that [`program_index_of`] runs ([`Inverse::NONE`] when
    /// `index_of` is a function of its own).
    pub inverse: Inverse,
    /// [`StaticLayout::DIMS`].
    pub dims: &'static [usize],
    /// [`StaticLayout::MINOR_TO_MAJOR`].
    pub minor_to_major: &'static [usize],
    /// [`StaticLayout::TILES`].
    pub tiles: &'static [&'static [TileDim]],
    /// [`StaticLayout::ELEMENT_TYPE`].
    pub element_type: PrimitiveType,
    /// [`StaticLayout::ELEMENT_BITS`].
    pub element_bits: usize,
    /// [`StaticLayout::TEXT`].
    pub text: &'static str,
    /// The text of one tile's layout, for a [`MatrixTile`](super::MatrixTile) (empty when
    /// the layout has no such tile).
    pub tile_text: &'static str,
    /// [`StaticLayout::GRID_LEN`].
    pub grid_len: usize,
    /// [`StaticLayout::PADDED_LEN`].
    pub padded_len: usize,
    /// [`StaticLayout::BYTE_LEN`].
    pub byte_len: usize,
    /// [`StaticLayout::XLA_BYTE_SIZE`].
    pub xla_byte_size: Option<u64>,
}

/// [`StaticLayout::index_of`] of a layout `layout!` generates: [`index_of_program`] over its
/// [`Constants::inverse`].
#[doc(hidden)]
#[inline]
pub fn program_index_of<L: StaticLayout, const N: usize>(
    _: L,
    offset: usize,
) -> Option<[usize; N]> {
    index_of_program::<N>(&L::CONSTANTS.inverse, offset)
}

/// The bounds check of the `offset` that `layout!` generates: panics with `message` (in a
/// constant's evaluation, too) when an entry of `index` is at or beyond its dimension. One
/// generic function instead of a check and a panic per layout, for the compiler; a loop over
/// constants that the optimizer unrolls, for the program.
#[doc(hidden)]
#[inline(always)]
#[track_caller]
pub const fn check_index<const N: usize>(
    index: &[usize; N],
    dims: &[usize; N],
    message: &'static str,
) {
    // One branch for all dimensions (`&`, not `&&`): the optimizer then tests the entries
    // together, as a hand-written `i < R && j < C` compiles (`benches/offset_instructions.rs`
    // counts both), where a branch per entry kept a compare and a flag test more per access.
    let mut inside = true;
    let mut d = 0;
    while d < N {
        inside &= index[d] < dims[d];
        d += 1;
    }
    if !inside {
        index_out_of_range(message)
    }
}

/// The check that `layout!` generates for a layout whose element count or byte length,
/// `largest`, may be beyond `usize` on some target: a compile error with `message` there.
#[doc(hidden)]
pub const fn check_usize(largest: u64, message: &'static str) {
    if largest > usize::MAX as u64 {
        panic!("{}", message)
    }
}

/// The panic of [`check_index`], kept out of line.
#[cold]
#[inline(never)]
#[track_caller]
const fn index_out_of_range(message: &'static str) -> ! {
    panic!("{}", message)
}

/// Whether every entry of `index` is below the dimension of the same position.
#[inline(always)]
fn in_bounds(index: &[usize], dims: &[usize]) -> bool {
    index.iter().zip(dims).all(|(i, d)| i < d)
}

/// The panic of an index out of range, kept out of line so that the checked paths stay small.
/// It takes the index by value: a reference would make the caller keep the index in memory
/// on the hot path too (two stores and a load per access, measured in
/// `benches/offset_instructions.rs`), where a copy is made on the cold path only.
#[cold]
#[inline(never)]
#[track_caller]
fn out_of_bounds<I: LogicalIndex>(index: I, text: &str) -> ! {
    panic!("index {:?} out of bounds for the layout {text}", index.as_ref())
}

/// A layout known at compile time: the constants of a validated array shape and its
/// offset map. Implemented by the types the `layout!` macro generates (zero-sized,
/// `Copy`), which also have `const fn` versions of `offset` and `offset_unchecked`
/// (`index_of` is the trait's, one function for every layout).
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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static layout",
    label = "not a type written with `layout!`",
    note = "name a layout with `layout! {{ struct Name = f32[16,256]{{1,0:T(8,128)}}; }}` and use `Name`",
    note = "a tuple (of shapes or of layouts) has no layout of its own: write one `layout!`, and \
            use one buffer, per element"
)]
pub trait StaticLayout: Copy + Send + Sync + 'static {
    /// A logical index: `[usize; RANK]` (`Index::try_from(&slice[..])` converts a run-time
    /// index of the right length).
    type Index: LogicalIndex;
    /// Every constant at once (what the constants below read).
    #[doc(hidden)]
    const CONSTANTS: Constants<Self>;
    /// The layout's value, for generic code: `L::LAYOUT.offset(index)` (the type is a unit
    /// struct, so this is all a value of it holds).
    const LAYOUT: Self = Self::CONSTANTS.layout;
    /// The number of dimensions.
    const RANK: usize = Self::CONSTANTS.dims.len();
    /// The index of all zeros, `[0; RANK]`.
    const ZERO_INDEX: Self::Index = <Self::Index as LogicalIndex>::ZERO;
    /// The dimension sizes, dimension 0 first.
    const DIMS: &'static [usize] = Self::CONSTANTS.dims;
    /// The physical order, most minor first (XLA's `minor_to_major`).
    const MINOR_TO_MAJOR: &'static [usize] = Self::CONSTANTS.minor_to_major;
    /// The tiles, first level first; entries most major first.
    const TILES: &'static [&'static [TileDim]] = Self::CONSTANTS.tiles;
    /// The element type.
    const ELEMENT_TYPE: PrimitiveType = Self::CONSTANTS.element_type;
    /// Storage bits per element (`E(n)` when set, else the type's byte width × 8).
    const ELEMENT_BITS: usize = Self::CONSTANTS.element_bits;
    /// The canonical text, as XLA prints it.
    const TEXT: &'static str = Self::CONSTANTS.text;
    /// Elements of the tiled grid, padding included (every offset is below it).
    const GRID_LEN: usize = Self::CONSTANTS.grid_len;
    /// [`StaticLayout::GRID_LEN`] rounded up to a multiple of `L(n)`: the storage length
    /// in elements.
    const PADDED_LEN: usize = Self::CONSTANTS.padded_len;
    /// The storage length in bytes (packed when the layout has `E(n)`).
    const BYTE_LEN: usize = Self::CONSTANTS.byte_len;
    /// XLA's `ShapeUtil::ArraySize`; `None` when the first tile contains `*`, for which XLA
    /// has no defined size.
    const XLA_BYTE_SIZE: Option<u64> = Self::CONSTANTS.xla_byte_size;

    /// The element offset of a logical index without the bounds check: an unspecified number
    /// (never a panic) when the index is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(StaticLayout::offset_unchecked(Fig1, [2, 3]), 17);
    /// ```
    #[inline]
    fn offset_unchecked(self, index: Self::Index) -> usize {
        (Self::CONSTANTS.offset_unchecked)(self, index)
    }

    /// The logical index stored at `offset`; `None` for padding or beyond the grid.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(StaticLayout::index_of(Fig1, 17), Some([2, 3]));
    /// assert_eq!(StaticLayout::index_of(Fig1, 9), None); // padding
    /// ```
    #[inline]
    fn index_of(self, offset: usize) -> Option<Self::Index> {
        (Self::CONSTANTS.index_of)(self, offset)
    }

    /// The element offset of a logical index; panics when the index is out of range.
    ///
    /// ```should_panic
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(StaticLayout::offset(Fig1, [2, 3]), 17);
    /// StaticLayout::offset(Fig1, [3, 0]); // index [3, 0] out of bounds for the layout f32[3,5]{1,0:T(2,2)}
    /// ```
    #[inline]
    #[track_caller]
    fn offset(self, index: Self::Index) -> usize {
        if !in_bounds(index.as_ref(), Self::DIMS) {
            out_of_bounds(index, Self::TEXT)
        }
        self.offset_unchecked(index)
    }

    /// The element offset of a logical index, or `None` when it is out of range.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!((Fig1.checked_offset([2, 3]), Fig1.checked_offset([2, 5])), (Some(17), None));
    /// ```
    #[inline]
    fn checked_offset(self, index: Self::Index) -> Option<usize> {
        if in_bounds(index.as_ref(), Self::DIMS) {
            Some(self.offset_unchecked(index))
        } else {
            None
        }
    }

    /// Every grid position in memory order: the logical index stored there, or `None` for
    /// padding.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// let first: Vec<_> = Fig1.memory_order().take(3).collect();
    /// assert_eq!(first, [Some([0, 0]), Some([0, 1]), Some([1, 0])]);
    /// ```
    fn memory_order(self) -> StaticMemoryOrder<Self> {
        StaticMemoryOrder { layout: self, next: 0 }
    }

    /// The runtime [`Shape`](crate::Shape) of this layout.
    ///
    /// ```
    /// use layout_runtime::fixed::StaticLayout;
    /// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
    /// assert_eq!(Fig1.to_shape().to_string(), "f32[3,5]{1,0:T(2,2)}");
    /// ```
    #[cfg(feature = "alloc")]
    fn to_shape(self) -> crate::Shape {
        // TEXT is XLA's canonical print of a shape the macro validated with this crate.
        Self::TEXT.parse().expect("a static layout's text is a valid shape")
    }
}

/// A [`StaticLayout`] whose elements are whole Rust values (no `E(n)` packing below their
/// width), so it can back typed storage: a [`Buffer`](super::Buffer) and its heap and view
/// forms.
///
/// ```
/// use layout_runtime::fixed::TypedLayout;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// fn zero<L: TypedLayout>() -> L::Elem {
///     L::ZEROED.as_ref()[0]
/// }
/// assert_eq!(zero::<Fig1>(), 0.0f32);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no typed storage: it is not a layout of whole elements",
    label = "not a layout of whole elements",
    note = "a layout that packs sub-byte elements with `E(n)` (`s4[...]{{...E(4)}}`) has no `&T` per \
            element: use `PackedBuffer<{Self}>` and its `get` / `set`",
    note = "a tuple (of shapes or of layouts) has no layout of its own: use one buffer per element",
    note = "other types are not layouts: write one with `layout! {{ struct Name = ...; }}`"
)]
pub trait TypedLayout: StaticLayout {
    /// The Rust type of one element (see [`elem`](crate::elem)).
    type Elem: Element;
    /// The storage of a [`Buffer`](super::Buffer) on the stack: `[Elem; PADDED_LEN]`.
    type Storage: StorageArray<Item = Self::Elem>;
    /// Storage with every element zero. The compiler builds it whole: a layout that is no
    /// [`InlineLayout`] should not use it.
    const ZEROED: Self::Storage = <Self::Storage as StorageArray>::ZEROED;
}

/// The most storage, in bytes, that a buffer held inline ([`Buffer`](super::Buffer),
/// [`PackedBuffer`](super::PackedBuffer)) may have: 1 MiB. A larger one overflows the stack
/// it is built on (a thread's is 2 MiB to 8 MiB), and its zeroed value is built as a constant
/// by the compiler, which then needs the array's size in memory again and again (400 MB of
/// `f32[10000,10000]` grew rustc to 1.28 GB); `layout!` implements [`InlineLayout`] only for
/// layouts of at most this many bytes, and a larger one lives in a
/// [`HeapBuffer`](super::HeapBuffer) or a view.
///
/// ```
/// assert_eq!(layout_runtime::fixed::MAX_INLINE_BYTES, 1 << 20);
/// ```
pub const MAX_INLINE_BYTES: usize = 1 << 20;

/// A [`StaticLayout`] whose storage is small enough (at most [`MAX_INLINE_BYTES`], 1 MiB) for
/// a buffer held inline: the stack forms [`Buffer`](super::Buffer) and
/// [`PackedBuffer`](super::PackedBuffer) are made (`zeroed`, `from_storage`,
/// `from_row_major`, `default`) only for these. `layout!` implements it for each layout it
/// gives storage of at most that size; any size lives in a [`HeapBuffer`](super::HeapBuffer)
/// (or [`PackedHeapBuffer`](super::PackedHeapBuffer)), or borrowed, in a
/// [`StaticView`](super::StaticView). A larger layout's `Buffer::zeroed()` is a compile error
/// that says so, where a stack overflow (and a compiler holding the array) would have been.
///
/// ```
/// use layout_runtime::fixed::{Buffer, InlineLayout};
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// fn on_the_stack<L: InlineLayout + layout_runtime::TypedLayout>() -> usize {
///     Buffer::<L>::zeroed().as_slice().len()
/// }
/// assert_eq!(on_the_stack::<Fig1>(), 24);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not fit in a buffer held inline (on the stack): `layout!` gives one \
               to layouts of at most 1 MiB",
    label = "more than 1 MiB of storage (or not known to be at most)",
    note = "use `HeapBuffer<{Self}>`: `HeapBuffer::<{Self}>::zeroed()` allocates it zeroed on the \
            heap, with the same indexing, views and tiles (`PackedHeapBuffer` for a layout \
            packed with `E(n)`)",
    note = "or borrow storage you own (a `Vec`, a device buffer) with `StaticView<{Self}>` or \
            `StaticViewMut<{Self}>`"
)]
pub trait InlineLayout: StaticLayout {}

/// A [`StaticLayout`] that packs sub-byte elements with `E(n)`, `n` being the element's
/// own width ([`SubByte::BITS`]): `s4` / `u4` / `f4e2m1fn` with `E(4)`, `s2` / `u2` with
/// `E(2)`, `s1` / `u1` / `pred` with `E(1)`, the `f6` types with `E(6)`. A
/// [`PackedBuffer`](super::PackedBuffer) reads and writes its elements one at a time.
///
/// ```
/// use layout_runtime::fixed::{PackedLayout, StaticLayout};
/// # use layout_runtime::__doc_layouts::U4x4x4E4 as Nibbles;
/// // Nibbles is `layout! { struct Nibbles = u4[4,4]{1,0:E(4)}; }`.
/// assert_eq!((Nibbles::BYTE_LEN, Nibbles::ELEMENT_BITS), (8, 4));
/// assert_eq!(<Nibbles as PackedLayout>::ZEROED, [0u8; 8]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout of packed sub-byte elements",
    label = "not packed with `E(n)` to its elements' width",
    note = "`PackedBuffer` is for layouts like `s4[64,128]{{1,0:E(4)}}`, `u2[...]{{...E(2)}}` or \
            `pred[...]{{...E(1)}}`; a layout of whole elements uses `Buffer`"
)]
pub trait PackedLayout: StaticLayout {
    /// The Rust type of one element (see [`elem`](crate::elem)).
    type Elem: SubByte;
    /// The storage of a [`PackedBuffer`](super::PackedBuffer) on the stack: `[u8; BYTE_LEN]`.
    type Storage: StorageArray<Item = u8>;
    /// Storage with every byte zero. The compiler builds it whole: a layout that is no
    /// [`InlineLayout`] should not use it.
    const ZEROED: Self::Storage = <Self::Storage as StorageArray>::ZEROED;
}

/// Grid positions of a static layout in memory order; see [`StaticLayout::memory_order`].
///
/// ```
/// use layout_runtime::fixed::StaticLayout;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// assert_eq!(Fig1.memory_order().len(), 24);
/// assert_eq!(Fig1.memory_order().filter(Option::is_none).count(), 9); // padding
/// ```
#[derive(Clone, Debug)]
pub struct StaticMemoryOrder<L> {
    layout: L,
    next: usize,
}

impl<L: StaticLayout> Iterator for StaticMemoryOrder<L> {
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

impl<L: StaticLayout> ExactSizeIterator for StaticMemoryOrder<L> {}
