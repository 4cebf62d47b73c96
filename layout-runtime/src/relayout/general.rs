//! The path that works for every pair of layouts: both plans walk the logical indices in
//! row-major order side by side, and each element's bits move from one offset to the other.
//! It handles what the strided path cannot (`*` merges, nested tiles that pad inside a
//! tile, tilings whose splits do not nest, different `E(n)` on the two sides, elements that
//! cross bytes such as `E(6)`), at the cost of some work per element.

use crate::Plan;

/// Zeroes `dst`, then copies the low `min(bits)` bits of every element: narrowing keeps the
/// low bits, widening leaves the new high bits zero.
pub(super) fn copy(from: &Plan, to: &Plan, src: &[u8], dst: &mut [u8]) {
    dst.fill(0);
    let (sb, db) = (from.element_bits(), to.element_bits());
    let n = sb.min(db);
    for (s, d) in from.row_major_offsets().zip(to.row_major_offsets()) {
        // Bit offsets fit: the plan checked that both buffers' bit lengths fit in usize.
        copy_bits(src, s * sb, dst, d * db, n);
    }
}

/// Copies `n` bits starting at bit `sbit` of `src` to bit `dbit` of `dst` (bit 0 is the
/// least-significant bit of byte 0), leaving the other bits of `dst` as they were.
fn copy_bits(src: &[u8], mut sbit: usize, dst: &mut [u8], mut dbit: usize, mut n: usize) {
    if sbit % 8 == 0 && dbit % 8 == 0 {
        let whole = n / 8;
        dst[dbit / 8..dbit / 8 + whole].copy_from_slice(&src[sbit / 8..sbit / 8 + whole]);
        sbit += whole * 8;
        dbit += whole * 8;
        n -= whole * 8;
    }
    while n > 0 {
        // 56 bits plus a shift of up to 7 fit in one u64 window.
        let take = n.min(56);
        let v = read_bits(src, sbit, take);
        write_bits(dst, dbit, take, v);
        sbit += take;
        dbit += take;
        n -= take;
    }
}

fn window(bit: usize, n: usize) -> (usize, usize, usize) {
    let shift = bit % 8;
    (bit / 8, shift, (shift + n).div_ceil(8))
}

fn read_bits(buf: &[u8], bit: usize, n: usize) -> u64 {
    let (first, shift, bytes) = window(bit, n);
    let mut acc = 0u64;
    for (i, &b) in buf[first..first + bytes].iter().enumerate() {
        acc |= u64::from(b) << (8 * i);
    }
    (acc >> shift) & ((1u64 << n) - 1)
}

fn write_bits(buf: &mut [u8], bit: usize, n: usize, v: u64) {
    let (first, shift, bytes) = window(bit, n);
    let bytes = &mut buf[first..first + bytes];
    let mut acc = 0u64;
    for (i, &b) in bytes.iter().enumerate() {
        acc |= u64::from(b) << (8 * i);
    }
    let m = ((1u64 << n) - 1) << shift;
    acc = (acc & !m) | ((v << shift) & m);
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (acc >> (8 * i)) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_cross_bytes_and_leave_neighbours() {
        let src = [0b1011_0110u8, 0b0000_0001];
        let mut dst = [0xFFu8; 3];
        copy_bits(&src, 1, &mut dst, 6, 9); // bits 1..10 of src
        assert_eq!(read_bits(&dst, 6, 9), 0b1101_1011);
        assert_eq!(dst[0] & 0b0011_1111, 0b0011_1111);
        assert_eq!(dst[1] >> 7, 1);
        let long: [u8; 16] = core::array::from_fn(|i| (i * 37) as u8);
        let mut out = [0u8; 17];
        copy_bits(&long, 0, &mut out, 3, 128);
        let mut back = [0u8; 16];
        copy_bits(&out, 3, &mut back, 0, 128);
        assert_eq!(back, long);
    }
}
