//! Static layouts written out by hand, as `layout!` generates them, so that the
//! documentation of this crate (which cannot use the macro: the macro depends on it) has
//! layouts to show. `tests/macro_layouts.rs` checks them against the macro's own expansion.

use crate::fixed::{
    check_index, Constants, InlineLayout, MatrixTile, PackedLayout, StaticLayout, TileLayout,
    TileSpec, TiledLayout, TypedLayout,
};
use crate::{PrimitiveType, TileDim, U4};

/// The `Constants` of a layout whose index arithmetic is `$offset` and `$index_of`.
macro_rules! constants {
    ($layout:expr, $offset:expr, $index_of:expr, $t:ident $bits:literal, $text:literal,
     $dims:expr, $m2m:expr, $tiles:expr, $tile_text:literal, grid $grid:literal,
     bytes $bytes:literal) => {
        Constants {
            layout: $layout,
            offset_unchecked: $offset,
            index_of: $index_of,
            inverse: crate::fixed::Inverse::NONE,
            dims: &$dims,
            minor_to_major: &$m2m,
            tiles: &$tiles,
            element_type: PrimitiveType::$t,
            element_bits: $bits,
            text: $text,
            tile_text: $tile_text,
            grid_len: $grid,
            padded_len: $grid,
            byte_len: $bytes,
            xla_byte_size: Some($bytes),
        }
    };
}

/// Implements `StaticLayout` for `$name` of rank `$rank` with `$constants` (of the
/// [`constants!`] of its inherent `const fn`s).
macro_rules! static_layout {
    ($name:ident: $rank:literal, $($constants:tt)*) => {
        impl StaticLayout for $name {
            type Index = [usize; $rank];
            const CONSTANTS: Constants<Self> =
                constants!($name, $name::offset_unchecked, $name::index_of, $($constants)*);
        }

        // Every layout here is far below `MAX_INLINE_BYTES`, as `layout!` would find.
        impl InlineLayout for $name {}
    };
}

/// The inherent `offset` of a layout of rank `$rank`, checked against `$dims`, from its
/// `offset_unchecked`.
macro_rules! checked_offset {
    ($rank:literal, $dims:expr, $text:literal) => {
        /// The offset of an index; panics when out of range.
        pub const fn offset(self, index: [usize; $rank]) -> usize {
            check_index(&index, &$dims, concat!("index out of bounds for the layout ", $text));
            self.offset_unchecked(index)
        }
    };
}

/// `f32[3,5]{1,0:T(2,2)}`, Figure 1 of XLA's tiled-layout document.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x3x5T2x2;

impl F32x3x5T2x2 {
    checked_offset!(2, [3, 5], "f32[3,5]{1,0:T(2,2)}");

    /// The offset without the bounds check: `((i/2)·3 + j/2)·4 + (i%2)·2 + j%2`.
    pub const fn offset_unchecked(self, index: [usize; 2]) -> usize {
        let [i, j] = index;
        (i / 2 * 3 + j / 2) * 4 + (i % 2) * 2 + j % 2
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

static_layout!(
    F32x3x5T2x2: 2, F32 32, "f32[3,5]{1,0:T(2,2)}", [3, 5], [1, 0],
        [&[TileDim::Size(2), TileDim::Size(2)]], "f32[2,2]{1,0}", grid 24, bytes 96
);

impl TypedLayout for F32x3x5T2x2 {
    type Elem = f32;
    type Storage = [f32; 24];
}

impl TiledLayout for F32x3x5T2x2 {
    type Tile = MatrixTile<Self, [f32; 4], 2, 2, 1>;
}

/// `f32[16,256]{1,0:T(8,128)(2,1)}`: 8x128 tiles whose rows interleave in pairs, as a TPU
/// stores bf16.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x16x256T8x128T2x1;

impl F32x16x256T8x128T2x1 {
    checked_offset!(2, [16, 256], "f32[16,256]{1,0:T(8,128)(2,1)}");

    /// The offset without the bounds check: tile `(i/8, j/128)` of 2x2, then row pair
    /// `i%8/2`, column `j%128`, row `i%2` of the pair.
    pub const fn offset_unchecked(self, index: [usize; 2]) -> usize {
        let [i, j] = index;
        (i / 8 * 2 + j / 128) * 1024 + (i % 8 / 2 * 128 + j % 128) * 2 + i % 2
    }

    /// The index at `offset`, or `None` beyond the array.
    pub const fn index_of(self, offset: usize) -> Option<[usize; 2]> {
        if offset >= 4096 {
            return None;
        }
        let (tile, inner) = (offset / 1024, offset % 1024);
        Some([tile / 2 * 8 + inner / 256 * 2 + inner % 2, tile % 2 * 128 + inner / 2 % 128])
    }
}

static_layout!(
    F32x16x256T8x128T2x1: 2, F32 32, "f32[16,256]{1,0:T(8,128)(2,1)}", [16, 256],
        [1, 0], [&[TileDim::Size(8), TileDim::Size(128)], &[TileDim::Size(2), TileDim::Size(1)]],
        "f32[8,128]{1,0:T(2,1)}", grid 4096, bytes 16384
);

impl TypedLayout for F32x16x256T8x128T2x1 {
    type Elem = f32;
    type Storage = [f32; 4096];
}

impl TiledLayout for F32x16x256T8x128T2x1 {
    type Tile = MatrixTile<Self, [f32; 1024], 8, 128, 2>;
}

/// `f32[8]{0:T(2,2)}`: a tile of higher rank than the array (row 0 of each 2x2 tile holds
/// two elements, row 1 is padding), so its tile is a [`TileLayout`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x8T2x2;

impl F32x8T2x2 {
    checked_offset!(1, [8], "f32[8]{0:T(2,2)}");

    /// The offset without the bounds check: `(j/2)·4 + j%2`.
    pub const fn offset_unchecked(self, index: [usize; 1]) -> usize {
        index[0] / 2 * 4 + index[0] % 2
    }

    /// The index at `offset`, or `None` for padding.
    pub const fn index_of(self, offset: usize) -> Option<[usize; 1]> {
        if offset < 16 && offset % 4 < 2 {
            Some([offset / 4 * 2 + offset % 2])
        } else {
            None
        }
    }
}

static_layout!(
    F32x8T2x2: 1, F32 32, "f32[8]{0:T(2,2)}", [8], [0],
        [&[TileDim::Size(2), TileDim::Size(2)]], "", grid 16, bytes 64
);

impl TypedLayout for F32x8T2x2 {
    type Elem = f32;
    type Storage = [f32; 16];
}

impl TiledLayout for F32x8T2x2 {
    type Tile = TileLayout<Self>;
}

/// The tile, `f32[2,2]{1,0}`.
impl TileSpec for F32x8T2x2 {
    type TileIndex = [usize; 2];
    type TileStorage = [f32; 4];
    const TILE: Constants<TileLayout<Self>> = constants!(
        TileLayout::NEW,
        |_, index| index[0] * 2 + index[1],
        |_, offset| if offset < 4 { Some([offset / 2, offset % 2]) } else { None },
        F32 32, "f32[2,2]{1,0}", [2, 2], [1, 0], [], "", grid 4, bytes 16
    );
}

/// `f32[4,2]{1,0:T(2,1)}`: rows interleaved in pairs, as inside a TPU bf16 tile.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F32x4x2T2x1;

impl F32x4x2T2x1 {
    checked_offset!(2, [4, 2], "f32[4,2]{1,0:T(2,1)}");

    /// The offset without the bounds check: `((i/2)·2 + j)·2 + i%2`.
    pub const fn offset_unchecked(self, index: [usize; 2]) -> usize {
        let [i, j] = index;
        (i / 2 * 2 + j) * 2 + i % 2
    }

    /// The index at `offset`, or `None` beyond the array.
    pub const fn index_of(self, offset: usize) -> Option<[usize; 2]> {
        if offset < 8 {
            Some([offset / 4 * 2 + offset % 2, offset / 2 % 2])
        } else {
            None
        }
    }
}

static_layout!(
    F32x4x2T2x1: 2, F32 32, "f32[4,2]{1,0:T(2,1)}", [4, 2], [1, 0],
        [&[TileDim::Size(2), TileDim::Size(1)]], "", grid 8, bytes 32
);

impl TypedLayout for F32x4x2T2x1 {
    type Elem = f32;
    type Storage = [f32; 8];
}

/// `u4[4,4]{1,0:E(4)}`: two 4-bit elements a byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct U4x4x4E4;

impl U4x4x4E4 {
    checked_offset!(2, [4, 4], "u4[4,4]{1,0:E(4)}");

    /// `i * 4 + j`, without the bounds check.
    pub const fn offset_unchecked(self, index: [usize; 2]) -> usize {
        index[0] * 4 + index[1]
    }

    /// The index at `offset`, or `None` beyond the array.
    pub const fn index_of(self, offset: usize) -> Option<[usize; 2]> {
        if offset < 16 {
            Some([offset / 4, offset % 4])
        } else {
            None
        }
    }
}

static_layout!(
    U4x4x4E4: 2, U4 4, "u4[4,4]{1,0:E(4)}", [4, 4], [1, 0], [], "", grid 16, bytes 8
);

impl PackedLayout for U4x4x4E4 {
    type Elem = U4;
    type Storage = [u8; 8];
}
