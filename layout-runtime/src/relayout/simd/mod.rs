//! x86_64 kernels for the moves portable code leaves to scalar instructions (measured in
//! BENCHMARKS.md, "Relayout"): the transposes of 4-byte elements, the row-group
//! interleaves of bytes and 2-byte elements, and the regrouping of packed 4-bit elements.
//! `sse2` has the baseline every x86_64 machine runs; `avx2` the same moves on 32-byte
//! vectors, for machines found to have AVX2 at run time (a [`Avx2`](super::cpu::Avx2)
//! proves it). This module has what both use: the stores, and where streaming may start.
//!
//! Memory is touched through slices, apart from the non-temporal stores (an aligned pointer
//! is their contract) and the AVX2 transpose's tiles (see there): `bytemuck` turns 16- and
//! 32-byte arrays into vectors and back, and the compiler emits unaligned loads and stores
//! for those.
//!
//! Non-temporal stores write whole cache lines only. A store of part of a line goes to
//! memory as a partial write, which costs as much as a whole line or more, and mixing them
//! with plain stores on one line costs far more (measured: a third of the speed). So a
//! kernel that streams writes the columns before its output's first line boundary with
//! plain stores, then whole lines, and the rest with plain stores again.

pub(super) mod avx2;
pub(super) mod groups;
pub(super) mod sse2;

use core::arch::x86_64::{__m128i, _mm_prefetch, _MM_HINT_T0};

/// Bytes of a cache line.
const LINE: usize = 64;
/// The row-pair split's views of tile `p` (`n` columns, a whole number of `W`s of 2-byte
/// elements): its source words in pairs of `W`s, and its two destination rows.
#[allow(clippy::type_complexity)]
#[inline(always)]
pub(super) fn pair_rows<'a, W: bytemuck::Pod>(
    src: &'a [[u8; 2]],
    dst: &'a mut [[u8; 2]],
    p: super::kernel::Transpose,
    n: usize,
) -> (&'a [[W; 2]], &'a mut [W], &'a mut [W]) {
    let words = bytemuck::cast_slice(&src[p.s..][..2 * n]);
    let (r0, r1) = dst[p.d..].split_at_mut(p.c);
    (words, bytemuck::cast_slice_mut(&mut r0[..n]), bytemuck::cast_slice_mut(&mut r1[..n]))
}

/// Writes `v[k]` to `dst[k]`: non-temporal stores when `stream` and `dst` starts on a
/// 16-byte boundary (the instruction faults otherwise), plain ones otherwise. Callers pass
/// `stream` only for pieces of whole cache lines.
#[allow(unused_unsafe)]
#[inline(always)]
pub(super) fn put16<const K: usize>(dst: &mut [[u8; 16]; K], v: [__m128i; K], stream: bool) {
    // Checked here, not left to callers: a safe function must not fault on any input.
    if stream && dst.as_ptr() as usize % 16 == 0 {
        for (o, v) in dst.iter_mut().zip(v) {
            // SAFETY: `_mm_stream_si128` writes 16 bytes through a pointer that must be
            // valid for writes and 16-byte aligned (it faults otherwise), and needs SSE2.
            // `o` is a `&mut [u8; 16]`: valid for exactly 16 bytes of writes, not aliased
            // while we hold it. It starts `16·k` bytes after `dst`, whose address was
            // checked to be a multiple of 16 just above, so it is one too. SSE2 is enabled
            // wherever this module is compiled (`cfg` on `mod simd`).
            #[cfg(not(miri))]
            unsafe {
                core::arch::x86_64::_mm_stream_si128(o.as_mut_ptr().cast::<__m128i>(), v)
            }
            // Miri cannot run `_mm_stream_si128`, which is inline assembly (`movntdq`) in
            // `core::arch`; it checks the same preconditions on an aligned typed store
            // instead (it reports a misaligned or out-of-bounds one), so the streaming
            // paths run there.
            // SAFETY: as above: `o` is valid for 16 bytes of writes and 16-byte aligned.
            #[cfg(miri)]
            unsafe {
                o.as_mut_ptr().cast::<__m128i>().write(v)
            }
        }
    } else {
        for (o, v) in dst.iter_mut().zip(v) {
            *o = bytemuck::cast(v);
        }
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the whole cache lines of `dst`:
/// the lines go to memory without first being read into the cache (a plain store reads
/// each destination line before overwriting it, half again the memory traffic of a copy).
/// Ordered for other threads by [`fence`].
pub(super) fn stream_copy(dst: &mut [u8], src: &[u8]) {
    let first = dst.as_ptr().align_offset(LINE).min(dst.len());
    let whole = (dst.len() - first) / LINE * LINE;
    let (head, rest) = dst.split_at_mut(first);
    let (middle, tail) = rest.split_at_mut(whole);
    head.copy_from_slice(&src[..first]);
    let out: &mut [[[u8; 16]; 4]] = bytemuck::cast_slice_mut(middle);
    let input: &[[[u8; 16]; 4]] = bytemuck::cast_slice(&src[first..first + whole]);
    for (o, i) in out.iter_mut().zip(input) {
        put16(o, i.map(bytemuck::cast), true);
    }
    tail.copy_from_slice(&src[first + whole..]);
}

/// Orders the non-temporal stores before anything this thread writes next (a release to
/// another thread included): they are weakly ordered otherwise.
#[allow(unused_unsafe)]
pub(super) fn fence() {
    // SAFETY: `_mm_sfence` only needs SSE (part of SSE2, enabled wherever this module is
    // compiled); it takes no operands and touches no memory, it only orders stores.
    #[cfg(not(miri))]
    unsafe {
        core::arch::x86_64::_mm_sfence()
    }
    // Miri has no `llvm.x86.sse.sfence`; there the streaming stores are plain ones, which
    // need no fence.
}

/// Asks for the cache line holding `x` to be loaded into the cache.
#[allow(unused_unsafe)]
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    // SAFETY: `_mm_prefetch` needs SSE (enabled wherever this module is compiled). It is a
    // hint: it reads nothing into registers, writes nothing, and does not fault even on a
    // bad address; the address here is anyway that of a live reference, so in bounds.
    unsafe { _mm_prefetch(core::ptr::from_ref(x).cast::<i8>(), _MM_HINT_T0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_copy_heads_middles_and_tails() {
        let src: [u8; 300] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        for offset in 0..65 {
            for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 183, 230] {
                let mut dst = [0u8; 300];
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
        let v: [[u8; 16]; 2] =
            core::array::from_fn(|k| core::array::from_fn(|i| (16 * k + i + 1) as u8));
        let mut buf = [0u8; 64];
        let mut aligned = 0;
        for at in 0..32 {
            buf.fill(0);
            let out: &mut [[u8; 16]; 2] =
                bytemuck::cast_mut::<[u8; 32], _>((&mut buf[at..at + 32]).try_into().unwrap());
            aligned += usize::from(out.as_ptr() as usize % 16 == 0);
            put16(out, v.map(bytemuck::cast), true);
            fence();
            assert_eq!(buf[at..at + 32], *bytemuck::cast_ref::<_, [u8; 32]>(&v), "offset {at}");
            assert!(buf[..at].iter().chain(&buf[at + 32..]).all(|&x| x == 0));
        }
        assert_eq!(aligned, 2); // both ways taken: two aligned starts, thirty others
    }
}
