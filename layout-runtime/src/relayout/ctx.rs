//! What the kernels of one run are given ([`Ctx`]) and what every kind of element provides
//! ([`Kernels`]): below the kernels, above the stores they call.

use super::cpu::Level;
use super::decompose::Block;

/// What the kernels of a run may use: the SIMD level, whether to write contiguous output
/// with non-temporal stores (large destinations: they skip reading each destination line
/// into the cache first), and how many source rows a large transpose takes at a time.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ctx {
    #[cfg_attr(not(all(target_arch = "x86_64", target_feature = "sse2")), allow(dead_code))]
    pub level: Level,
    pub stream: bool,
    pub rows: usize,
}

impl Ctx {
    /// `dst.copy_from_slice(src)`, streamed when the context says so.
    #[inline(always)]
    pub(super) fn put(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            return super::simd::stream::stream_copy(dst, src);
        }
        dst.copy_from_slice(src);
    }

    /// `dst` = the pieces `piece(0)`, `piece(1)`, ... of `run` bytes each, one after the
    /// other; streamed when the context says so, every whole line of `dst` in one piece
    /// (see `simd::stream::stream_gather`).
    #[inline(always)]
    pub(super) fn put_runs<'s>(
        self,
        dst: &mut [u8],
        run: usize,
        piece: impl Fn(usize) -> &'s [u8],
    ) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            return super::simd::stream::stream_gather(dst, run, piece);
        }
        for (k, out) in dst.chunks_exact_mut(run).enumerate() {
            out.copy_from_slice(piece(k));
        }
    }

    /// Makes streamed stores ordered before what follows (call before handing `dst` on).
    pub(super) fn finish(self) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            super::simd::stream::fence();
        }
    }
}

/// The kernels of one kind of element, over slices of `T`.
pub(super) trait Kernels<T>: Copy + Sync {
    /// Elements per slice element (several packed sub-byte elements share a byte).
    const PER_ITEM: usize;

    /// Copies one block; destination offsets are relative to `dst_origin` (the start of
    /// `dst` in the whole buffer, when a thread owns a part of it).
    fn copy_block(self, src: &[T], dst: &mut [T], b: &Block, dst_origin: usize, ctx: Ctx);

    /// Writes zero over one block of the destination (offsets relative to `dst_origin`).
    fn zero_block(self, dst: &mut [T], b: &Block, dst_origin: usize);

    /// Writes zero over the elements from `from` to the end of `dst`.
    fn zero_tail(self, dst: &mut [T], from: usize);
}
