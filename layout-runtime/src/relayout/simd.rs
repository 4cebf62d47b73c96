//! SSE2 kernels for the two moves portable code leaves to scalar instructions (measured in
//! BENCHMARKS.md, "Relayout"): the 4×4 transpose of 4-byte elements, and the regrouping of
//! packed 4-bit elements into `(8,1)` column groups. SSE2 is part of every x86_64 target, so
//! no detection is needed.
//!
//! Memory is only touched through slices (`bytemuck` turns `[u8; 16]`-sized arrays into
//! vectors and back): the intrinsics used compute on values, which is why they are sound to
//! call wherever SSE2 is enabled (and, from Rust 1.87 on, safe functions; the `unsafe`
//! blocks are for older compilers).

use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_or_si128, _mm_set1_epi8, _mm_slli_epi16,
    _mm_srli_epi16, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64, _mm_unpackhi_epi8,
    _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64, _mm_unpacklo_epi8,
};

type E4 = [u8; 4];

#[inline(always)]
fn load(s: &[E4]) -> __m128i {
    let a: &[E4; 4] = s[..4].try_into().expect("4 elements");
    bytemuck::cast(*a)
}

#[inline(always)]
fn store(d: &mut [E4], v: __m128i) {
    let o: &mut [E4; 4] = (&mut d[..4]).try_into().expect("4 elements");
    *o = bytemuck::cast(v);
}

/// Rows `a b c d` of a 4×4 tile become its columns.
#[allow(unused_unsafe)]
#[inline(always)]
fn t4(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 is enabled (this module is compiled only then); unpacks read and write
    // no memory.
    unsafe {
        let ab01 = _mm_unpacklo_epi32(r[0], r[1]);
        let cd01 = _mm_unpacklo_epi32(r[2], r[3]);
        let ab23 = _mm_unpackhi_epi32(r[0], r[1]);
        let cd23 = _mm_unpackhi_epi32(r[2], r[3]);
        [
            _mm_unpacklo_epi64(ab01, cd01),
            _mm_unpackhi_epi64(ab01, cd01),
            _mm_unpacklo_epi64(ab23, cd23),
            _mm_unpackhi_epi64(ab23, cd23),
        ]
    }
}

/// `dst[d + i + j·c] = src[s + i·a + j]` for 4-byte elements, `i < x`, `j < y`.
///
/// Four destination rows are written at a time while the source is read four rows by four
/// bytes: of the orders measured, the one that keeps the fewest write streams open (rows a
/// power-of-two apart alias in the cache, so wide tiles thrash).
#[allow(clippy::too_many_arguments)]
pub(super) fn transpose4(
    src: &[E4],
    s: usize,
    a: usize,
    dst: &mut [E4],
    d: usize,
    c: usize,
    x: usize,
    y: usize,
) {
    let (xb, yb) = (x - x % 4, y - y % 4);
    for j0 in (0..yb).step_by(4) {
        for i0 in (0..xb).step_by(4) {
            let at = s + i0 * a + j0;
            let rows = [
                load(&src[at..]),
                load(&src[at + a..]),
                load(&src[at + 2 * a..]),
                load(&src[at + 3 * a..]),
            ];
            let cols = t4(rows);
            let at = d + j0 * c + i0;
            for (k, col) in cols.into_iter().enumerate() {
                store(&mut dst[at + k * c..], col);
            }
        }
        for j in j0..j0 + 4 {
            for i in xb..x {
                dst[d + j * c + i] = src[s + i * a + j];
            }
        }
    }
    for j in yb..y {
        for i in 0..x {
            dst[d + j * c + i] = src[s + i * a + j];
        }
    }
}

/// Eight rows of packed 4-bit elements into `(8,1)` groups: byte `j` of each row holds
/// elements `2j` (low nibble) and `2j + 1`; output group `2j` (4 bytes) holds element `2j`
/// of rows 0..8, nibble `r` for row `r`, and group `2j + 1` the high nibbles. Returns how
/// many bytes of each row were done (a multiple of 16); the caller finishes the rest.
///
/// Sixteen bytes of each row at a time. First the nibbles of row pairs merge into bytes:
/// `P_k = lo(row 2k) | lo(row 2k+1) << 4` and `Q_k` likewise for the high nibbles; then
/// output group pair `j` is byte `j` of `P_0..P_3, Q_0..Q_3` in order, which is an 8×16
/// byte transpose: three rounds of unpacks.
#[allow(unused_unsafe)]
pub(super) fn spread_nibbles8(rows: [&[u8]; 8], out: &mut [u8], bytes: usize) -> usize {
    let chunks = bytes / 16;
    for k in 0..chunks {
        let r: [__m128i; 8] = core::array::from_fn(|i| {
            let b: &[u8; 16] = rows[i][16 * k..][..16].try_into().expect("16 bytes");
            bytemuck::cast(*b)
        });
        // SAFETY: SSE2 is enabled (this module is compiled only then); every intrinsic
        // here computes on values and touches no memory.
        let words: [__m128i; 8] = unsafe {
            let nib = _mm_set1_epi8(0x0F);
            let lo = |x: __m128i, y: __m128i| {
                _mm_or_si128(_mm_and_si128(x, nib), _mm_slli_epi16(_mm_and_si128(y, nib), 4))
            };
            let hi = |x: __m128i, y: __m128i| {
                _mm_or_si128(_mm_and_si128(_mm_srli_epi16(x, 4), nib), _mm_andnot_si128(nib, y))
            };
            let p = [
                lo(r[0], r[1]),
                lo(r[2], r[3]),
                lo(r[4], r[5]),
                lo(r[6], r[7]),
                hi(r[0], r[1]),
                hi(r[2], r[3]),
                hi(r[4], r[5]),
                hi(r[6], r[7]),
            ];
            let a: [__m128i; 8] = core::array::from_fn(|i| {
                let (x, y) = (p[2 * (i / 2)], p[2 * (i / 2) + 1]);
                if i % 2 == 0 {
                    _mm_unpacklo_epi8(x, y)
                } else {
                    _mm_unpackhi_epi8(x, y)
                }
            });
            // a[2m + h]: bytes of p[2m], p[2m+1] interleaved, columns 8h..8h+8.
            let b: [__m128i; 8] = core::array::from_fn(|i| {
                // b[4g + n]: p[4g..4g+4] for columns 4n..4n+4.
                let (g, n) = (i / 4, i % 4);
                let (x, y) = (a[4 * g + n / 2], a[4 * g + 2 + n / 2]);
                if n % 2 == 0 {
                    _mm_unpacklo_epi16(x, y)
                } else {
                    _mm_unpackhi_epi16(x, y)
                }
            });
            // Word pair q: columns 2q and 2q + 1, bytes of p[0..8] each.
            core::array::from_fn(|q| {
                let (x, y) = (b[q / 2], b[4 + q / 2]);
                if q % 2 == 0 {
                    _mm_unpacklo_epi32(x, y)
                } else {
                    _mm_unpackhi_epi32(x, y)
                }
            })
        };
        let o: &mut [u8; 128] = (&mut out[128 * k..][..128]).try_into().expect("128 bytes");
        for (q, w) in words.into_iter().enumerate() {
            let bytes: [u8; 16] = bytemuck::cast(w);
            o[16 * q..16 * q + 16].copy_from_slice(&bytes);
        }
    }
    chunks * 16
}
