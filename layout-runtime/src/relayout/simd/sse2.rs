//! The SSE2 kernels. SSE2 is part of every x86_64 target, so no detection is needed: the
//! intrinsics' only precondition holds wherever this module is compiled (`cfg` on
//! `mod simd`).
//!
//! The row-group kernels are those of `groups` on 16-byte vectors; the transpose and the
//! row-pair split are SSE2's own.

use core::arch::x86_64::{
    __m128i, _mm_packs_epi32, _mm_slli_epi32, _mm_srai_epi32, _mm_unpackhi_epi32,
    _mm_unpackhi_epi64, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
};

use super::super::geometry::{Rep, Transpose};
use super::groups::{self, Group};
use super::stream::{prefetch, put16, whole_lines};

type E4 = [u8; 4];
type V = [u8; 16];

/// Rows `a b c d` of a 4×4 tile of 4-byte elements become its columns.
#[allow(unused_unsafe)]
#[inline(always)]
fn t4(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: the intrinsics' only precondition is SSE2 support, and this module is
    // compiled only for targets where SSE2 is enabled. Unpacks take and return register
    // values: no pointer, no memory access.
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

#[inline(always)]
fn load4(s: &[E4]) -> __m128i {
    let a: &[E4; 4] = s[..4].try_into().expect("4 elements");
    bytemuck::cast(*a)
}

/// The row-pair split's views of tile `p` (`n` columns, a whole number of `W`s of 2-byte
/// elements): its source words in pairs of `W`s, and its two destination rows (here and in
/// `avx2`).
#[allow(clippy::type_complexity)]
#[inline(always)]
pub(super) fn pair_rows<'a, W: bytemuck::Pod>(
    src: &'a [[u8; 2]],
    dst: &'a mut [[u8; 2]],
    p: Transpose,
    n: usize,
) -> (&'a [[W; 2]], &'a mut [W], &'a mut [W]) {
    let words = bytemuck::cast_slice(&src[p.src..][..2 * n]);
    let (r0, r1) = dst[p.dst..].split_at_mut(p.dst_row_stride);
    (words, bytemuck::cast_slice_mut(&mut r0[..n]), bytemuck::cast_slice_mut(&mut r1[..n]))
}

/// `t` for 4-byte elements, in 4×4 tiles, `rows` source rows at a time; the edges element
/// by element.
///
/// Four destination rows are written at a time while the source is read four rows by four
/// elements: of the orders measured (wider tiles, 16×16 blocks, i-outer, a buffered strip,
/// streamed stores), the one that keeps the fewest destination lines live. Rows a
/// power-of-two apart alias in the cache, so wider tiles thrash.
pub(in super::super) fn transpose4(src: &[E4], dst: &mut [E4], t: Transpose, rows: usize) {
    let edges = t.tiles::<E4, 4, 4>(src, dst, rows, |src, dst, p, j0| {
        if j0 % 16 == 0 {
            // Entering a new 64-byte line of these rows: fetch the next one early. The
            // source is walked down its columns, a pattern hardware prefetchers miss.
            for r in 0..4 {
                if let Some(next) = src.get(p.src + r * p.src_row_stride + 16) {
                    prefetch(next);
                }
            }
        }
        let rows = [
            load4(&src[p.src..]),
            load4(&src[p.src + p.src_row_stride..]),
            load4(&src[p.src + 2 * p.src_row_stride..]),
            load4(&src[p.src + 3 * p.src_row_stride..]),
        ];
        for (k, col) in t4(rows).into_iter().enumerate() {
            let piece: &mut [E4; 4] =
                (&mut dst[p.dst + k * p.dst_row_stride..][..4]).try_into().expect("4");
            *piece = bytemuck::cast(col);
        }
    });
    for e in edges {
        e.scalar(src, dst);
    }
}

/// The row-group kernel `G` on 16-byte vectors (`src`, `dst` in bytes, `t` in elements),
/// for `t` and its `rep` copies; tiles narrower than a vector element by element.
pub(in super::super) fn groups<G: Group>(
    src: &[u8],
    dst: &mut [u8],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let lower = |s: &[u8], d: &mut [u8], p: Transpose, _| G::scalar(s, d, p);
    // SAFETY: the kernel needs SSE2, enabled wherever this module is compiled.
    unsafe { groups::run::<__m128i, G, false>(src, dst, t, rep, stream, lower) }
}

/// Row pairs of 2-byte elements back into two rows: element `r` of pair `i` goes to
/// `dst[t.dst + r·dst_row_stride + i]`, for `t` and its `rep` copies, eight columns at a time (each lane shifted into place,
/// then a saturating pack that cannot saturate: the values are sign-extended 16-bit).
///
/// With `stream`, the whole cache lines of each destination row piece are streamed, the
/// rest written with plain stores (a destination on a line boundary is all whole lines),
/// one row's piece after the other.
#[allow(unused_unsafe)]
pub(in super::super) fn deinterleave_u16x2(
    src: &[[u8; 2]],
    dst: &mut [[u8; 2]],
    t: Transpose,
    rep: Rep,
    stream: bool,
) {
    let n = t.rows - t.rows % 8;
    for p in t.repeat(rep) {
        let (words, r0, r1) = pair_rows::<V>(src, dst, p, n);
        let lines = [whole_lines(bytemuck::cast_slice(r0)), whole_lines(bytemuck::cast_slice(r1))];
        // Streamed where the 16 bytes lie in whole lines of the row's piece.
        let streams = |r: usize, k: usize| {
            stream && lines[r].contains(&(16 * k)) && 16 * k + 16 <= lines[r].end
        };
        let rows = |w: &[V; 2]| {
            let (v0, v1) = (bytemuck::cast::<V, __m128i>(w[0]), bytemuck::cast(w[1]));
            // SAFETY: shifts and packs need SSE2, enabled wherever this module is compiled;
            // they compute on register values and touch no memory.
            unsafe {
                let low = |v| _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
                [
                    _mm_packs_epi32(low(v0), low(v1)),
                    _mm_packs_epi32(_mm_srai_epi32(v0, 16), _mm_srai_epi32(v1, 16)),
                ]
            }
        };
        if stream {
            // One row's piece whole, then the other's (see `avx2::deinterleave_u16x2`).
            for (r, out) in [r0, r1].into_iter().enumerate() {
                for (k, (w, o)) in words.iter().zip(out).enumerate() {
                    put16(core::array::from_mut(o), [rows(w)[r]], streams(r, k));
                }
            }
        } else {
            for (w, (o0, o1)) in words.iter().zip(r0.iter_mut().zip(r1)) {
                let [even, odd] = rows(w);
                (*o0, *o1) = (bytemuck::cast(even), bytemuck::cast(odd));
            }
        }
        if n < p.rows {
            p.part(n, 0, p.rows - n, 2).scalar(src, dst);
        }
    }
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;

    /// The boundary of the transpose's prefetch: it asks for the line one 64-byte step
    /// ahead in each source row, and must not form a reference past the source's end (the
    /// last tiles of a buffer whose rows end there).
    #[test]
    fn transpose4_prefetches_only_inside_the_source() {
        for (x, y) in [(4, 16), (4, 20), (8, 33), (5, 4)] {
            let src: Vec<E4> = (0..x * y).map(|k| (k as u32).to_le_bytes()).collect();
            let mut dst = vec![[0u8; 4]; x * y];
            let t = Transpose::matrix(x, y);
            transpose4(&src, &mut dst, t, 128);
            for i in 0..x {
                for j in 0..y {
                    assert_eq!(dst[i + j * x], src[i * y + j], "{x}x{y} at ({i}, {j})");
                }
            }
        }
    }
}
