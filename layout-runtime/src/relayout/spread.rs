//! The regrouping of packed sub-byte rows into column groups, without SIMD: what `packed`
//! runs for every width, and the SIMD nibble kernel for tiles narrower than a vector.

use super::geometry::Transpose;

/// Interleaves `k` rows of packed `bits`-bit elements (`k · bits` a multiple of 8, at most
/// 64), in bytes: `t` has `k` source rows of `t.cols` bytes, `t.src_row_stride` bytes
/// apart, each byte holding `8/bits` consecutive elements of its row; the output, from byte
/// `t.dst`, has for each source byte `8/bits` groups of `k·bits` bits, one element of every
/// row each.
/// Inlined, so that the callers' literal widths make every loop bound a constant.
#[inline(always)]
pub(super) fn spread(bits: usize, k: usize, src: &[u8], dst: &mut [u8], t: Transpose) {
    let g = 8 / bits;
    let w = k * bits / 8;
    let mask = (1u64 << bits) - 1;
    let out = &mut dst[t.dst..][..t.cols * g * w];
    for (j, o) in out.chunks_exact_mut(g * w).enumerate() {
        let mut words = [0u64; 8];
        for r in 0..k {
            let v = u64::from(src[t.src + r * t.src_row_stride + j]);
            for (e, word) in words.iter_mut().enumerate().take(g) {
                *word |= ((v >> (bits * e)) & mask) << (bits * r);
            }
        }
        for (e, o) in o.chunks_exact_mut(w).enumerate() {
            o.copy_from_slice(&words[e].to_le_bytes()[..w]);
        }
    }
}
