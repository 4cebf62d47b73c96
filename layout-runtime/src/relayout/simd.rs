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
    __m128i, _mm_and_si128, _mm_or_si128, _mm_packus_epi16, _mm_set1_epi16, _mm_set1_epi8,
    _mm_shuffle_epi32, _mm_srli_epi16, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
    _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    _mm_unpacklo_epi8,
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
/// Sixteen bytes of each row at a time: three rounds of unpacks transpose the 8×16 bytes
/// into sixteen 8-byte words (row `r` in byte `r`), then each word's low and high nibbles
/// are squeezed into 32 bits with a shift, an or and an unsigned pack.
#[allow(unused_unsafe)]
pub(super) fn spread_nibbles8(rows: [&[u8]; 8], out: &mut [u8], bytes: usize) -> usize {
    let chunks = bytes / 16;
    for k in 0..chunks {
        let r: [__m128i; 8] = core::array::from_fn(|i| {
            let b: &[u8; 16] = rows[i][16 * k..][..16].try_into().expect("16 bytes");
            bytemuck::cast(*b)
        });
        let o: &mut [u8; 128] = (&mut out[128 * k..][..128]).try_into().expect("128 bytes");
        // SAFETY: SSE2 is enabled (this module is compiled only then); every intrinsic
        // here computes on values and touches no memory.
        let words: [__m128i; 8] = unsafe {
            let a01 = [_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1])];
            let a23 = [_mm_unpacklo_epi8(r[2], r[3]), _mm_unpackhi_epi8(r[2], r[3])];
            let a45 = [_mm_unpacklo_epi8(r[4], r[5]), _mm_unpackhi_epi8(r[4], r[5])];
            let a67 = [_mm_unpacklo_epi8(r[6], r[7]), _mm_unpackhi_epi8(r[6], r[7])];
            // Rows 0..4 and 4..8 of columns 4m..4m+4, 4 bytes per column.
            let b0: [__m128i; 4] = core::array::from_fn(|m| {
                let (x, y) = (a01[m / 2], a23[m / 2]);
                if m % 2 == 0 {
                    _mm_unpacklo_epi16(x, y)
                } else {
                    _mm_unpackhi_epi16(x, y)
                }
            });
            let b1: [__m128i; 4] = core::array::from_fn(|m| {
                let (x, y) = (a45[m / 2], a67[m / 2]);
                if m % 2 == 0 {
                    _mm_unpacklo_epi16(x, y)
                } else {
                    _mm_unpackhi_epi16(x, y)
                }
            });
            // Word pair q: columns 2q and 2q + 1, all eight rows each.
            core::array::from_fn(|q| {
                let (x, y) = (b0[q / 2], b1[q / 2]);
                if q % 2 == 0 {
                    _mm_unpacklo_epi32(x, y)
                } else {
                    _mm_unpackhi_epi32(x, y)
                }
            })
        };
        for (q, w) in words.into_iter().enumerate() {
            // SAFETY: as above.
            let v = unsafe {
                let nib = _mm_set1_epi8(0x0F);
                let byte = _mm_set1_epi16(0x00FF);
                let squeeze = |v: __m128i| {
                    // Per 16-bit lane [b0, b1] of nibbles: b0 | b1 << 4 in the low byte.
                    _mm_and_si128(_mm_or_si128(v, _mm_srli_epi16(v, 4)), byte)
                };
                let lo = squeeze(_mm_and_si128(w, nib));
                let hi = squeeze(_mm_and_si128(_mm_srli_epi16(w, 4), nib));
                // [lo 2q, lo 2q+1, hi 2q, hi 2q+1] -> [lo 2q, hi 2q, lo 2q+1, hi 2q+1]
                _mm_shuffle_epi32(_mm_packus_epi16(lo, hi), 0b11_01_10_00)
            };
            let bytes: [u8; 16] = bytemuck::cast(v);
            o[16 * q..16 * q + 16].copy_from_slice(&bytes);
        }
    }
    chunks * 16
}
