//! Non-temporal ("streaming") stores, the one thing every SIMD kernel and the plain runs
//! share: the 16-byte store itself ([`put16`]), copies that stream every whole cache line of
//! their destination ([`stream_copy`], [`stream_gather`]; written once over how a line is
//! stored, [`Line`], for the AVX-512 level's 64-byte stores too), the fence that orders them,
//! and a prefetch hint. SSE2 is enough for all of it (every x86_64 machine).
//!
//! Non-temporal stores write whole cache lines only. A store of part of a line goes to
//! memory as a partial write, which costs as much as a whole line or more, and mixing them
//! with plain stores on one line costs far more (measured: a third of the speed). So a
//! kernel that streams writes the columns before its output's first line boundary with
//! plain stores, then whole lines, and the rest with plain stores again.

use core::arch::x86_64::{__m128i, _mm_prefetch, _MM_HINT_T0};

/// Bytes of a cache line.
pub(in super::super) const LINE: usize = 64;

/// Writes `v[k]` to `dst[k]`: non-temporal stores when `stream` and `dst` starts on a
/// 16-byte boundary (the instruction faults otherwise), plain ones otherwise. Callers pass
/// `stream` only for pieces of whole cache lines.
#[allow(unused_unsafe)]
#[inline(always)]
pub(in super::super) fn put16<const K: usize>(
    dst: &mut [[u8; 16]; K],
    v: [__m128i; K],
    stream: bool,
) {
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

/// The bytes of `out` in whole cache lines: what a kernel may stream without leaving a
/// partial line (the rest it writes with plain stores).
#[inline(always)]
pub(in super::super) fn whole_lines(out: &[u8]) -> core::ops::Range<usize> {
    let first = out.as_ptr().align_offset(LINE).min(out.len());
    first..first + (out.len() - first) / LINE * LINE
}

/// How a kernel writes one whole cache line with non-temporal stores: four 16-byte stores
/// ([`Sse2Line`], every x86_64 machine), or one 64-byte store (`avx512::Zmm`). The copies
/// below are written once over it; each SIMD level instantiates them inside a function
/// compiled for its instructions.
pub(in super::super) trait Line: Copy {
    /// Writes `v` to `out`, non-temporally where `out` starts on a line (any other address
    /// gets plain stores: the instruction would fault).
    ///
    /// # Safety
    /// The CPU must run the implementation's instructions.
    unsafe fn line(self, out: &mut [u8; LINE], v: &[u8; LINE]);
}

/// A line as four SSE2 stores ([`put16`]).
#[derive(Clone, Copy)]
pub(in super::super) struct Sse2Line;

impl Line for Sse2Line {
    #[inline(always)]
    unsafe fn line(self, out: &mut [u8; LINE], v: &[u8; LINE]) {
        let v: [[u8; 16]; 4] = bytemuck::cast(*v);
        put16(bytemuck::cast_mut(out), v.map(bytemuck::cast), true);
    }
}

/// `dst.copy_from_slice(src)` with non-temporal stores for the whole cache lines of `dst`:
/// the lines go to memory without first being read into the cache (a plain store reads
/// each destination line before overwriting it, half again the memory traffic of a copy).
/// Ordered for other threads by [`fence`].
pub(in super::super) fn stream_copy(dst: &mut [u8], src: &[u8]) {
    // SAFETY: `Sse2Line` needs SSE2, enabled wherever this module is compiled.
    unsafe { copy_lines(Sse2Line, dst, src) }
}

/// [`stream_copy`] with `L`'s line stores.
///
/// # Safety
/// The CPU must run `L`'s instructions.
#[inline(always)]
pub(in super::super) unsafe fn copy_lines<L: Line>(l: L, dst: &mut [u8], src: &[u8]) {
    let first = dst.as_ptr().align_offset(LINE).min(dst.len());
    let whole = (dst.len() - first) / LINE * LINE;
    let (head, rest) = dst.split_at_mut(first);
    let (middle, tail) = rest.split_at_mut(whole);
    // The partial lines only where there are some: a copy of no bytes is still a call to
    // `memcpy`, two per run of a tile (512 bytes in an f32 `T(8,128)` tile), which cost
    // 0.78 against 0.90 of a copy's speed (docs/benchmarks-history.md).
    if !head.is_empty() {
        head.copy_from_slice(&src[..first]);
    }
    let out: &mut [[u8; LINE]] = bytemuck::cast_slice_mut(middle);
    let input: &[[u8; LINE]] = bytemuck::cast_slice(&src[first..first + whole]);
    for (o, i) in out.iter_mut().zip(input) {
        l.line(o, i);
    }
    if !tail.is_empty() {
        tail.copy_from_slice(&src[first + whole..]);
    }
}

/// `dst` = the concatenation of `dst.len() / run` pieces of `run` bytes (piece `k` is
/// `piece(k)`), with every whole cache line of `dst` streamed, the lines that straddle two
/// pieces included: they are put together in registers first. Copying piece by piece with
/// [`stream_copy`] leaves the line at each seam to plain stores, which read it from memory
/// first; with the destination 32 bytes past a line that halved the speed of 512-byte
/// pieces (5.3 against 11-13 GB/s).
#[inline(always)]
pub(in super::super) fn stream_gather<'s>(
    dst: &mut [u8],
    run: usize,
    piece: impl Fn(usize) -> &'s [u8],
) {
    // SAFETY: `Sse2Line` needs SSE2, enabled wherever this module is compiled.
    unsafe { gather_lines(Sse2Line, dst, run, piece) }
}

/// [`stream_gather`] with `L`'s line stores.
///
/// # Safety
/// The CPU must run `L`'s instructions.
#[inline(always)]
pub(in super::super) unsafe fn gather_lines<'s, L: Line>(
    l: L,
    dst: &mut [u8],
    run: usize,
    piece: impl Fn(usize) -> &'s [u8],
) {
    debug_assert!(run > 0 && dst.len() % run == 0);
    let first = dst.as_ptr().align_offset(LINE).min(dst.len());
    let whole = (dst.len() - first) / LINE * LINE;
    let (head, rest) = dst.split_at_mut(first);
    let (middle, tail) = rest.split_at_mut(whole);
    let mut at = Seam { run, k: 0, i: 0 };
    if !head.is_empty() {
        at.fill(head, &piece);
    }
    let mut lines: &mut [[u8; LINE]] = bytemuck::cast_slice_mut(middle);
    while !lines.is_empty() {
        // The lines inside the current piece, streamed straight from it; or, where the
        // piece ends inside the next line, that line put together first.
        let inside = ((run - at.i) / LINE).min(lines.len());
        if inside > 0 {
            let (out, more) = core::mem::take(&mut lines).split_at_mut(inside);
            let from = &piece(at.k)[at.i..][..inside * LINE];
            for (o, v) in out.iter_mut().zip(bytemuck::cast_slice::<u8, [u8; LINE]>(from)) {
                l.line(o, v);
            }
            at.advance(inside * LINE);
            lines = more;
        } else if let Some((seam, more)) = core::mem::take(&mut lines).split_first_mut() {
            let mut v = [0u8; LINE];
            if run >= LINE {
                // The last `a` bytes of this piece and the first of the next, from copies
                // of fixed size (copies of any size are calls, too slow once a line).
                let a = run - at.i;
                let mut two = [0u8; 2 * LINE];
                two[..LINE].copy_from_slice(&piece(at.k)[run - LINE..]);
                two[LINE..].copy_from_slice(&piece(at.k + 1)[..LINE]);
                v.copy_from_slice(&two[LINE - a..][..LINE]);
                at.advance(a);
                at.advance(LINE - a);
            } else {
                at.fill(&mut v, &piece);
            }
            l.line(seam, &v);
            lines = more;
        }
    }
    if !tail.is_empty() {
        at.fill(tail, &piece);
    }
}

/// Where [`stream_gather`] takes its next byte from: piece `k`, byte `i` (of `run`).
struct Seam {
    run: usize,
    k: usize,
    i: usize,
}

impl Seam {
    fn advance(&mut self, bytes: usize) {
        self.i += bytes;
        if self.i == self.run {
            (self.k, self.i) = (self.k + 1, 0);
        }
    }

    /// Fills `out` from the next bytes of the pieces.
    fn fill<'s>(&mut self, out: &mut [u8], piece: &impl Fn(usize) -> &'s [u8]) {
        let mut o = 0;
        while o < out.len() {
            let take = (self.run - self.i).min(out.len() - o);
            out[o..o + take].copy_from_slice(&piece(self.k)[self.i..self.i + take]);
            o += take;
            self.advance(take);
        }
    }
}

/// Orders the non-temporal stores before anything this thread writes next (a release to
/// another thread included): they are weakly ordered otherwise.
#[allow(unused_unsafe)]
pub(in super::super) fn fence() {
    // SAFETY: `_mm_sfence` only needs SSE (part of SSE2, enabled wherever this module is
    // compiled); it takes no operands and touches no memory, it only orders stores.
    #[cfg(not(miri))]
    unsafe {
        core::arch::x86_64::_mm_sfence()
    }
    // Miri has no `llvm.x86.sse.sfence`; there the streaming stores are plain ones, which
    // need no fence.
}

/// Writes every cache line `bytes` touches back to memory and drops it from the caches
/// (`clflush`), then waits for that to finish: how a measuring plan charges cached stores
/// the write-backs they leave for later (`measure`).
#[cfg(feature = "std")]
#[allow(unused_unsafe)]
pub(in super::super) fn flush(bytes: &[u8]) {
    let first = (bytes.as_ptr() as usize) % LINE;
    for k in (0..bytes.len() + first).step_by(LINE) {
        let Some(byte) = bytes.get(k.saturating_sub(first)) else { break };
        // SAFETY: `_mm_clflush` needs SSE2 (enabled wherever this module is compiled) and
        // an address; it writes the line back if dirty and invalidates it, without changing
        // what any thread reads from that memory. The address is that of a byte of a live
        // slice we hold a shared reference to.
        #[cfg(not(miri))]
        unsafe {
            core::arch::x86_64::_mm_clflush(core::ptr::from_ref(byte))
        }
        // Miri cannot run `clflush`; the lines stay, which changes only timings.
        #[cfg(miri)]
        let _ = byte;
    }
    // SAFETY: `_mm_mfence` needs SSE2; it takes no operands and only orders memory
    // accesses, here the flushes above before the clock is read again.
    #[cfg(not(miri))]
    unsafe {
        core::arch::x86_64::_mm_mfence()
    }
}

/// Asks for the cache line holding `x` to be loaded into the cache.
#[allow(unused_unsafe)]
#[inline(always)]
pub(in super::super) fn prefetch<T>(x: &T) {
    // SAFETY: `_mm_prefetch` needs SSE (enabled wherever this module is compiled). It is a
    // hint: it reads nothing into registers, writes nothing, and does not fault even on a
    // bad address; the address here is anyway that of a live reference, so in bounds.
    unsafe { _mm_prefetch(core::ptr::from_ref(x).cast::<i8>(), _MM_HINT_T0) }
}

#[cfg(test)]
mod tests {
    use alloc::format;
    use alloc::vec::Vec;

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

    #[test]
    fn stream_gather_streams_across_the_seams() {
        let src: [u8; 600] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        // Piece k starts 37k bytes into `src`: pieces overlap or leave gaps, like rows.
        for offset in 0..65 {
            for run in [1, 3, 16, 48, 63, 64, 65, 100] {
                for pieces in [0, 1, 2, 5] {
                    let len = run * pieces;
                    let mut dst = [0u8; 600];
                    stream_gather(&mut dst[offset..offset + len], run, |k| &src[37 * k..][..run]);
                    fence();
                    let want: Vec<u8> =
                        (0..pieces).flat_map(|k| src[37 * k..][..run].iter().copied()).collect();
                    let what = format!("offset {offset} run {run} pieces {pieces}");
                    assert_eq!(dst[offset..offset + len], want[..], "{what}");
                    assert!(dst[..offset].iter().chain(&dst[offset + len..]).all(|&b| b == 0));
                }
            }
        }
    }

    /// The boundary of `flush`: every line a slice touches, the partial first and last
    /// ones included, and no byte changes; an empty slice flushes nothing.
    #[cfg(feature = "std")]
    #[test]
    fn flush_keeps_every_byte() {
        let src: [u8; 300] = core::array::from_fn(|i| (i * 7 + 1) as u8);
        let mut buf = src;
        for (at, len) in [(0, 0), (0, 300), (1, 63), (63, 2), (17, 200), (64, 64)] {
            buf[at..at + len].iter_mut().for_each(|b| *b = b.wrapping_add(1));
            flush(&buf[at..at + len]);
            buf[at..at + len].iter_mut().for_each(|b| *b = b.wrapping_sub(1));
            assert_eq!(buf, src, "at {at} len {len}");
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
