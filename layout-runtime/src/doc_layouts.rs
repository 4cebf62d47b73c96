//! One static layout written out by hand, exactly as `layout!` generates it, so that the
//! documentation of this crate (which cannot use the macro: the macro depends on it) has a
//! layout to show. `tests/macro_layouts.rs` checks it against the macro's own expansion.

use crate::fixed::{StaticLayout, TypedLayout};
use crate::{PrimitiveType, TileDim};

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

impl StaticLayout for F32x3x5T2x2 {
    type Index = [usize; 2];
    const RANK: usize = 2;
    const ZERO_INDEX: [usize; 2] = [0; 2];
    const DIMS: &'static [usize] = &[3, 5];
    const MINOR_TO_MAJOR: &'static [usize] = &[1, 0];
    const TILES: &'static [&'static [TileDim]] = &[&[TileDim::Size(2), TileDim::Size(2)]];
    const ELEMENT_TYPE: PrimitiveType = PrimitiveType::F32;
    const ELEMENT_BITS: usize = 32;
    const TEXT: &'static str = "f32[3,5]{1,0:T(2,2)}";
    const GRID_LEN: usize = 24;
    const PADDED_LEN: usize = 24;
    const BYTE_LEN: usize = 96;
    const XLA_BYTE_SIZE: Option<u64> = Some(96);

    fn offset(self, index: [usize; 2]) -> usize {
        F32x3x5T2x2::offset(self, index)
    }

    fn checked_offset(self, index: [usize; 2]) -> Option<usize> {
        F32x3x5T2x2::checked_offset(self, index)
    }

    fn index_of(self, offset: usize) -> Option<[usize; 2]> {
        F32x3x5T2x2::index_of(self, offset)
    }
}

impl TypedLayout for F32x3x5T2x2 {
    type Elem = f32;
    type Storage = [f32; 24];
    const ZEROED: [f32; 24] = [0.0; 24];
}
