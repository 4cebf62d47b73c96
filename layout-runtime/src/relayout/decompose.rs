//! Both layouts as one set of (extent, source stride, destination stride) modes.
//!
//! Without `*`, the tiled index map splits every logical dimension `e ∈ [0, n)` into digits:
//! a split by `τ` turns `e` into `(e / τ, e % τ)`, and later tile levels split those again.
//! The leaves of that tree are the axes of the expanded grid, each with a weight (its value
//! times the weight sums to `e`) and a stride (its row-major stride in the grid). When every
//! in-tile axis is split exactly (a nested tile divides the tile it splits), the leaves of one
//! dimension are an exact mixed-radix numeral of `e`: weights `1 = w₀ < w₁ < …` with
//! `wᵢ₊₁ = wᵢ · extentᵢ`, the top digit padded (`⌈n / w_top⌉ ≤ extent_top`). Such a layout is
//! called *clean* here.
//!
//! Two clean layouts of the same dimension refine to common digits when the union of their
//! weights is a divisibility chain (true whenever tile sizes are powers of two, and whenever
//! one side is untiled). Each common digit has a stride on both sides, so the whole copy is a
//! set of strided boxes: the range `[0, n)` of each dimension splits into at most one box per
//! digit (whole tiles first, then the partial tile at the edge, digit by digit), and the
//! boxes of all dimensions multiply. Padding of the destination is the complement, cut into
//! boxes the same way.

use alloc::vec;
use alloc::vec::Vec;

use crate::plan::{Reg, Step};
use crate::Plan;

/// More boxes than this (many dimensions, each with a partial tile at several levels) and
/// the general path is used: the per-box overhead would beat the per-element one.
const MAX_BLOCKS: usize = 1 << 14;

/// One loop: `extent` steps of `src` and `dst` elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Mode {
    pub extent: usize,
    pub src: usize,
    pub dst: usize,
}

/// What the innermost loops of a block do for each position of the outer loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Inner {
    /// One element.
    Point,
    /// `n` elements contiguous on both sides (a destination-only run for zero blocks).
    Run(usize),
    /// `n` elements, `src` and `dst` apart.
    Strided { n: usize, src: usize, dst: usize },
    /// `dst[i + j·dst_row_stride] = src[i·src_row_stride + j]` for `i < rows`, `j < cols`:
    /// a transpose of a block whose rows are contiguous in the source and whose columns are
    /// contiguous in the destination (`dst_row_stride == rows`: the rows interleave into one
    /// contiguous run, as `(2,1)` row pairs do). See `geometry::Transpose`.
    Transpose { rows: usize, src_row_stride: usize, cols: usize, dst_row_stride: usize },
}

/// A strided box of the copy (or of the destination's padding, with source strides 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Block {
    pub src: usize,
    pub dst: usize,
    /// Outer loops: the outermost (the largest destination stride) first, then the others
    /// in destination or in source order, whichever keeps fewer memory streams open.
    pub outer: Vec<Mode>,
    /// The same loops in the other order (empty when there is no other): what a measuring
    /// plan tries too (`Ctx::reorder`), as the streams a machine keeps open best differ.
    pub alt: Vec<Mode>,
    pub inner: Inner,
    /// The destination elements of one step of `outer[0]` stay below its stride, so the
    /// steps own disjoint ranges of the destination (needed to split it between threads).
    pub nested: bool,
}

impl Block {
    /// The outer loops in the order `reorder` says (see [`Block::alt`]).
    #[inline]
    pub fn loops(&self, reorder: bool) -> &[Mode] {
        if reorder && !self.alt.is_empty() {
            &self.alt
        } else {
            &self.outer
        }
    }

    /// Elements in the block.
    #[cfg_attr(not(any(test, feature = "rayon")), allow(dead_code))]
    pub fn len(&self) -> usize {
        let inner = match self.inner {
            Inner::Point => 1,
            Inner::Run(n) | Inner::Strided { n, .. } => n,
            Inner::Transpose { rows, cols, .. } => rows * cols,
        };
        self.outer.iter().fold(inner, |acc, m| acc * m.extent)
    }
}

/// One digit of a dimension on one side.
#[derive(Clone, Copy, Debug)]
struct Digit {
    weight: usize,
    extent: usize,
    stride: usize,
}

/// The digits of every dimension of one side, lowest weight first: the logical dimensions,
/// then the size-1 axes a tile longer than the space prepended. Read off the plan's tile
/// tree: a split by `τ` gives its source's digit weight × τ to the outer part and the weight
/// itself to the inner one. `None` when the layout is not clean (a `*` merge, or a nested tile
/// that pads inside a tile).
fn side_digits(plan: &Plan) -> Option<Vec<Vec<Digit>>> {
    /// Where a register of the tree sits in its dimension's numeral.
    #[derive(Clone, Copy)]
    struct Node {
        dim: usize,
        weight: usize,
        /// Inside a tile: a split of it must be exact, or padding appears mid-numeral.
        exact: bool,
    }
    let space = plan.space();
    let rank = space.dims.len();
    let ndims = rank + space.prepended.len();
    let mut nodes: Vec<Option<Node>> = vec![None; space.sizes.len()];
    let roots = (0..rank as Reg).chain(space.prepended.iter().copied());
    for (dim, r) in roots.enumerate() {
        nodes[r as usize] = Some(Node { dim, weight: 1, exact: false });
    }
    for step in &space.steps {
        let Step::Split { src, q, m, tile } = *step else {
            return None; // a `*` merge mixes dimensions
        };
        let a = nodes[src as usize]?;
        if a.exact && space.sizes[src as usize] % tile != 0 {
            return None;
        }
        let weight = a.weight.checked_mul(tile)?;
        nodes[q as usize] = Some(Node { weight, ..a });
        nodes[m as usize] = Some(Node { exact: true, ..a });
    }
    let axes = space.axes.iter().zip(&space.expanded).zip(&space.strides);
    let mut out: Vec<Vec<Digit>> = vec![Vec::new(); ndims];
    for ((&r, &extent), &stride) in axes {
        let a = nodes[r as usize]?;
        if extent > 1 {
            out[a.dim].push(Digit { weight: a.weight, extent, stride });
        }
    }
    for digits in &mut out {
        digits.sort_by_key(|d| d.weight);
        if digits.is_empty() {
            digits.push(Digit { weight: 1, extent: 1, stride: 0 });
        }
        if digits[0].weight != 1 {
            return None;
        }
        for i in 1..digits.len() {
            if digits[i].weight != digits[i - 1].weight.checked_mul(digits[i - 1].extent)? {
                return None;
            }
        }
    }
    Some(out)
}

/// A digit of the common refinement: its weight, its extent (`None` for the top digit,
/// bounded by the range being cut) and its stride on both sides.
#[derive(Clone, Copy, Debug)]
struct Common {
    weight: usize,
    extent: Option<usize>,
    src: usize,
    dst: usize,
}

fn stride_at(digits: &[Digit], weight: usize) -> usize {
    // Digits start at weight 1, so one is at or below any weight.
    let d = digits.iter().rev().find(|d| d.weight <= weight).unwrap_or(&digits[0]);
    d.stride.wrapping_mul(weight / d.weight)
}

/// The common digits of two numerals of one dimension; `None` when their weights do not
/// form a divisibility chain.
fn refine(a: &[Digit], b: &[Digit]) -> Option<Vec<Common>> {
    let mut weights: Vec<usize> = a.iter().chain(b).map(|d| d.weight).collect();
    weights.sort_unstable();
    weights.dedup();
    let mut out = Vec::with_capacity(weights.len());
    for (i, &w) in weights.iter().enumerate() {
        let extent = match weights.get(i + 1) {
            Some(&next) if next % w == 0 => Some(next / w),
            Some(_) => return None,
            None => None,
        };
        out.push(Common { weight: w, extent, src: stride_at(a, w), dst: stride_at(b, w) });
    }
    Some(out)
}

/// A piece of a range of one dimension: digits below `level` run over their whole extent,
/// digit `level` over `count` values, higher digits are fixed by `start`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: usize,
    level: usize,
    count: usize,
}

/// Cuts `[lo, hi)` into aligned pieces: up through the digits to the first whole block of
/// the highest one, then down again for the rest (whole tiles, then the partial tile edge).
fn pieces(lo: usize, hi: usize, weights: &[usize]) -> Option<Vec<Piece>> {
    let mut out = Vec::new();
    let mut cur = lo;
    let mut i = 0;
    while i + 1 < weights.len() && cur < hi {
        let next = weights[i + 1];
        let boundary = cur.div_ceil(next).checked_mul(next)?;
        if boundary > hi {
            break;
        }
        let count = (boundary - cur) / weights[i];
        if count > 0 {
            out.push(Piece { start: cur, level: i, count });
        }
        cur = boundary;
        i += 1;
    }
    loop {
        let count = (hi - cur) / weights[i];
        if count > 0 {
            out.push(Piece { start: cur, level: i, count });
            cur += count * weights[i];
        }
        if i == 0 {
            break;
        }
        i -= 1;
    }
    Some(out)
}

/// A box restricted to one dimension: base offsets and loops.
#[derive(Clone)]
struct Part {
    src: usize,
    dst: usize,
    modes: Vec<Mode>,
}

/// The loops and base offsets of one piece, given each digit's extent and strides.
fn part(p: Piece, digits: &[(usize, Option<usize>, usize, usize)]) -> Part {
    let (mut src, mut dst) = (0usize, 0usize);
    let mut modes = Vec::new();
    for (j, &(weight, extent, s, d)) in digits.iter().enumerate() {
        if j < p.level {
            let e = extent.unwrap_or(1);
            modes.push(Mode { extent: e, src: s, dst: d });
        } else {
            let mut v = p.start / weight;
            if let Some(e) = extent {
                v %= e;
            }
            src = src.wrapping_add(v.wrapping_mul(s));
            dst = dst.wrapping_add(v.wrapping_mul(d));
            if j == p.level {
                modes.push(Mode { extent: p.count, src: s, dst: d });
            }
        }
    }
    Part { src, dst, modes }
}

/// Every combination of one part per dimension, as finished blocks.
fn product(per_dim: &[Vec<Part>], scale: usize, out: &mut Vec<Block>) -> Option<()> {
    let count = per_dim.iter().try_fold(1usize, |acc, p| acc.checked_mul(p.len()))?;
    if count == 0 {
        return Some(());
    }
    if out.len().checked_add(count)? > MAX_BLOCKS {
        return None;
    }
    let mut choice = vec![0usize; per_dim.len()];
    loop {
        let (mut src, mut dst) = (0usize, 0usize);
        let mut modes = Vec::new();
        for (parts, &c) in per_dim.iter().zip(&choice) {
            let p = &parts[c];
            src = src.wrapping_add(p.src);
            dst = dst.wrapping_add(p.dst);
            modes.extend_from_slice(&p.modes);
        }
        if scale > 1 {
            for m in &mut modes {
                m.src = m.src.checked_mul(scale)?;
                m.dst = m.dst.checked_mul(scale)?;
            }
            modes.push(Mode { extent: scale, src: 1, dst: 1 });
            src = src.checked_mul(scale)?;
            dst = dst.checked_mul(scale)?;
        }
        out.push(block(src, dst, modes));
        let mut k = per_dim.len();
        loop {
            if k == 0 {
                return Some(());
            }
            k -= 1;
            choice[k] += 1;
            if choice[k] < per_dim[k].len() {
                break;
            }
            choice[k] = 0;
        }
    }
}

/// Orders the loops by destination stride, merges loops contiguous on both sides, and picks
/// the inner kernel.
pub(super) fn block(src: usize, dst: usize, mut modes: Vec<Mode>) -> Block {
    modes.retain(|m| m.extent != 1);
    modes.sort_by(|x, y| y.dst.cmp(&x.dst).then(y.src.cmp(&x.src)));
    let mut merged: Vec<Mode> = Vec::with_capacity(modes.len());
    for m in modes {
        match merged.last_mut() {
            Some(o) if o.dst == m.extent * m.dst && o.src == m.extent * m.src => {
                *o = Mode { extent: o.extent * m.extent, src: m.src, dst: m.dst };
            }
            _ => merged.push(m),
        }
    }
    let Some(last) = merged.pop() else {
        return Block {
            src,
            dst,
            outer: merged,
            alt: Vec::new(),
            inner: Inner::Point,
            nested: true,
        };
    };
    let (inner, inner_modes) = if last.src == 1 && last.dst == 1 {
        (Inner::Run(last.extent), [Some(last), None])
    } else if let (1, Some(k)) = (last.dst, merged.iter().rposition(|m| m.src == 1)) {
        let row = merged.remove(k);
        (
            Inner::Transpose {
                rows: last.extent,
                src_row_stride: last.src,
                cols: row.extent,
                dst_row_stride: row.dst,
            },
            [Some(last), Some(row)],
        )
    } else {
        (Inner::Strided { n: last.extent, src: last.src, dst: last.dst }, [Some(last), None])
    };
    let mut alt = Vec::new();
    if merged.len() > 2 {
        // The outermost loop stays (threads split along it); the others run in destination
        // order or in source order, whichever keeps fewer memory streams open.
        let mut by_src = merged.clone();
        by_src[1..].sort_by(|x, y| y.src.cmp(&x.src).then(y.dst.cmp(&x.dst)));
        if cost(&by_src, inner) < cost(&merged, inner) {
            core::mem::swap(&mut merged, &mut by_src);
        }
        if by_src != merged {
            alt = by_src;
        }
    }
    let nested = match merged.first() {
        Some(first) => {
            let rest = merged[1..].iter().chain(inner_modes.iter().flatten());
            let span = rest
                .fold(0usize, |acc, m| acc.saturating_add((m.extent - 1).saturating_mul(m.dst)));
            span < first.dst
        }
        None => true,
    };
    Block { src, dst, outer: merged, alt, inner, nested }
}

/// How many contiguous streams a side keeps open while the loops run: the kernel's own
/// segments times the steps of every loop inside the innermost one that continues them.
/// Hardware prefetchers follow a limited number of streams, so fewer is faster.
fn streams(order: &[Mode], segments: usize, len: usize, stride: impl Fn(&Mode) -> usize) -> usize {
    let mut open = segments;
    for m in order.iter().rev() {
        if stride(m) == len {
            return open;
        }
        open = open.saturating_mul(m.extent);
    }
    open
}

/// Open streams of a loop order, counting a write stream as a quarter of a read stream:
/// stores retire through the store buffer, loads stall on a miss.
fn cost(order: &[Mode], inner: Inner) -> usize {
    // (segments, length) on the source and on the destination side.
    let ((ss, sl), (ds, dl)) = match inner {
        Inner::Point => ((1, 1), (1, 1)),
        Inner::Run(n) => ((1, n), (1, n)),
        Inner::Strided { n, src, dst } => {
            let side = |stride: usize| if stride == 1 { (1, n) } else { (n, 1) };
            (side(src), side(dst))
        }
        Inner::Transpose { rows, src_row_stride, cols, dst_row_stride } => {
            let src = if src_row_stride == cols { (1, rows * cols) } else { (rows, cols) };
            let dst = if dst_row_stride == rows { (1, rows * cols) } else { (cols, rows) };
            (src, dst)
        }
    };
    let reads = streams(order, ss, sl, |m| m.src);
    let writes = streams(order, ds, dl, |m| m.dst);
    reads.saturating_mul(4).saturating_add(writes)
}

/// The copy of every logical element and the zeroing of every padding element of the
/// destination grid, as blocks in units of `1/scale` element (`scale` > 1 turns elements of
/// an odd byte size into runs of bytes). `None`: not both clean, or not refinable.
pub(super) fn blocks(from: &Plan, to: &Plan, scale: usize) -> Option<(Vec<Block>, Vec<Block>)> {
    let a = side_digits(from)?;
    let b = side_digits(to)?;
    let dims = from.dims();

    let mut per_dim = Vec::new();
    for (d, &n) in dims.iter().enumerate() {
        if n == 1 {
            continue; // one position: offset 0 on both sides
        }
        let common = refine(&a[d], &b[d])?;
        let weights: Vec<usize> = common.iter().map(|c| c.weight).collect();
        let digits: Vec<_> = common.iter().map(|c| (c.weight, c.extent, c.src, c.dst)).collect();
        per_dim.push(pieces(0, n, &weights)?.into_iter().map(|p| part(p, &digits)).collect());
    }
    let mut copies = Vec::new();
    product(&per_dim, scale, &mut copies)?;

    // Destination padding: positions where some dimension is at or past its size. Disjoint
    // pieces: dimensions before `d` in range, `d` out of range, later ones anything.
    let sizes: Vec<usize> =
        dims.iter().copied().chain(core::iter::repeat(1)).take(b.len()).collect();
    let mut ranges = Vec::with_capacity(b.len());
    for (digits, &n) in b.iter().zip(&sizes) {
        let top = digits[digits.len() - 1];
        let full = top.weight.checked_mul(top.extent)?;
        let weights: Vec<usize> = digits.iter().map(|x| x.weight).collect();
        let info: Vec<_> = digits.iter().map(|x| (x.weight, Some(x.extent), 0, x.stride)).collect();
        let cut = |lo, hi| -> Option<Vec<Part>> {
            Some(pieces(lo, hi, &weights)?.into_iter().map(|p| part(p, &info)).collect())
        };
        ranges.push((cut(0, n)?, cut(n, full)?, cut(0, full)?));
    }
    let mut zeros = Vec::new();
    for d in 0..ranges.len() {
        if ranges[d].1.is_empty() {
            continue;
        }
        let choice: Vec<Vec<Part>> = ranges
            .iter()
            .enumerate()
            .map(|(e, (inside, outside, all))| match e.cmp(&d) {
                core::cmp::Ordering::Less => inside.clone(),
                core::cmp::Ordering::Equal => outside.clone(),
                core::cmp::Ordering::Greater => all.clone(),
            })
            .collect();
        product(&choice, scale, &mut zeros)?;
    }
    Some((copies, zeros))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ArrayShape;

    fn plan(text: &str) -> Plan {
        text.parse::<ArrayShape>().unwrap().plan().unwrap()
    }

    #[test]
    fn pieces_cut_whole_tiles_then_edges() {
        let p = pieces(0, 4099, &[1, 8]).unwrap();
        let got: Vec<_> = p.iter().map(|p| (p.start, p.level, p.count)).collect();
        assert_eq!(got, [(0, 1, 512), (4096, 0, 3)]);
        let p = pieces(5, 64, &[1, 4, 16]).unwrap();
        let got: Vec<_> = p.iter().map(|p| (p.start, p.level, p.count)).collect();
        assert_eq!(got, [(5, 0, 3), (8, 1, 2), (16, 2, 3)]);
        let p = pieces(3, 4, &[1, 8]).unwrap();
        assert_eq!(p.len(), 1);
        assert!(pieces(7, 7, &[1, 2]).unwrap().is_empty());
    }

    #[test]
    fn clean_and_unclean() {
        assert!(side_digits(&plan("bf16[16,256]{1,0:T(8,128)(2,1)}")).is_some());
        assert!(side_digits(&plan("f32[8,8]{1,0:T(2,4)(2,1,1,1)}")).is_some());
        assert!(side_digits(&plan("f32[4,4]{1,0:T(2,4)(3,1)}")).is_none());
        assert!(side_digits(&plan("f32[6,4]{1,0:T(*,2)}")).is_none());
        // The edge-padding dimension may be split unevenly: only in-tile splits must divide.
        assert!(side_digits(&plan("f32[5,7]{1,0:T(2,2)(3,1,1,1)}")).is_some());
    }

    #[test]
    fn doc_example_blocks() {
        let (copies, zeros) =
            blocks(&plan("f32[3,5]{1,0}"), &plan("f32[3,5]{1,0:T(2,2)}"), 1).unwrap();
        let copied: usize = copies.iter().map(Block::len).sum();
        let zeroed: usize = zeros.iter().map(Block::len).sum();
        assert_eq!((copied, zeroed), (15, 9));
        assert_eq!(copies.len(), 4); // whole tiles, the bottom edge, the right edge, the corner
    }

    #[test]
    fn transpose_and_row_pairs_pick_their_kernels() {
        let (copies, _) =
            blocks(&plan("f32[4,8,16]{2,1,0}"), &plan("f32[4,8,16]{1,2,0}"), 1).unwrap();
        assert_eq!(copies.len(), 1);
        assert_eq!(
            copies[0].inner,
            Inner::Transpose { rows: 8, src_row_stride: 16, cols: 16, dst_row_stride: 8 }
        );
        let (copies, zeros) =
            blocks(&plan("bf16[16,256]{1,0}"), &plan("bf16[16,256]{1,0:T(8,128)(2,1)}"), 1)
                .unwrap();
        assert!(zeros.is_empty());
        assert_eq!(
            copies[0].inner,
            Inner::Transpose { rows: 2, src_row_stride: 256, cols: 128, dst_row_stride: 2 }
        );
        let (copies, _) =
            blocks(&plan("f32[16,256]{1,0}"), &plan("f32[16,256]{1,0:T(8,128)}"), 1).unwrap();
        assert_eq!(copies[0].inner, Inner::Run(128));
    }

    #[test]
    fn incompatible_tiles_do_not_refine() {
        assert!(blocks(&plan("f32[6,6]{1,0:T(2,3)}"), &plan("f32[6,6]{1,0:T(3,2)}"), 1).is_none());
        assert!(blocks(&plan("f32[6,6]{1,0:T(2,4)}"), &plan("f32[6,6]{1,0:T(4,2)}"), 1).is_some());
    }
}
