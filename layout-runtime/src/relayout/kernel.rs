//! The loops that move whole elements: kernels over `T` (`[u8; E]`, so any buffer alignment
//! works and each move is one fixed-size load and store, or the integer of that width when
//! the buffers are aligned for it). Packed sub-byte elements are in `packed`, the row-group
//! interleaves in `weave`, the SIMD kernels in `simd`; this module picks among them by the
//! plan's [`Level`].
//!
//! Every index is checked by the slice operations themselves; the blocks were built so that
//! none fails, and a failure would be a panic, never a stray write.

use super::cpu::Level;
use super::ctx::{Ctx, Kernels, Reads};
use super::decompose::{Block, Inner};
use super::elem::Elem;
use super::geometry::{split_repeat, walk, Rep, Transpose};
use super::weave;

/// The kernels of whole elements (`T`: see [`Elem`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Whole;

impl<T: Elem> Kernels<T> for Whole {
    const PER_ITEM: usize = 1;

    fn copy_block(self, src: &[T], dst: &mut [T], b: &Block, dst_origin: usize, ctx: Ctx) {
        let d0 = b.dst - dst_origin;
        let outer = b.loops(ctx.reorder);
        // One loop nest per kernel: the choice is made once per block, not per position.
        match b.inner {
            Inner::Point => walk(outer, b.src, d0, &mut |s, d| dst[d] = src[s]),
            // Runs that follow each other in `dst` (the innermost loop steps by exactly
            // one run there, as the rows of a tile do) are written as one span, so that the
            // lines at their seams are streamed too.
            Inner::Run(n) if ctx.stream && outer.last().is_some_and(|m| m.dst == n) => {
                let (inner, rest) = outer.split_last().expect("checked just above");
                let (bytes, step) = (n * core::mem::size_of::<T>(), inner.src);
                walk(rest, b.src, d0, &mut |s, d| {
                    let span = &mut dst[d..d + inner.extent * n];
                    ctx.put_runs(bytemuck::cast_slice_mut(span), bytes, |k| {
                        bytemuck::cast_slice(&src[s + k * step..][..n])
                    });
                });
            }
            Inner::Run(n) => walk(outer, b.src, d0, &mut |s, d| {
                ctx.put(
                    bytemuck::cast_slice_mut(&mut dst[d..d + n]),
                    bytemuck::cast_slice(&src[s..s + n]),
                );
            }),
            Inner::Strided { n, src: ss, dst: ds } => walk(outer, b.src, d0, &mut |s, d| {
                for i in 0..n {
                    dst[d + i * ds] = src[s + i * ss];
                }
            }),
            Inner::Transpose { rows, src_row_stride, cols, dst_row_stride } => {
                let t = Transpose { src: 0, src_row_stride, dst: 0, dst_row_stride, rows, cols };
                let kind = TransposeKernel::pick(core::mem::size_of::<T>(), t);
                let (outer, rep) = split_repeat(outer, rows * cols, ctx.groups);
                walk(&outer, b.src, d0, &mut |s, d| {
                    kind.run(src, dst, Transpose { src: s, dst: d, ..t }, rep, ctx);
                });
            }
        }
    }

    fn zero_block(self, dst: &mut [T], b: &Block, dst_origin: usize) {
        let zero = T::zeroed();
        walk(&b.outer, 0, b.dst - dst_origin, &mut |_, d| match b.inner {
            Inner::Point => dst[d] = zero,
            Inner::Run(n) => dst[d..d + n].fill(zero),
            Inner::Strided { n, dst: ds, .. } => {
                for i in 0..n {
                    dst[d + i * ds] = zero;
                }
            }
            Inner::Transpose { rows, cols, dst_row_stride, .. } => {
                for j in 0..cols {
                    dst[d + j * dst_row_stride..][..rows].fill(zero);
                }
            }
        });
    }

    fn zero_tail(self, dst: &mut [T], from: usize) {
        dst[from..].fill(T::zeroed());
    }
}

/// The settings the kernels read for block `b` of `size`-byte elements: the SIMD level and
/// the row groups for transposes, the rows a large one takes at a time for those that go
/// to the blocked kernel.
pub(super) fn reads(size: usize, b: &Block) -> Reads {
    let Inner::Transpose { rows, src_row_stride, cols, dst_row_stride } = b.inner else {
        return Reads::of(b);
    };
    let t = Transpose { src: 0, src_row_stride, dst: 0, dst_row_stride, rows, cols };
    let blocked = matches!(TransposeKernel::pick(size, t), TransposeKernel::Blocked);
    Reads { level: true, rows: blocked, groups: Reads::regroups(b), ..Reads::of(b) }
}

/// Which kernel moves a [`Transpose`].
#[derive(Clone, Copy)]
enum TransposeKernel {
    /// 2, 4 or 8 source rows into one contiguous run of groups of that many elements.
    Interleave,
    /// One contiguous run of groups of 2, 4 or 8 elements into that many destination rows.
    Deinterleave,
    Blocked,
}

impl TransposeKernel {
    /// The kernel for elements of `e` bytes.
    fn pick(e: usize, t: Transpose) -> TransposeKernel {
        let fits = |k: usize| matches!(k, 2 | 4 | 8) && k * e <= 16;
        if t.dst_row_stride == t.rows && fits(t.rows) {
            TransposeKernel::Interleave
        } else if t.src_row_stride == t.cols && fits(t.cols) {
            TransposeKernel::Deinterleave
        } else {
            TransposeKernel::Blocked
        }
    }

    #[inline(always)]
    fn run<T: Elem>(self, src: &[T], dst: &mut [T], t: Transpose, rep: Rep, ctx: Ctx) {
        match self {
            TransposeKernel::Interleave => weave::interleave(src, dst, t, rep, ctx),
            TransposeKernel::Deinterleave => weave::deinterleave(src, dst, t, rep, ctx),
            TransposeKernel::Blocked => {
                for t in t.repeat(rep) {
                    transpose(src, dst, t, ctx);
                }
            }
        }
    }
}

/// A transpose of any size: the SIMD kernels for 4-byte elements, tiles of `8`×`8` through
/// integers otherwise; both leave their edges to narrower kernels, the last to `scalar`.
fn transpose<T: Elem>(src: &[T], dst: &mut [T], t: Transpose, ctx: Ctx) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    // Only 4-byte elements: the cast would also accept larger ones, as pairs.
    if let (4, Ok(src), Ok(dst)) = (
        core::mem::size_of::<T>(),
        bytemuck::try_cast_slice::<T, [u8; 4]>(src),
        bytemuck::try_cast_slice_mut::<T, [u8; 4]>(dst),
    ) {
        use super::simd::{avx2, sse2};
        #[cfg(xlayout_avx512)]
        if let Level::Avx512(z) = ctx.level {
            // The column walk's band: see `RelayoutChoice::transpose_rows`.
            let band = 4 * ctx.rows;
            if super::simd::transpose16::transpose16(z, src, dst, t, band, ctx.stream) {
                return;
            }
        }
        if let Some(avx) = ctx.level.avx2() {
            for e in avx2::transpose8(avx, src, dst, t, ctx.rows, ctx.stream) {
                sse2::transpose4(src, dst, e, ctx.rows);
            }
            return;
        }
        if ctx.level == Level::Sse2 {
            return sse2::transpose4(src, dst, t, ctx.rows);
        }
    }
    for e in blocked::<T, 8>(src, dst, t, ctx.rows) {
        e.scalar(src, dst);
    }
}

/// A general transpose in `B`×`B` tiles: a tile is read as `B` short source rows and
/// written as `B` short destination rows, so both sides touch `B` cache lines at a time.
/// Returns the edges (see [`Transpose::tiles`]).
fn blocked<T: Elem, const B: usize>(
    src: &[T],
    dst: &mut [T],
    t: Transpose,
    band: usize,
) -> [Transpose; 2] {
    t.tiles::<T, B, B>(src, dst, band, |src, dst, p, _| {
        let tile: [[T::Int; B]; B] = core::array::from_fn(|i| {
            let row: &[T; B] = src[p.src + i * p.src_row_stride..][..B].try_into().expect("B");
            row.map(T::int)
        });
        for j in 0..B {
            let out: &mut [T; B] =
                (&mut dst[p.dst + j * p.dst_row_stride..][..B]).try_into().expect("B");
            for (i, o) in out.iter_mut().enumerate() {
                *o = T::from_int(tile[i][j]);
            }
        }
    })
}
