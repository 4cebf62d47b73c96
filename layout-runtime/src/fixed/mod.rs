//! Layouts fixed at compile time, and typed storage addressed through them.
//!
//! What the `layout!` macro generates implements [`StaticLayout`], and according to its
//! elements one of:
//!
//! - [`TypedLayout`], when each element is a whole Rust value (`f32`, `bf16`, `S4` one per
//!   byte, ...): [`Buffer`] stores and indexes them (`buf[[i, j]]`), on the stack
//!   ([`Buffer`], for an [`InlineLayout`]: at most 1 MiB), on the heap ([`HeapBuffer`], any
//!   size) or in borrowed slices
//!   ([`StaticView`], [`StaticViewMut`]); the same methods on all four;
//! - [`PackedLayout`], when `E(n)` packs sub-byte elements (`s4` with `E(4)`, ...):
//!   [`PackedBuffer`] reads and writes one element with `get` / `set`, at shift-and-mask cost.
//!
//! A typed layout whose first tile level keeps each tile contiguous is also a [`TiledLayout`]:
//! [`Buffer::tiles`] walks the tiles in memory order, each a [`StaticView`] of its own small
//! layout ([`TileLayout`]) with its logical origin. Inside a tile, [`Buffer::rows`] hands out
//! rows as slices where the layout keeps them contiguous, and [`Buffer::row_groups`] the rows
//! of a `(2,1)`-style interleaved tile as pairs: loops a compiler vectorizes.
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
mod inverse;
mod layout;
mod packed;
mod rows;
mod tiles;

use core::fmt;

#[cfg(feature = "alloc")]
pub use buffer::HeapBuffer;
pub use buffer::{Buffer, Inline, StaticView, StaticViewMut};
#[doc(hidden)]
pub use inverse::IndexStep;
#[doc(hidden)]
pub use inverse::{index_of_program, Inverse};
#[doc(hidden)]
pub use layout::{check_index, check_usize, program_index_of, Constants};
pub use layout::{
    InlineLayout, LogicalIndex, PackedLayout, StaticLayout, StaticMemoryOrder, StorageArray,
    TypedLayout, MAX_INLINE_BYTES,
};
#[cfg(feature = "alloc")]
pub use packed::PackedHeapBuffer;
pub use packed::{PackedBuffer, PackedView, PackedViewMut};
pub use rows::{RowGroups, RowGroupsMut};
#[doc(hidden)]
pub use tiles::TileSpec;
pub use tiles::{MatrixTile, TileLayout, TileView, TileViewMut, TiledLayout, Tiles, TilesMut};

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
/// use layout_runtime::fixed::StaticView;
/// # use layout_runtime::__doc_layouts::F32x3x5T2x2 as Fig1;
/// let e = StaticView::<Fig1>::new(&[0.0; 15]).unwrap_err();
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
    let layout = L::LAYOUT;
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
