//! The AVX2 kernels: the moves of `sse2` on 32-byte vectors, for machines found to have
//! AVX2 when the plan was built.
//!
//! Each public function takes an [`Avx2`], which exists only once `is_x86_feature_detected!`
//! (or the build's target features) said the CPU runs AVX2, and calls its
//! `#[target_feature(enable = "avx2")]` implementation: that call is the one `unsafe` step,
//! and the token is its justification. Inside the implementations the intrinsics compute on
//! register values (AVX2 is enabled there); memory moves through slices, cast to and from
//! vectors with `bytemuck`, apart from the non-temporal stores of [`put32`].
//!
//! AVX2 shuffles work within each 16-byte half (lane) of a vector, so each kernel ends with
//! a cross-lane permute (`vperm2i128`, `vpermq`) that puts the halves in memory order.

use core::arch::x86_64::{
    __m256i, _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_setr_epi8,
    _mm256_shuffle_epi8, _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32,
    _mm256_unpacklo_epi64, _mm_prefetch, _MM_HINT_T0,
};

use super::super::cpu::Avx2;
use super::super::geometry::{Rep, Transpose, ONCE};
use super::groups::{self, Group, Vector};
use super::sse2::{self, pair_rows};
use super::stream::whole_lines;

type E4 = [u8; 4];
type V = [u8; 32];

/// Rows `r[0..8]` of an 8×8 tile of 4-byte elements become its columns.
///
/// # Safety
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn t8(r: [__m256i; 8]) -> [__m256i; 8] {
    let lo32 = |a, b| _mm256_unpacklo_epi32(a, b);
    let hi32 = |a, b| _mm256_unpackhi_epi32(a, b);
    let (t0, t1) = (lo32(r[0], r[1]), hi32(r[0], r[1]));
    let (t2, t3) = (lo32(r[2], r[3]), hi32(r[2], r[3]));
    let (t4, t5) = (lo32(r[4], r[5]), hi32(r[4], r[5]));
    let (t6, t7) = (lo32(r[6], r[7]), hi32(r[6], r[7]));
    // Columns 4h + k of rows 0..4 in lane h of u[k], of rows 4..8 in lane h of u[4 + k].
    let u = [
        _mm256_unpacklo_epi64(t0, t2),
        _mm256_unpackhi_epi64(t0, t2),
        _mm256_unpacklo_epi64(t1, t3),
        _mm256_unpackhi_epi64(t1, t3),
        _mm256_unpacklo_epi64(t4, t6),
        _mm256_unpackhi_epi64(t4, t6),
        _mm256_unpacklo_epi64(t5, t7),
        _mm256_unpackhi_epi64(t5, t7),
    ];
    [
        _mm256_permute2x128_si256(u[0], u[4], 0x20),
        _mm256_permute2x128_si256(u[1], u[5], 0x20),
        _mm256_permute2x128_si256(u[2], u[6], 0x20),
        _mm256_permute2x128_si256(u[3], u[7], 0x20),
        _mm256_permute2x128_si256(u[0], u[4], 0x31),
        _mm256_permute2x128_si256(u[1], u[5], 0x31),
        _mm256_permute2x128_si256(u[2], u[6], 0x31),
        _mm256_permute2x128_si256(u[3], u[7], 0x31),
    ]
}

/// `t` for 4-byte elements in tiles of 16 source rows by 8 columns (two 8×8 register
/// transposes), `rows` source rows at a time: each destination row gets 64 contiguous
/// bytes per tile, a whole cache line when the rows start on one, so streamed stores write
/// whole lines. Returns the parts left for the caller: the first `head` rows (up to where
/// destination rows reach a line boundary) and the right and bottom edges.
pub(in super::super) fn transpose8(
    avx: Avx2,
    src: &[E4],
    dst: &mut [E4],
    t: Transpose,
    rows: usize,
    stream: bool,
) -> [Transpose; 4] {
    let (stream, [head, left, body]) = on_lines(src, dst, t, stream);
    let _ = avx;
    // SAFETY: the implementation only needs AVX2, which the `Avx2` token proves the CPU
    // runs (its only constructor checks).
    let [right, bottom] = unsafe { transpose8_imp(src, dst, body, (rows, stream)) };
    [head, left, right, bottom]
}

/// Where the tiles of a transpose of 4-byte elements start on cache lines (here and in
/// `avx512`): whether its destination rows can be streamed (every row at the same offset
/// in its line), and its parts: the first `head` source rows (up to where destination rows
/// reach a line boundary, when streaming), the first `left` columns of the others (up to
/// where source rows reach one: each tile's loads then lie within lines), and the body.
pub(super) fn on_lines(
    src: &[E4],
    dst: &[E4],
    t: Transpose,
    stream: bool,
) -> (bool, [Transpose; 3]) {
    let at = dst.as_ptr() as usize + 4 * t.dst;
    let stream = stream && (4 * t.dst_row_stride) % 64 == 0 && at % 4 == 0;
    let head = if stream { (64 - at % 64) % 64 / 4 } else { 0 }.min(t.rows);
    let from = src.as_ptr() as usize + 4 * t.src;
    let left = if (4 * t.src_row_stride) % 64 == 0 && from % 4 == 0 {
        (64 - from % 64) % 64 / 4
    } else {
        0
    };
    let left = left.min(t.cols);
    let parts = [
        t.part(0, 0, head, t.cols),
        t.part(head, 0, t.rows - head, left),
        t.part(head, left, t.rows - head, t.cols - left),
    ];
    (stream, parts)
}

/// Whether the first `xb` rows and `yb` columns of `t` lie inside `src` and `dst` (both
/// nonzero): the one bounds check of the pointer kernels (here and in `avx512`), done
/// without overflow. The last element the tiles touch on each side: row `xb - 1`, column
/// `yb - 1` of the source; row `yb - 1`, column `xb - 1` of the destination.
pub(super) fn tiles_inside(t: Transpose, xb: usize, yb: usize, src: usize, dst: usize) -> bool {
    let end = |base: usize, rows: usize, pitch: usize, cols: usize| {
        (rows.checked_sub(1)?).checked_mul(pitch)?.checked_add(base)?.checked_add(cols)
    };
    match (end(t.src, xb, t.src_row_stride, yb), end(t.dst, yb, t.dst_row_stride, xb)) {
        (Some(s_end), Some(d_end)) => yb > 0 && s_end <= src && d_end <= dst,
        _ => false,
    }
}

/// The tiles of [`transpose8`]; returns the right and bottom edges.
///
/// The one kernel that reads and writes through pointers rather than slices: bounds are
/// checked once for the whole transpose, where indexing each of the 24 rows of a tile kept
/// that many offsets live, spilled them, and ran at 0.7 of this speed (docs/benchmarks-history.md).
///
/// # Safety
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
unsafe fn transpose8_imp(
    src: &[E4],
    dst: &mut [E4],
    t: Transpose,
    (rows, stream): (usize, bool),
) -> [Transpose; 2] {
    let (xb, yb) = (t.rows - t.rows % 16, t.cols - t.cols % 8);
    let edges = [t.part(xb, 0, t.rows - xb, t.cols), t.part(0, yb, xb, t.cols - yb)];
    if !tiles_inside(t, xb, yb, src.len(), dst.len()) {
        // Nothing to tile, or (never, for blocks the plan built) out of bounds: all edges.
        return [t, t.part(0, 0, 0, 0)];
    }
    let (from, to) = (src.as_ptr(), dst.as_mut_ptr());
    let step = rows.max(16) / 16 * 16;
    for lo in (0..xb).step_by(step) {
        let hi = (lo + step).min(xb);
        for j0 in (0..yb).step_by(8) {
            for i0 in (lo..hi).step_by(16) {
                if j0 % 16 == 0 {
                    // Entering new source lines: ask for the next ones now, they are read
                    // two columns of tiles later (+15% measured; walked down its columns,
                    // the source is a pattern the hardware prefetchers miss).
                    for i in 0..16 {
                        let next = from.wrapping_add(t.src + (i0 + i) * t.src_row_stride + j0 + 16);
                        // A hint: it never faults and accesses nothing, whatever the address.
                        _mm_prefetch(next.cast::<i8>(), _MM_HINT_T0);
                    }
                }
                let r: [__m256i; 16] = core::array::from_fn(|i| {
                    // SAFETY: `i0 + i < xb` and `j0 + 8 <= yb`, so the 8 elements of source
                    // row `i0 + i` from column `j0` end at or before the end `tiles_inside`
                    // checked, without overflow, to be inside `src`, which we only read.
                    let row = unsafe {
                        &*from.add(t.src + (i0 + i) * t.src_row_stride + j0).cast::<[E4; 8]>()
                    };
                    bytemuck::cast(*row)
                });
                let a = t8([r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]]);
                let b = t8([r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]]);
                for k in 0..8 {
                    // SAFETY: `j0 + k < yb` and `i0 + 16 <= xb`: the 16 elements of
                    // destination row `j0 + k` from column `i0` end at or before the end
                    // `tiles_inside` checked to be inside `dst`. `to` comes from `dst`,
                    // borrowed exclusively and not used
                    // otherwise while this reference lives; distinct rows never overlap
                    // (`c >= x`), and each reference is dropped before the next is made.
                    let o = unsafe {
                        &mut *to.add(t.dst + (j0 + k) * t.dst_row_stride + i0).cast::<[E4; 16]>()
                    };
                    // Whole lines: each row starts on one (see `transpose8`).
                    let o: &mut [[u8; 32]; 2] = bytemuck::cast_mut(o);
                    a[k].store(&mut o[0], stream);
                    b[k].store(&mut o[1], stream);
                }
            }
        }
    }
    edges
}

/// The row-group kernel `G` on 32-byte vectors (`src`, `dst` in bytes, `t` in elements),
/// for `t` and its `rep` copies; tiles narrower than a vector go to the SSE2 one.
pub(in super::super) fn groups<G: Group>(
    avx: Avx2,
    src: &[u8],
    dst: &mut [u8],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let _ = avx;
    // SAFETY: the implementation only needs AVX2, which the `Avx2` token proves.
    unsafe { groups_imp::<G>(src, dst, t, rep, stream) }
}

/// # Safety
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
unsafe fn groups_imp<G: Group>(src: &[u8], dst: &mut [u8], t: Transpose, rep: Rep, stream: bool) {
    let lower = |s: &[u8], d: &mut [u8], p, stream| sse2::groups::<G>(s, d, p, ONCE, stream);
    groups::run::<__m256i, G, false>(src, dst, t, rep, stream, lower)
}

/// Row pairs of 2-byte elements back into two rows: element `r` of pair `i` goes to
/// `dst[t.dst + r·dst_row_stride + i]`, for `t` and its `rep` copies, 16 columns at a time;
/// the rest, and the stores, as `sse2` does them.
pub(in super::super) fn deinterleave_u16x2(
    avx: Avx2,
    src: &[[u8; 2]],
    dst: &mut [[u8; 2]],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let _ = avx;
    // SAFETY: the implementation only needs AVX2, which the `Avx2` token proves.
    unsafe { deinterleave_u16x2_imp(src, dst, t, rep, stream) }
}

/// # Safety
/// The CPU must run AVX2.
#[target_feature(enable = "avx2")]
unsafe fn deinterleave_u16x2_imp(
    src: &[[u8; 2]],
    dst: &mut [[u8; 2]],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let n = t.rows - t.rows % 16;
    // Within each lane: the even elements of its four pairs, then the odd ones.
    let split = _mm256_setr_epi8(
        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15, //
        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
    );
    for p in t.repeat(rep) {
        let (words, r0, r1) = pair_rows::<V>(src, dst, p, n);
        let lines = [whole_lines(bytemuck::cast_slice(r0)), whole_lines(bytemuck::cast_slice(r1))];
        // Streamed where the 32 bytes lie in whole lines of the row's piece.
        let streams = |r: usize, k: usize| {
            stream && lines[r].contains(&(32 * k)) && 32 * k + 32 <= lines[r].end
        };
        // 64-bit quarters [even 0..4, odd 0..4 | even 4..8, odd 4..8], then
        // [even 0..8 | odd 0..8] (order 0, 2, 1, 3): the two rows' vectors.
        let rows = |w: &[V; 2]| {
            let half = |w| _mm256_permute4x64_epi64(_mm256_shuffle_epi8(w, split), 0xD8);
            let (v0, v1) = (half(bytemuck::cast(w[0])), half(bytemuck::cast(w[1])));
            [_mm256_permute2x128_si256(v0, v1, 0x20), _mm256_permute2x128_si256(v0, v1, 0x31)]
        };
        if stream {
            // One row's piece whole, then the other's: streamed stores to two lines in
            // turn measured 5.5 against 7.9 GB/s (bf16 T(8,128)(2,1) back, 128 MiB, on a
            // line); the second pass reads the source from the first-level cache.
            for (r, out) in [r0, r1].into_iter().enumerate() {
                for (k, (w, o)) in words.iter().zip(out).enumerate() {
                    rows(w)[r].store(o, streams(r, k));
                }
            }
        } else {
            for (w, (o0, o1)) in words.iter().zip(r0.iter_mut().zip(r1)) {
                let [v0, v1] = rows(w);
                (*o0, *o1) = (bytemuck::cast(v0), bytemuck::cast(v1));
            }
        }
        if n < p.rows {
            // The last columns, where there are some: an empty call per tile is not free
            // (a tile's 256-byte rows take about 120 cycles).
            sse2::deinterleave_u16x2(src, dst, p.part(n, 0, p.rows - n, 2), ONCE, stream);
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;

    /// The boundary of the pointer loads and stores: tiles that end exactly at the end of
    /// both buffers (no slack after them), with and without edges, in buffers that start
    /// anywhere; and a transpose whose last element would lie past the end, refused
    /// whole rather than read.
    #[test]
    fn transpose8_stays_inside_both_buffers() {
        let Some(avx) = Avx2::new() else {
            #[cfg(feature = "std")]
            crate::relayout::cpu::tests::say_untested(
                crate::relayout::cpu::Simd::Avx2,
                "the AVX2 transpose's boundary test",
            );
            return;
        };
        for (x, y) in [(16, 8), (32, 16), (48, 40), (17, 9), (16, 7)] {
            let src: Vec<E4> = (0..x * y).map(|k| (k as u32).to_le_bytes()).collect();
            let mut dst = vec![[0u8; 4]; x * y];
            let t = Transpose::matrix(x, y);
            for stream in [false, true] {
                for e in transpose8(avx, &src, &mut dst, t, 128, stream) {
                    e.scalar(&src, &mut dst);
                }
                for i in 0..x {
                    for j in 0..y {
                        assert_eq!(dst[i + j * x], src[i * y + j], "{x}x{y} at ({i}, {j})");
                    }
                }
            }
        }
        let src = vec![[1u8; 4]; 16 * 8 - 1];
        let mut dst = vec![[0u8; 4]; 16 * 8];
        let t =
            Transpose { src: 0, src_row_stride: 8, dst: 0, dst_row_stride: 16, rows: 16, cols: 8 };
        // SAFETY: the implementation needs AVX2, which `avx` proves the CPU runs.
        let edges = unsafe { transpose8_imp(&src, &mut dst, t, (128, false)) };
        assert_eq!(edges[0], t); // all of it left to the checked edge code
        assert!(dst.iter().all(|&e| e == [0; 4]));
    }
}
