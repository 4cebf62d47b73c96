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
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_or_si128, _mm_packs_epi32, _mm_prefetch,
    _mm_set1_epi8, _mm_sfence, _mm_slli_epi16, _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi16,
    _mm_stream_si128, _mm_unpackhi_epi16, _mm_unpackhi_epi32, _mm_unpackhi_epi64,
    _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
    _mm_unpacklo_epi8, _MM_HINT_T0,
};

use super::kernel::Transpose;

type E4 = [u8; 4];

/// Writes 16 bytes to `dst`: a non-temporal store when `stream` and `dst` starts on a 16-byte
/// boundary (the instruction faults otherwise), a plain one otherwise.
#[allow(unused_unsafe)]
#[inline(always)]
fn put16(dst: &mut [u8; 16], v: __m128i, stream: bool) {
    // Checked here, not left to callers: a safe function must not fault on any input. The
    // callers already pass aligned chunks when streaming, so the branch always goes one way.
    if stream && dst.as_ptr() as usize % 16 == 0 {
        // SAFETY: `_mm_stream_si128` writes 16 bytes through a pointer that must be valid
        // for writes and 16-byte aligned (it faults otherwise), and needs SSE2. The pointer
        // comes from `dst`, a `&mut [u8; 16]`: valid for exactly 16 bytes of writes, not
        // aliased while we hold it; its address was checked to be a multiple of 16 just
        // above; SSE2 is enabled wherever this module is compiled (`cfg` on `mod simd`).
        unsafe { _mm_stream_si128(dst.as_mut_ptr().cast::<__m128i>(), v) }
    } else {
        *dst = bytemuck::cast(v);
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the 16-byte aligned middle: the
/// lines go to memory without first being read into the cache (a plain store reads each
/// destination line before overwriting it, half again the memory traffic of a copy).
/// Ordered for other threads by [`fence`].
pub(super) fn stream_copy(dst: &mut [u8], src: &[u8]) {
    let head = dst.as_ptr().align_offset(16).min(dst.len());
    let (first, rest) = dst.split_at_mut(head);
    let (src_first, src_rest) = src.split_at(head);
    first.copy_from_slice(src_first);
    let mut out = rest.chunks_exact_mut(16);
    let mut input = src_rest.chunks_exact(16);
    for (o, i) in (&mut out).zip(&mut input) {
        let o: &mut [u8; 16] = o.try_into().expect("16 bytes");
        let i: [u8; 16] = i.try_into().expect("16 bytes");
        put16(o, bytemuck::cast(i), true);
    }
    out.into_remainder().copy_from_slice(input.remainder());
}

/// Orders the non-temporal stores before anything this thread writes next (a release to
/// another thread included): they are weakly ordered otherwise.
#[allow(unused_unsafe)]
pub(super) fn fence() {
    // SAFETY: `_mm_sfence` only needs SSE (part of SSE2, enabled wherever this module is
    // compiled); it takes no operands and touches no memory, it only orders stores.
    unsafe { _mm_sfence() }
}

#[inline(always)]
fn load(s: &[E4]) -> __m128i {
    let a: &[E4; 4] = s[..4].try_into().expect("4 elements");
    bytemuck::cast(*a)
}

/// Asks for the cache line holding `x` to be loaded into the cache.
#[allow(unused_unsafe)]
#[inline(always)]
fn prefetch<T>(x: &T) {
    // SAFETY: `_mm_prefetch` needs SSE (enabled wherever this module is compiled). It is a
    // hint: it reads nothing into registers, writes nothing, and does not fault even on a
    // bad address; the address here is anyway that of a live reference, so in bounds.
    unsafe { _mm_prefetch(core::ptr::from_ref(x).cast::<i8>(), _MM_HINT_T0) }
}

/// Rows `a b c d` of a 4×4 tile become its columns.
#[allow(unused_unsafe)]
#[inline(always)]
fn t4(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: the intrinsics' only precondition is SSE2 support, and this module is
    // compiled only for targets where SSE2 is enabled (`cfg` on `mod simd`). Unpacks take
    // and return register values: no pointer, no memory access.
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

/// `t` for 4-byte elements, in 4×4 tiles.
///
/// Four destination rows are written at a time while the source is read four rows by four
/// elements: of the orders measured (wider tiles, 16×16 blocks, i-outer, a buffered strip,
/// streamed stores), the one that keeps the fewest destination lines live. Rows a
/// power-of-two apart alias in the cache, so wider tiles thrash.
pub(super) fn transpose4(src: &[E4], dst: &mut [E4], t: Transpose) {
    t.tiles::<E4, 4>(src, dst, |src, dst, p, j0| {
        if j0 % 16 == 0 {
            // Entering a new 64-byte line of these rows: fetch the next one early. The
            // source is walked down its columns, a pattern hardware prefetchers miss.
            for r in 0..4 {
                if let Some(next) = src.get(p.s + r * p.a + 16) {
                    prefetch(next);
                }
            }
        }
        let rows = [
            load(&src[p.s..]),
            load(&src[p.s + p.a..]),
            load(&src[p.s + 2 * p.a..]),
            load(&src[p.s + 3 * p.a..]),
        ];
        for (k, col) in t4(rows).into_iter().enumerate() {
            let piece: &mut [E4; 4] = (&mut dst[p.d + k * p.c..][..4]).try_into().expect("4");
            *piece = bytemuck::cast(col);
        }
    });
}

#[inline(always)]
fn load16(s: &[u8]) -> __m128i {
    let a: [u8; 16] = s[..16].try_into().expect("16 bytes");
    bytemuck::cast(a)
}

/// Writes vectors to consecutive 16-byte pieces of `out`.
#[inline(always)]
fn put_all<const N: usize>(out: &mut [u8], v: [__m128i; N], stream: bool) {
    for (o, v) in out.chunks_exact_mut(16).zip(v) {
        put16(o.try_into().expect("16 bytes"), v, stream);
    }
}

/// The `(4,1)` groups of 1-byte elements: `out[4j + r] = rows[r][j]`, sixteen columns at a
/// time with two rounds of unpacks. Returns the columns done (a multiple of 16).
#[allow(unused_unsafe)]
pub(super) fn interleave_u8x4(rows: [&[u8]; 4], out: &mut [u8], stream: bool) -> usize {
    let n = rows[0].len() - rows[0].len() % 16;
    let stream = stream && out.as_ptr() as usize % 16 == 0;
    for (j, o) in out[..4 * n].chunks_exact_mut(64).enumerate() {
        // Written out, not `rows.map(..)`: the optimizer left that as a call per 16 columns,
        // 40% of the run time in a profile of the s8 (4,1) case.
        let at = 16 * j;
        let r = [
            load16(&rows[0][at..]),
            load16(&rows[1][at..]),
            load16(&rows[2][at..]),
            load16(&rows[3][at..]),
        ];
        // SAFETY: the intrinsics' only precondition is SSE2 support, and this module is
        // compiled only for targets where SSE2 is enabled. Unpacks take and return register
        // values: no pointer, no memory access.
        let v = unsafe {
            let (a, b) = (_mm_unpacklo_epi8(r[0], r[1]), _mm_unpackhi_epi8(r[0], r[1]));
            let (c, d) = (_mm_unpacklo_epi8(r[2], r[3]), _mm_unpackhi_epi8(r[2], r[3]));
            [
                _mm_unpacklo_epi16(a, c),
                _mm_unpackhi_epi16(a, c),
                _mm_unpacklo_epi16(b, d),
                _mm_unpackhi_epi16(b, d),
            ]
        };
        put_all(o, v, stream);
    }
    n
}

/// The `(2,1)` row pairs of 2-byte elements (bf16): `out[2j + r] = rows[r][j]`, eight
/// columns at a time. `rows` and `out` are bytes. Returns the columns done.
#[allow(unused_unsafe)]
pub(super) fn interleave_u16x2(rows: [&[u8]; 2], out: &mut [u8], stream: bool) -> usize {
    let n = rows[0].len() / 2 - rows[0].len() / 2 % 8;
    let stream = stream && out.as_ptr() as usize % 16 == 0;
    for (j, o) in out[..4 * n].chunks_exact_mut(32).enumerate() {
        let r = [load16(&rows[0][16 * j..]), load16(&rows[1][16 * j..])];
        // SAFETY: the unpacks need SSE2, enabled wherever this module is compiled; they
        // compute on register values and touch no memory.
        let v = unsafe { [_mm_unpacklo_epi16(r[0], r[1]), _mm_unpackhi_epi16(r[0], r[1])] };
        put_all(o, v, stream);
    }
    n
}

/// Row pairs of 2-byte elements back into two rows: `rows[r][j] = words[2j + r]`, eight
/// columns at a time (each lane shifted into place, then a saturating pack that cannot
/// saturate: the values are sign-extended 16-bit). Returns the columns done.
///
/// Plain stores: streamed ones measured slower here, as callers interleave several rows.
#[allow(unused_unsafe)]
pub(super) fn deinterleave_u16x2(words: &[u8], rows: [&mut [u8]; 2]) -> usize {
    let [r0, r1] = rows;
    let n = r0.len() / 2 - r0.len() / 2 % 8;
    let pieces = r0[..2 * n].chunks_exact_mut(16).zip(r1[..2 * n].chunks_exact_mut(16));
    for (j, (o0, o1)) in pieces.enumerate() {
        let (v0, v1) = (load16(&words[32 * j..]), load16(&words[32 * j + 16..]));
        // SAFETY: shifts and packs need SSE2, enabled wherever this module is compiled;
        // they compute on register values and touch no memory.
        let (even, odd) = unsafe {
            let low = |v| _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
            (
                _mm_packs_epi32(low(v0), low(v1)),
                _mm_packs_epi32(_mm_srai_epi32(v0, 16), _mm_srai_epi32(v1, 16)),
            )
        };
        put16(o0.try_into().expect("16 bytes"), even, false);
        put16(o1.try_into().expect("16 bytes"), odd, false);
    }
    n
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
pub(super) fn spread_nibbles8(
    rows: [&[u8]; 8],
    out: &mut [u8],
    bytes: usize,
    stream: bool,
) -> usize {
    let chunks = bytes / 16;
    // Output chunks are 16 bytes apart from `out`: all aligned or none.
    let stream = stream && out.as_ptr() as usize % 16 == 0;
    for k in 0..chunks {
        // Written out, like the other kernels' loads: array helpers in this loop were left as
        // calls by the optimizer.
        let at = 16 * k;
        let r: [__m128i; 8] = [
            load16(&rows[0][at..]),
            load16(&rows[1][at..]),
            load16(&rows[2][at..]),
            load16(&rows[3][at..]),
            load16(&rows[4][at..]),
            load16(&rows[5][at..]),
            load16(&rows[6][at..]),
            load16(&rows[7][at..]),
        ];
        // SAFETY: every intrinsic here (and, or, shifts, set1, unpacks) needs SSE2 only,
        // enabled wherever this module is compiled; they compute on register values and
        // touch no memory.
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
        for (o, w) in o.chunks_exact_mut(16).zip(words) {
            put16(o.try_into().expect("16 bytes"), w, stream);
        }
    }
    chunks * 16
}

#[cfg(test)]
mod tests {
    use alloc::vec;
    use alloc::vec::Vec;

    use super::*;

    #[test]
    fn stream_copy_heads_middles_and_tails() {
        let src: [u8; 200] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        for offset in 0..17 {
            for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 183] {
                let mut dst = [0u8; 200];
                stream_copy(&mut dst[offset..offset + len], &src[..len]);
                fence();
                assert_eq!(dst[offset..offset + len], src[..len], "offset {offset} len {len}");
                assert!(dst[..offset].iter().chain(&dst[offset + len..]).all(|&b| b == 0));
            }
        }
    }

    /// The boundary of `put16`'s non-temporal store: it needs a 16-byte aligned address, so
    /// a request to stream to any other address must become a plain store.
    #[test]
    fn put16_streams_only_to_aligned_addresses() {
        let v: [u8; 16] = core::array::from_fn(|i| i as u8 + 1);
        let mut buf = [0u8; 48];
        let mut aligned = 0;
        for at in 0..32 {
            buf.fill(0);
            let out: &mut [u8; 16] = (&mut buf[at..at + 16]).try_into().unwrap();
            aligned += usize::from(out.as_ptr() as usize % 16 == 0);
            put16(out, bytemuck::cast(v), true);
            fence();
            assert_eq!(buf[at..at + 16], v, "offset {at}");
            assert!(buf[..at].iter().chain(&buf[at + 16..]).all(|&x| x == 0));
        }
        assert_eq!(aligned, 2); // both ways taken: two aligned starts, thirty others
    }

    /// The boundary of the transpose's prefetch: it asks for the line one 64-byte step
    /// ahead in each source row, and must not form a reference past the source's end (the
    /// last tiles of a buffer whose rows end there).
    #[test]
    fn transpose4_prefetches_only_inside_the_source() {
        for (x, y) in [(4, 16), (4, 20), (8, 33), (5, 4)] {
            let src: Vec<E4> = (0..x * y).map(|k| (k as u32).to_le_bytes()).collect();
            let mut dst = vec![[0u8; 4]; x * y];
            transpose4(&src, &mut dst, Transpose { s: 0, a: y, d: 0, c: x, x, y });
            for i in 0..x {
                for j in 0..y {
                    assert_eq!(dst[i + j * x], src[i * y + j], "{x}x{y} at ({i}, {j})");
                }
            }
        }
    }

    #[test]
    fn nibble_groups_streamed_or_not() {
        let rows: [[u8; 48]; 8] =
            core::array::from_fn(|r| core::array::from_fn(|j| (r * 48 + j) as u8));
        let refs = rows.each_ref().map(|r| &r[..]);
        let mut plain = [0u8; 48 * 8 + 16];
        let mut streamed = [0u8; 48 * 8 + 16];
        // An aligned start for the streamed output (the function checks, this only picks).
        let at = streamed.as_ptr().align_offset(16);
        assert_eq!(spread_nibbles8(refs, &mut plain[..384], 48, false), 48);
        assert_eq!(spread_nibbles8(refs, &mut streamed[at..at + 384], 48, true), 48);
        fence();
        assert_eq!(plain[..384], streamed[at..at + 384]);
        for j in 0..48 {
            for r in 0..8 {
                let (lo, hi) = (rows[r][j] & 15, rows[r][j] >> 4);
                assert_eq!((plain[8 * j + r / 2] >> (4 * (r % 2))) & 15, lo);
                assert_eq!((plain[8 * j + 4 + r / 2] >> (4 * (r % 2))) & 15, hi);
            }
        }
    }
}
