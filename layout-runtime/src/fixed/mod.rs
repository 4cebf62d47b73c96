//! Layouts fixed at compile time, and typed storage addressed through them.
//!
//! What the `layout!` macro generates implements [`StaticLayout`], and according to its
//! elements one of:
//!
//! - [`TypedLayout`], when each element is a whole Rust value (`f32`, `bf16`, `S4` one per
//!   byte, ...): [`Buffer`] stores and indexes them (`buf[[i, j]]`), on the stack
//!   ([`Buffer`]), on the heap ([`HeapBuffer`], any size) or in borrowed slices ([`View`],
//!   [`ViewMut`]); the same methods on all four;
//! - [`PackedLayout`], when `E(n)` packs sub-byte elements (`s4` with `E(4)`, ...):
//!   [`PackedBuffer`] reads and writes one element with `get` / `set`, at shift-and-mask cost.
//!
//! A typed layout whose first tile level keeps each tile contiguous is also a [`TiledLayout`]:
//! [`Buffer::tiles`] walks the tiles in memory order, each a [`View`] of its own small layout
//! with its logical origin.
//!
//! None of this needs `alloc` except the heap forms: the constants and the accessors are
//! generated code, and the storage is an array or a borrowed slice.
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

mod buffer;
mod packed;
mod tiles;

use core::fmt;

#[cfg(feature = "alloc")]
pub use buffer::HeapBuffer;
pub use buffer::{Buffer, Inline, View, ViewMut};
#[cfg(feature = "alloc")]
pub use packed::PackedHeapBuffer;
pub use packed::{PackedBuffer, PackedView, PackedViewMut};
pub use tiles::{Tile, TileMut, Tiles, TilesMut};

use crate::{Element, PrimitiveType, SubByte, TileDim};

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
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static layout",
    label = "not a type written with `layout!`",
    note = "name a layout with `layout! {{ struct Name = f32[16,256]{{1,0:T(8,128)}}; }}` and use `Name`",
    note = "a tuple (of shapes or of layouts) has no layout of its own: write one `layout!`, and \
            use one buffer, per element"
)]
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

/// A [`StaticLayout`] whose elements are whole Rust values (no `E(n)` packing below their
/// width), so it can back typed storage: a [`Buffer`] and its heap and view forms.
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
    /// The storage of a [`Buffer`] on the stack: `[Elem; PADDED_LEN]`.
    type Storage: Copy + Send + Sync + 'static + AsRef<[Self::Elem]> + AsMut<[Self::Elem]>;
    /// Storage with every element zero.
    const ZEROED: Self::Storage;
}

/// A [`StaticLayout`] that packs sub-byte elements with `E(n)`, `n` being the element's
/// own width ([`SubByte::BITS`]): `s4` / `u4` / `f4e2m1fn` with `E(4)`, `s2` / `u2` with
/// `E(2)`, `s1` / `u1` / `pred` with `E(1)`, the `f6` types with `E(6)`. A [`PackedBuffer`]
/// reads and writes its elements one at a time.
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
    /// The storage of a [`PackedBuffer`] on the stack: `[u8; BYTE_LEN]`.
    type Storage: Copy + Send + Sync + 'static + AsRef<[u8]> + AsMut<[u8]>;
    /// Storage with every byte zero.
    const ZEROED: Self::Storage;
}

/// A [`TypedLayout`] whose first tile level keeps each tile contiguous in memory (later tile
/// levels rearrange elements only inside a tile): [`Buffer::tiles`] walks its tiles in memory
/// order. Each tile is itself a small static layout, [`TiledLayout::Tile`]: the first tile's
/// sizes as a row-major array of its own, with the later tile levels. Its axes are the
/// layout's most minor physical axes (after `*` merges), in physical order, so for the usual
/// `{n-1,..,1,0}` layouts `tile[[r, c]]` is the element at `origin + (r, c)`.
///
/// ```
/// use layout_runtime::fixed::{StaticLayout, TiledLayout};
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// type Tile = <Fig1 as TiledLayout>::Tile;
/// assert_eq!((Fig1::TILE_COUNT, Tile::TEXT), (6, "f32[2,2]{1,0}"));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no contiguous tiles to walk",
    label = "no tile access",
    note = "tile access needs a layout of whole elements with a first tile level (`T(8,128)`, \
            `T(8,128)(2,1)`); later levels must stay inside a tile (no wider than the first)"
)]
pub trait TiledLayout: TypedLayout {
    /// The layout of one tile.
    type Tile: TypedLayout<Elem = Self::Elem>;
    /// The number of tiles: [`StaticLayout::GRID_LEN`] over the tile's
    /// [`StaticLayout::PADDED_LEN`].
    const TILE_COUNT: usize;
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

/// What a [`LengthError`] counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Counted {
    /// Storage elements, against `PADDED_LEN`.
    Storage,
    /// Storage bytes of a packed layout, against `BYTE_LEN`.
    Bytes,
    /// Elements of a row-major array, against the product of the dimensions.
    RowMajor,
}

/// A slice of the wrong length for a layout's storage or for its row-major array.
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
    /// The length needed: [`StaticLayout::PADDED_LEN`] for storage ([`StaticLayout::BYTE_LEN`]
    /// bytes when packed), the product of the dimensions for a row-major array.
    pub expected: usize,
    /// The length given.
    pub actual: usize,
    text: &'static str,
    counted: Counted,
}

impl fmt::Display for LengthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (actual, text, expected) = (self.actual, self.text, self.expected);
        match self.counted {
            Counted::RowMajor => write!(
                f,
                "the row-major slice has {actual} elements; the array {text} has {expected}"
            ),
            Counted::Storage => {
                write!(f, "the slice has {actual} elements; the layout {text} stores {expected}")
            }
            Counted::Bytes => {
                write!(
                    f,
                    "the slice has {actual} bytes; the packed layout {text} stores {expected}"
                )
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LengthError {}

/// `Ok` when `actual` is `expected`, else the error for a slice counted as `counted`.
fn check_length<L: StaticLayout>(
    counted: Counted,
    expected: usize,
    actual: usize,
) -> Result<(), LengthError> {
    if actual == expected {
        Ok(())
    } else {
        Err(LengthError { expected, actual, text: L::TEXT, counted })
    }
}

/// The number of logical elements of `L` (the product of its dimensions).
fn logical_len<L: StaticLayout>() -> usize {
    L::DIMS.iter().product()
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
