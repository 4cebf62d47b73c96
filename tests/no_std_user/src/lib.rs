//! A `#![no_std]` user of xlayout without `alloc`, with the dependency renamed to `xl`: the
//! code `layout!` generates must name xlayout only through `$crate` and use nothing from
//! `alloc` or `std`. `tests/no_std_build.rs` builds this crate on its own (so no other
//! package can turn `alloc` on) and runs its tests.
#![no_std]
#![deny(missing_docs)]

use xl::StaticView;
use xl::{Buffer, PackedBuffer, StaticLayout, S4};

xl::layout! {
    /// A kernel's fixed layout.
    pub struct Tile = f32[16,256]{1,0:T(8,128)};
    /// bf16 in tile pairs.
    pub struct Pairs = bf16[16,256]{1,0:T(8,128)(2,1)};
    /// Packed 4-bit integers.
    pub struct Nibbles = s4[64,128]{1,0:T(64,128)(8,1)E(4)};
}

/// ((9/8)·2 + 130/128)·1024 + (9%8)·128 + 130%128 = 3·1024 + 128 + 2.
pub const OFFSET_9_130: usize = Tile.offset([9, 130]);

/// Sums a buffer through the generated accessor.
pub fn sum(buf: &Buffer<Tile>) -> f32 {
    let mut s = 0.0;
    for i in 0..16 {
        for j in 0..256 {
            s += buf[[i, j]];
        }
    }
    s
}

/// Reads one element through a borrowed view.
pub fn read(storage: &[f32], i: usize, j: usize) -> Option<f32> {
    StaticView::<Tile>::new(storage).ok()?.get([i, j]).copied()
}

/// The size of the storage, from the generated constants.
pub const BYTES: usize = Tile::BYTE_LEN;

/// The sum of a bf16 buffer, tile by tile.
pub fn sum_by_tiles(buf: &Buffer<Pairs>) -> f32 {
    buf.tiles().map(|t| t.view.as_slice().iter().map(|x| x.to_f32()).sum::<f32>()).sum()
}

/// Writes one packed element and reads it back.
pub fn nibble_round_trip(value: i8) -> Option<i8> {
    let mut buf = PackedBuffer::<Nibbles>::zeroed();
    buf.set([63, 127], S4::new(value)?);
    buf.get([63, 127]).map(S4::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_code_works_without_alloc() {
        assert_eq!(OFFSET_9_130, 3202);
        assert_eq!(BYTES, 16 * 256 * 4);
        let mut buf = Buffer::<Tile>::zeroed();
        buf[[9, 130]] = 2.5;
        buf[[0, 0]] = 0.5;
        assert_eq!(sum(&buf), 3.0);
        assert_eq!(buf.as_slice()[3202], 2.5);
        assert_eq!(read(buf.as_slice(), 9, 130), Some(2.5));
        assert_eq!(read(&buf.as_slice()[1..], 9, 130), None);
        let anonymous = xl::layout!(u8[4, 4]{0,1});
        assert_eq!(anonymous.offset([1, 2]), 9);
        use xl::bf16;
        let mut pairs = Buffer::<Pairs>::zeroed();
        pairs[[1, 0]] = bf16::from_f32(1.5);
        pairs[[15, 255]] = bf16::from_f32(-0.5);
        assert_eq!(pairs.bits()[1], 0x3fc0); // (1,0) is the second element of a row pair
        assert_eq!(sum_by_tiles(&pairs), 1.0);
        assert_eq!(nibble_round_trip(-8), Some(-8));
        assert_eq!(nibble_round_trip(8), None);
    }
}
