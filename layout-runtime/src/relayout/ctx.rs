//! What the kernels of one run are given ([`Ctx`]) and what every kind of element provides
//! ([`Kernels`]): below the kernels, above the stores they call.

use super::cpu::Level;
use super::decompose::{Block, Inner};
use super::geometry::split_repeat;

/// What the kernels of a run may use: the SIMD level, whether to write contiguous output
/// with non-temporal stores (large destinations: they skip reading each destination line
/// into the cache first), how many source rows a large transpose takes at a time, and how
/// many row groups of a tile a regrouping kernel writes in one piece (`split_repeat`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ctx {
    pub level: Level,
    pub stream: bool,
    pub rows: usize,
    pub groups: usize,
    /// Run each block's outer loops in the other order ([`Block::alt`]).
    pub reorder: bool,
}

/// Which settings of [`Ctx`] a block's kernels read, beyond whether to stream: what a
/// measuring plan has to choose among (`measure`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Reads {
    /// The SIMD level (a kernel with SIMD code).
    pub level: bool,
    /// The source rows a large transpose takes at a time.
    pub rows: bool,
    /// The row groups written in one piece.
    pub groups: bool,
    /// The order of the outer loops (a block has another).
    pub order: bool,
    /// The width of the streaming stores of runs, which the level sets (16 bytes below
    /// AVX-512, 64 at it).
    pub widths: bool,
}

impl Reads {
    /// Whether a transpose block's row groups can be written several to a piece
    /// (`split_repeat` would regroup its loops).
    pub(super) fn regroups(b: &Block) -> bool {
        let Inner::Transpose { rows, cols, .. } = b.inner else { return false };
        let regroups =
            |o| [2, 4].iter().any(|&g| split_repeat(o, rows * cols, g).1.groups.extent > 1);
        regroups(&b.outer) || regroups(&b.alt)
    }

    /// What every block's kernels read: the loop order, where a block has two; and for
    /// runs, the width of their streaming stores.
    pub(super) fn of(b: &Block) -> Reads {
        let widths = matches!(b.inner, Inner::Run(_));
        Reads { order: !b.alt.is_empty(), widths, ..Reads::default() }
    }
}

impl core::ops::BitOr for Reads {
    type Output = Reads;
    fn bitor(self, o: Reads) -> Reads {
        Reads {
            level: self.level | o.level,
            rows: self.rows | o.rows,
            groups: self.groups | o.groups,
            order: self.order | o.order,
            widths: self.widths | o.widths,
        }
    }
}

impl Ctx {
    /// `dst.copy_from_slice(src)`, streamed when the context says so.
    #[inline(always)]
    pub(super) fn put(self, dst: &mut [u8], src: &[u8]) {
        #[cfg(xlayout_avx512)]
        if let (true, Level::Avx512(z)) = (self.stream, self.level) {
            return super::simd::avx512::stream_copy(z, dst, src);
        }
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
        #[cfg(xlayout_avx512)]
        if let (true, Level::Avx512(z)) = (self.stream, self.level) {
            return super::simd::avx512::stream_gather(z, dst, run, piece);
        }
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

/// `dst.copy_from_slice(src)` with non-temporal stores, 64 bytes a store where `wide` and
/// the CPU has AVX-512, 16 otherwise (nothing streamed without SSE2), ordered by a fence:
/// the streaming copy a measuring plan times beside its candidates (`trial`).
/// Returns whether the stores were 64 bytes wide.
#[cfg(feature = "std")]
pub(super) fn stream_copy(dst: &mut [u8], src: &[u8], wide: bool) -> bool {
    #[cfg(xlayout_avx512)]
    if let (true, Some(z)) = (wide, super::cpu::Avx512::new()) {
        super::simd::avx512::stream_copy(z, dst, src);
        super::simd::stream::fence();
        return true;
    }
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        super::simd::stream::stream_copy(dst, src);
        super::simd::stream::fence();
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    dst.copy_from_slice(src);
    let _ = wide;
    false
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
