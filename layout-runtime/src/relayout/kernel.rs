//! The loops that move whole elements: kernels over `T` (`[u8; E]`, so any buffer alignment
//! works and each move is one fixed-size load and store, or the integer of that width when
//! the buffers are aligned for it). Packed sub-byte elements are in `packed`, the row-group
//! interleaves in `weave`, the SIMD kernels in `simd`; this module picks among them by the
//! plan's [`Level`].
//!
//! Every index is checked by the slice operations themselves; the blocks were built so that
//! none fails, and a failure would be a panic, never a stray write.

use super::cpu::Level;
use super::decompose::{Block, Inner, Mode};
use super::weave;
use alloc::vec::Vec;

/// Calls `f(src, dst)` for every position of the outer loops.
#[inline]
pub(super) fn walk(modes: &[Mode], src: usize, dst: usize, f: &mut impl FnMut(usize, usize)) {
    match modes.split_first() {
        None => f(src, dst),
        Some((m, rest)) => {
            let (mut s, mut d) = (src, dst);
            for _ in 0..m.extent {
                walk(rest, s, d, f);
                // Past the last step the offsets are never used: wrapping keeps that step
                // from overflowing on huge strides.
                s = s.wrapping_add(m.src);
                d = d.wrapping_add(m.dst);
            }
        }
    }
}

/// A whole element of `E` bytes: `[u8; E]` (any alignment) or the unsigned integer of that
/// width (when the buffers are aligned for it), with the integer the kernels compute with
/// (integers give the compiler cheaper moves and shuffles than byte arrays).
pub(super) trait Elem: bytemuck::Pod + Send + Sync {
    type Int: Elem<Int = Self::Int>;
    fn int(self) -> Self::Int;
    fn from_int(v: Self::Int) -> Self;
}

macro_rules! elem {
    ($($n:literal => $t:ty),*) => {$(
        impl Elem for [u8; $n] {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                <$t>::from_ne_bytes(self)
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v.to_ne_bytes()
            }
        }

        impl Elem for $t {
            type Int = $t;
            #[inline(always)]
            fn int(self) -> $t {
                self
            }
            #[inline(always)]
            fn from_int(v: $t) -> Self {
                v
            }
        }
    )*};
}
elem!(1 => u8, 2 => u16, 4 => u32, 8 => u64, 16 => u128);

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
            return super::simd::stream_copy(dst, src);
        }
        dst.copy_from_slice(src);
    }

    /// `dst` = the pieces `piece(0)`, `piece(1)`, ... of `run` bytes each, one after the
    /// other; streamed when the context says so, every whole line of `dst` in one piece
    /// (see `simd::stream_gather`).
    #[inline(always)]
    pub(super) fn put_runs<'s>(
        self,
        dst: &mut [u8],
        run: usize,
        piece: impl Fn(usize) -> &'s [u8],
    ) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            return super::simd::stream_gather(dst, run, piece);
        }
        for (k, out) in dst.chunks_exact_mut(run).enumerate() {
            out.copy_from_slice(piece(k));
        }
    }

    /// Makes streamed stores ordered before what follows (call before handing `dst` on).
    pub(super) fn finish(self) {
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        if self.stream {
            super::simd::fence();
        }
    }
}

/// A transpose's geometry: `dst[d + i + j·c] = src[s + i·a + j]` for `i < x`, `j < y`.
/// The source holds `x` rows of `y` elements, `a` apart; the destination `y` rows of `x`
/// elements, `c` apart. Offsets count elements of the buffers the kernel is given (packed
/// elements for the sub-byte kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Transpose {
    pub s: usize,
    pub a: usize,
    pub d: usize,
    pub c: usize,
    pub x: usize,
    pub y: usize,
}

impl Transpose {
    /// The `x`×`y` part whose first element is `(i0, j0)`.
    #[inline(always)]
    pub(super) fn part(self, i0: usize, j0: usize, x: usize, y: usize) -> Transpose {
        Transpose { s: self.s + i0 * self.a + j0, d: self.d + j0 * self.c + i0, x, y, ..self }
    }

    /// Calls `f(source offset, destination offset)` for every element, destination row by
    /// destination row.
    #[inline(always)]
    pub(super) fn each(self, mut f: impl FnMut(usize, usize)) {
        for j in 0..self.y {
            for i in 0..self.x {
                f(self.s + i * self.a + j, self.d + j * self.c + i);
            }
        }
    }

    /// Element by element.
    pub(super) fn scalar<T: Copy>(self, src: &[T], dst: &mut [T]) {
        self.each(|s, d| dst[d] = src[s]);
    }

    /// The copies of this transpose `rep` says, in its order.
    #[inline(always)]
    pub(super) fn repeat(self, rep: Rep) -> impl Iterator<Item = Transpose> {
        let (t, g) = (rep.tiles, rep.groups);
        (0..t.extent).flat_map(move |k| {
            (0..g.extent).map(move |j| Transpose {
                s: self.s + k * t.src + j * g.src,
                d: self.d + k * t.dst + j * g.dst,
                ..self
            })
        })
    }

    /// Moves the whole tiles of `BX` source rows by `BY` columns with `tile(src, dst, part,
    /// j0)` (`j0`: the part's first source column): `rows` source rows at a time (so their
    /// lines stay cached while the tiles use them column by column), and within those a
    /// destination row of tiles after another. Returns the right edge (the last `x % BX`
    /// rows) and the bottom edge (the last `y % BY` columns of the others), left for the
    /// caller.
    #[inline(always)]
    pub(super) fn tiles<T: Copy, const BX: usize, const BY: usize>(
        self,
        src: &[T],
        dst: &mut [T],
        rows: usize,
        mut tile: impl FnMut(&[T], &mut [T], Transpose, usize),
    ) -> [Transpose; 2] {
        let (xb, yb) = (self.x - self.x % BX, self.y - self.y % BY);
        let step = rows.max(BX) / BX * BX;
        for lo in (0..xb).step_by(step) {
            let hi = (lo + step).min(xb);
            for j0 in (0..yb).step_by(BY) {
                for i0 in (lo..hi).step_by(BX) {
                    tile(src, dst, self.part(i0, j0, BX, BY), j0);
                }
            }
        }
        [self.part(xb, 0, self.x - xb, self.y), self.part(0, yb, xb, self.y - yb)]
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

/// The loops a transpose kernel runs itself: `tiles` copies, each of `groups` tiles (in
/// that order, tiles outer).
#[derive(Clone, Copy, Debug)]
pub(super) struct Rep {
    pub tiles: Mode,
    pub groups: Mode,
}

/// One tile.
pub(super) const ONCE: Rep =
    Rep { tiles: Mode { extent: 1, src: 0, dst: 0 }, groups: Mode { extent: 1, src: 0, dst: 0 } };

/// Row groups a transpose kernel writes in one piece per tile (see [`split_repeat`]).
/// Measured on the `(4,1)` case (fraction of a streamed copy, misaligned destination):
/// 1: 0.6, 2: 0.9, 4: 0.7-0.9, 8: 0.5; more groups read more source rows at once.
const GROUPS: usize = 2;

/// A transpose block's outer loops as the kernel runs them: the loops left to walk, and
/// the kernel's own. The innermost loop always runs in the kernel (a call moves a row of
/// small tiles rather than one). When the loop outside it steps to where a tile's output
/// ends (`chunk` elements: the row groups of a tile, walked in source order), it is cut
/// into runs of [`GROUPS`] that the kernel does tile by tile: their output is one piece,
/// so the cache line between two groups is written whole (streamed stores of part of a
/// line, completed much later, go to memory as partial writes).
pub(super) fn split_repeat(outer: &[Mode], chunk: usize) -> (Vec<Mode>, Rep) {
    let mut walk = outer.to_vec();
    let Some(tiles) = walk.pop() else { return (walk, ONCE) };
    let mut rep = Rep { tiles, groups: ONCE.groups };
    if let Some(m) = walk.last_mut() {
        if m.dst == chunk && tiles.dst != chunk && m.extent % GROUPS == 0 {
            rep.groups = Mode { extent: GROUPS, ..*m };
            *m = Mode { extent: m.extent / GROUPS, src: m.src * GROUPS, dst: m.dst * GROUPS };
        }
    }
    (walk, rep)
}

/// The kernels of whole elements (`T`: see [`Elem`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct Whole;

impl<T: Elem> Kernels<T> for Whole {
    const PER_ITEM: usize = 1;

    fn copy_block(self, src: &[T], dst: &mut [T], b: &Block, dst_origin: usize, ctx: Ctx) {
        let d0 = b.dst - dst_origin;
        // One loop nest per kernel: the choice is made once per block, not per position.
        match b.inner {
            Inner::Point => walk(&b.outer, b.src, d0, &mut |s, d| dst[d] = src[s]),
            // Runs that follow each other in `dst` (the innermost loop steps by exactly
            // one run there, as the rows of a tile do) are written as one span, so that the
            // lines at their seams are streamed too.
            Inner::Run(n) if ctx.stream && b.outer.last().is_some_and(|m| m.dst == n) => {
                let (inner, rest) = b.outer.split_last().expect("checked just above");
                let (bytes, step) = (n * core::mem::size_of::<T>(), inner.src);
                walk(rest, b.src, d0, &mut |s, d| {
                    let span = &mut dst[d..d + inner.extent * n];
                    ctx.put_runs(bytemuck::cast_slice_mut(span), bytes, |k| {
                        bytemuck::cast_slice(&src[s + k * step..][..n])
                    });
                });
            }
            Inner::Run(n) => walk(&b.outer, b.src, d0, &mut |s, d| {
                ctx.put(
                    bytemuck::cast_slice_mut(&mut dst[d..d + n]),
                    bytemuck::cast_slice(&src[s..s + n]),
                );
            }),
            Inner::Strided { n, src: ss, dst: ds } => walk(&b.outer, b.src, d0, &mut |s, d| {
                for i in 0..n {
                    dst[d + i * ds] = src[s + i * ss];
                }
            }),
            Inner::Transpose { x, a, y, c } => {
                let t = Transpose { s: 0, a, d: 0, c, x, y };
                let kind = TransposeKernel::pick::<T>(t);
                let (outer, rep) = split_repeat(&b.outer, x * y);
                walk(&outer, b.src, d0, &mut |s, d| {
                    kind.run(src, dst, Transpose { s, d, ..t }, rep, ctx);
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
            Inner::Transpose { x, y, c, .. } => {
                for j in 0..y {
                    dst[d + j * c..][..x].fill(zero);
                }
            }
        });
    }

    fn zero_tail(self, dst: &mut [T], from: usize) {
        dst[from..].fill(T::zeroed());
    }
}

/// Which kernel moves a [`Transpose`].
#[derive(Clone, Copy)]
enum TransposeKernel {
    /// `x` (2, 4 or 8) source rows into one contiguous run of `x`-element groups.
    Interleave,
    /// One contiguous run of `y`-element groups (2, 4 or 8) into `y` destination rows.
    Deinterleave,
    Blocked,
}

impl TransposeKernel {
    fn pick<T>(t: Transpose) -> TransposeKernel {
        let e = core::mem::size_of::<T>();
        let fits = |k: usize| matches!(k, 2 | 4 | 8) && k * e <= 16;
        if t.c == t.x && fits(t.x) {
            TransposeKernel::Interleave
        } else if t.a == t.y && fits(t.y) {
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
        match ctx.level {
            Level::Avx2(avx) => {
                for e in avx2::transpose8(avx, src, dst, t, ctx.rows, ctx.stream) {
                    sse2::transpose4(src, dst, e, ctx.rows);
                }
                return;
            }
            Level::Sse2 => return sse2::transpose4(src, dst, t, ctx.rows),
            Level::Portable => {}
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
    rows: usize,
) -> [Transpose; 2] {
    t.tiles::<T, B, B>(src, dst, rows, |src, dst, p, _| {
        let tile: [[T::Int; B]; B] = core::array::from_fn(|i| {
            let row: &[T; B] = src[p.s + i * p.a..][..B].try_into().expect("B");
            row.map(T::int)
        });
        for j in 0..B {
            let out: &mut [T; B] = (&mut dst[p.d + j * p.c..][..B]).try_into().expect("B");
            for (i, o) in out.iter_mut().enumerate() {
                *o = T::from_int(tile[i][j]);
            }
        }
    })
}
