//! The shapes every kernel works on, below all of them: the loops a block leaves to walk
//! ([`walk`]), a transpose's geometry ([`Transpose`]) and the copies of it a kernel makes in
//! one call ([`Rep`], [`split_repeat`]). Nothing here moves memory but through the slices it
//! is given.

use alloc::vec::Vec;

use super::decompose::Mode;

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

/// A transpose's geometry: `dst[dst + i + j·dst_row_stride] = src[src + i·src_row_stride +
/// j]` for `i < rows`, `j < cols`. The source holds `rows` rows of `cols` elements,
/// `src_row_stride` apart; the destination `cols` rows of `rows` elements, `dst_row_stride`
/// apart. Offsets count elements of the buffers the kernel is given (packed elements for the
/// sub-byte kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Transpose {
    /// Where the first source row starts.
    pub src: usize,
    pub src_row_stride: usize,
    /// Where the first destination row starts.
    pub dst: usize,
    pub dst_row_stride: usize,
    /// Source rows (the length of a destination row).
    pub rows: usize,
    /// Source columns (the number of destination rows).
    pub cols: usize,
}

impl Transpose {
    /// A whole `rows`×`cols` matrix, contiguous, into a whole `cols`×`rows` one.
    #[cfg(test)]
    pub(super) fn matrix(rows: usize, cols: usize) -> Transpose {
        Transpose { src: 0, src_row_stride: cols, dst: 0, dst_row_stride: rows, rows, cols }
    }

    /// The `rows`×`cols` part whose first element is source row `i0`, column `j0`.
    #[inline(always)]
    pub(super) fn part(self, i0: usize, j0: usize, rows: usize, cols: usize) -> Transpose {
        Transpose {
            src: self.src + i0 * self.src_row_stride + j0,
            dst: self.dst + j0 * self.dst_row_stride + i0,
            rows,
            cols,
            ..self
        }
    }

    /// Calls `f(source offset, destination offset)` for every element, destination row by
    /// destination row.
    #[inline(always)]
    pub(super) fn each(self, mut f: impl FnMut(usize, usize)) {
        for j in 0..self.cols {
            for i in 0..self.rows {
                f(self.src + i * self.src_row_stride + j, self.dst + j * self.dst_row_stride + i);
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
                src: self.src + k * t.src + j * g.src,
                dst: self.dst + k * t.dst + j * g.dst,
                ..self
            })
        })
    }

    /// Moves the whole tiles of `BR` source rows by `BC` columns with `tile(src, dst, part,
    /// j0)` (`j0`: the part's first source column): `band` source rows at a time (so their
    /// lines stay cached while the tiles use them column by column), and within those a
    /// destination row of tiles after another. Returns the right edge (the last `rows % BR`
    /// rows) and the bottom edge (the last `cols % BC` columns of the others), left for the
    /// caller.
    #[inline(always)]
    pub(super) fn tiles<T: Copy, const BR: usize, const BC: usize>(
        self,
        src: &[T],
        dst: &mut [T],
        band: usize,
        mut tile: impl FnMut(&[T], &mut [T], Transpose, usize),
    ) -> [Transpose; 2] {
        let (rb, cb) = (self.rows - self.rows % BR, self.cols - self.cols % BC);
        let step = band.max(BR) / BR * BR;
        for lo in (0..rb).step_by(step) {
            let hi = (lo + step).min(rb);
            for j0 in (0..cb).step_by(BC) {
                for i0 in (lo..hi).step_by(BR) {
                    tile(src, dst, self.part(i0, j0, BR, BC), j0);
                }
            }
        }
        [self.part(rb, 0, self.rows - rb, self.cols), self.part(0, cb, rb, self.cols - cb)]
    }
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
pub(super) const GROUPS: usize = 2;

/// A transpose block's outer loops as the kernel runs them: the loops left to walk, and
/// the kernel's own. The innermost loop always runs in the kernel (a call moves a row of
/// small tiles rather than one). When the loop outside it steps to where a tile's output
/// ends (`chunk` elements: the row groups of a tile, walked in source order), it is cut
/// into runs of `groups` that the kernel does tile by tile: their output is one piece,
/// so the cache line between two groups is written whole (streamed stores of part of a
/// line, completed much later, go to memory as partial writes).
pub(super) fn split_repeat(outer: &[Mode], chunk: usize, groups: usize) -> (Vec<Mode>, Rep) {
    let mut walk = outer.to_vec();
    let Some(tiles) = walk.pop() else { return (walk, ONCE) };
    let mut rep = Rep { tiles, groups: ONCE.groups };
    if let Some(m) = walk.last_mut() {
        if groups > 1 && m.dst == chunk && tiles.dst != chunk && m.extent % groups == 0 {
            rep.groups = Mode { extent: groups, ..*m };
            *m = Mode { extent: m.extent / groups, src: m.src * groups, dst: m.dst * groups };
        }
    }
    (walk, rep)
}
