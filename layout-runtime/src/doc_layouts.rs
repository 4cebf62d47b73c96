//! Static layouts written out by hand, as `layout!` generates them, so that the
//! documentation of this crate (which cannot use the macro: the macro depends on it) has
//! layouts to show. `tests/macro_layouts.rs` checks them against the macro's own expansion.

use crate::fixed::{PackedLayout, StaticLayout, TiledLayout, TypedLayout};
use crate::{PrimitiveType, TileDim, U4};

/// Implements `StaticLayout` for `$name` by forwarding to its inherent `const fn`s.
macro_rules! static_layout {
    ($name:ident: $rank:literal, $t:ident $bits:literal, $text:literal, $dims:expr, $m2m:expr,
     $tiles:expr, grid $grid:literal, bytes $bytes:literal, xla $xla:expr) => {
        impl StaticLayout for $name {
            type Index = [usize; $rank];
            const RANK: usize = $rank;
            const ZERO_INDEX: [usize; $rank] = [0; $rank];
            const DIMS: &'static [usize] = &$dims;
            const MINOR_TO_MAJOR: &'static [usize] = &$m2m;
            const TILES: &'static [&'static [TileDim]] = &$tiles;
            const ELEMENT_TYPE: PrimitiveType = PrimitiveType::$t;
            const ELEMENT_BITS: usize = $bits;
            const TEXT: &'static str = $text;
            const GRID_LEN: usize = $grid;
            const PADDED_LEN: usize = $grid;
            const BYTE_LEN: usize = $bytes;
            const XLA_BYTE_SIZE: Option<u64> = $xla;

            fn offset(self, index: [usize; $rank]) -> usize {
                $name::offset(self, index)
            }

            fn checked_offset(self, index: [usize; $rank]) -> Option<usize> {
                $name::checked_offset(self, index)
            }

            fn index_of(self, offset: usize) -> Option<[usize; $rank]> {
                $name::index_of(self, offset)
            }
        }
    };
}

/// `f32[3,5]{1,0:T(2,2)}`, Figure 1 of XLA's tiled-layout document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x3x5T2x2;

impl F32x3x5T2x2 {
    /// The offset of `[i, j]`: `((i/2)·3 + j/2)·4 + (i%2)·2 + j%2`; panics when out of range.
    pub const fn offset(self, index: [usize; 2]) -> usize {
        if !(index[0] < 3 && index[1] < 5) {
            panic!("index out of bounds for the layout f32[3,5]{{1,0:T(2,2)}}");
        }
        self.offset_unchecked(index)
    }

    /// The offset without the bounds check.
    pub const fn offset_unchecked(self, index: [usize; 2]) -> usize {
        let [i, j] = index;
        (i / 2 * 3 + j / 2) * 4 + (i % 2) * 2 + j % 2
    }

    /// The offset, or `None` when out of range.
    pub const fn checked_offset(self, index: [usize; 2]) -> Option<usize> {
        if index[0] < 3 && index[1] < 5 {
            Some(self.offset_unchecked(index))
        } else {
            None
        }
    }

    /// The index at `offset`, or `None` for padding.
    pub const fn index_of(self, offset: usize) -> Option<[usize; 2]> {
        if offset >= 24 {
            return None;
        }
        let (tile, inner) = (offset / 4, offset % 4);
        let i = tile / 3 * 2 + inner / 2;
        let j = tile % 3 * 2 + inner % 2;
        if i < 3 && j < 5 {
            Some([i, j])
        } else {
            None
        }
    }
}

static_layout!(F32x3x5T2x2: 2, F32 32, "f32[3,5]{1,0:T(2,2)}", [3, 5], [1, 0],
    [&[TileDim::Size(2), TileDim::Size(2)]], grid 24, bytes 96, xla Some(96));

impl TypedLayout for F32x3x5T2x2 {
    type Elem = f32;
    type Storage = [f32; 24];
    const ZEROED: [f32; 24] = [0.0; 24];
}

impl TiledLayout for F32x3x5T2x2 {
    type Tile = F32x2x2;
    const TILE_COUNT: usize = 6;
}

/// `f32[2,2]{1,0}`: the tile of [`F32x3x5T2x2`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x2x2;

/// A row-major layout of `rows x cols` elements: `offset`, `checked_offset`, `index_of`.
macro_rules! row_major {
    ($name:ident, $rows:literal x $cols:literal) => {
        impl $name {
            /// `i * cols + j`; panics when out of range.
            pub const fn offset(self, index: [usize; 2]) -> usize {
                match self.checked_offset(index) {
                    Some(o) => o,
                    None => panic!("index out of bounds"),
                }
            }

            /// `i * cols + j`, or `None` when out of range.
            pub const fn checked_offset(self, index: [usize; 2]) -> Option<usize> {
                if index[0] < $rows && index[1] < $cols {
                    Some(index[0] * $cols + index[1])
                } else {
                    None
                }
            }

            /// The index at `offset`, or `None` beyond the array.
            pub const fn index_of(self, offset: usize) -> Option<[usize; 2]> {
                if offset < $rows * $cols {
                    Some([offset / $cols, offset % $cols])
                } else {
                    None
                }
            }
        }
    };
}

row_major!(F32x2x2, 2 x 2);
static_layout!(F32x2x2: 2, F32 32, "f32[2,2]{1,0}", [2, 2], [1, 0], [], grid 4, bytes 16,
    xla Some(16));

impl TypedLayout for F32x2x2 {
    type Elem = f32;
    type Storage = [f32; 4];
    const ZEROED: [f32; 4] = [0.0; 4];
}

/// `u4[4,4]{1,0:E(4)}`: two 4-bit elements a byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct U4x4x4E4;

row_major!(U4x4x4E4, 4 x 4);
static_layout!(U4x4x4E4: 2, U4 4, "u4[4,4]{1,0:E(4)}", [4, 4], [1, 0], [], grid 16, bytes 8,
    xla Some(8));

impl PackedLayout for U4x4x4E4 {
    type Elem = U4;
    type Storage = [u8; 8];
    const ZEROED: [u8; 8] = [0; 8];
}
