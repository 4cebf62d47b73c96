//! The layout of a result that makes a reshape or transpose a bitcast: XLA's `AlignLayouts`
//! and `PermuteDimensions`, extended to tiles.
//!
//! The result keeps its dimensions, tiles and every other field; only minor_to_major is
//! chosen. Tiles reach only the most minor physical dimensions (as many as the tiles cover,
//! level after level); every dimension beyond them is laid out untiled, so its stride — the
//! offset of its unit index, read off the operand — fixes its place. So the search tries, in
//! order: the result's own layout, XLA's answer (`AlignLayouts` / `PermuteDimensions`), the
//! order of the unit offsets, and then every choice of dimensions for the positions the
//! tiles reach, the rest ordered by unit offsets. Size-1 dimensions go most major outside the
//! tiles, in descending order, as XLA puts them ("descending layouts tend to reduce the
//! number of copies inserted in layout assignment").

use alloc::vec::Vec;

use super::bitcast::{same, transposed_operand, unravel, Side};
use super::xla::{align_layouts, layout_perm};
use crate::limits::MAX_LAYOUT_CANDIDATES;
use crate::{ArrayShape, Error, ErrorKind};

/// How many of the most minor physical dimensions the tiles of a layout of `rank`
/// dimensions reach.
fn tile_reach(shape: &ArrayShape, rank: usize) -> usize {
    let Some(layout) = &shape.layout else { return 0 };
    // Each entry of the current index space, by the physical position (0 = most minor) it
    // comes from; `None` for the size-1 axes a long tile adds.
    let mut cur: Vec<Option<usize>> = (0..rank).rev().map(Some).collect();
    let mut reach = 0;
    for tile in &layout.tiles {
        let n = tile.dims.len();
        if n > cur.len() {
            let mut longer = alloc::vec![None; n - cur.len()];
            longer.extend(cur);
            cur = longer;
        }
        let covered = cur.split_off(cur.len() - n);
        for p in covered.iter().flatten() {
            reach = reach.max(p + 1);
        }
        cur.extend(covered.iter().copied());
        cur.extend(covered);
    }
    reach.min(rank)
}

/// How many orders of `to`'s dimensions [`reshape_bitcast_layout`] and
/// [`transpose_bitcast_layout`] try at most: its own, XLA's, the unit-offset order, and every
/// choice of dimensions for the positions its tiles reach (saturating; past
/// [`MAX_LAYOUT_CANDIDATES`] the search is refused). Each costs about a plan of `to`: a
/// caller with many questions (a whole HLO module) can budget them by this.
///
/// ```
/// use layout_runtime::algebra::layout_orders;
/// assert_eq!(layout_orders(&"f32[4,1,128]{2,1,0}".parse()?), 3);
/// assert_eq!(layout_orders(&"f32[4,1,128]{2,1,0:T(8,128)}".parse()?), 3 + 3 * 2);
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn layout_orders(to: &ArrayShape) -> u64 {
    let rank = to.rank();
    let w = tile_reach(to, rank);
    if w == 0 {
        return 3;
    }
    let window = (rank - w + 1..=rank).fold(1u64, |acc, x| acc.saturating_mul(x as u64));
    window.saturating_add(3)
}

/// Tries `to`'s dimensions under each candidate order; the first that is a bitcast from `a`.
struct Search<'s> {
    a: Side,
    to: &'s ArrayShape,
    tried: Vec<Vec<usize>>,
}

impl Search<'_> {
    fn try_order(&mut self, m2m: Vec<usize>) -> Result<Option<ArrayShape>, Error> {
        if self.tried.contains(&m2m) {
            return Ok(None);
        }
        let mut layout = self.to.layout_or_default().into_owned();
        layout.minor_to_major = m2m.iter().map(|&d| d as i64).collect();
        self.tried.push(m2m);
        let candidate = self.to.clone().with_layout(layout);
        let b = Side::new(&candidate)?;
        Ok(same(&self.a, &b, false)?.then_some(candidate))
    }
}

/// The search itself, from the operand side `a` (dimensions in any order) to `to`.
fn search(
    a: Side,
    to: &ArrayShape,
    xla_answer: Option<Vec<usize>>,
) -> Result<Option<ArrayShape>, Error> {
    if a.element_type != to.element_type || a.count != to.element_count()? {
        return Ok(None);
    }
    let rank = to.rank();
    let own = layout_perm(to)?;
    let mut s = Search { a, to, tried: Vec::new() };
    if let Some(found) = s.try_order(own)? {
        return Ok(Some(found));
    }
    if let Some(m2m) = xla_answer {
        if let Some(found) = s.try_order(m2m)? {
            return Ok(Some(found));
        }
    }
    // The offset of each dimension's unit index, read off the operand at the same row-major
    // position: the stride that dimension must have.
    let dims = s.a.plan.dims().to_vec();
    let to_dims: Vec<usize> = to.dims.iter().map(|d| d.bound().unwrap_or(0) as usize).collect();
    let mut unit = Vec::with_capacity(rank);
    for d in 0..rank {
        let position: usize = to_dims[d + 1..].iter().product();
        let index: Vec<usize> = unravel(&dims, position).into_iter().map(|i| i as usize).collect();
        // An empty array has no unit index to read (and any order holds its no elements).
        unit.push(if to_dims[d] > 1 && s.a.count > 0 { s.a.plan.offset(&index)? } else { 0 });
    }
    let by_unit = |chosen: &[usize]| -> Vec<usize> {
        let mut rest: Vec<usize> =
            (0..rank).filter(|d| !chosen.contains(d) && to_dims[*d] != 1).collect();
        rest.sort_by_key(|&d| unit[d]);
        let mut m2m = chosen.to_vec();
        m2m.extend(rest);
        m2m.extend((0..rank).rev().filter(|d| !chosen.contains(d) && to_dims[*d] == 1));
        m2m
    };
    if let Some(found) = s.try_order(by_unit(&[]))? {
        return Ok(Some(found));
    }
    let w = tile_reach(to, rank);
    if w == 0 {
        return Ok(None);
    }
    let count = (rank - w + 1..=rank).try_fold(1usize, |acc, x| acc.checked_mul(x));
    if count.map_or(true, |c| c > MAX_LAYOUT_CANDIDATES) {
        return Err(Error::new(
            ErrorKind::WorkLimit,
            alloc::format!(
                "the tiles of `{to}` reach its {w} most minor physical dimensions: more orders \
                 of its {rank} dimensions to try than this crate's limit of \
                 {MAX_LAYOUT_CANDIDATES}"
            ),
        ));
    }
    // Every ordered choice of `w` dimensions for the positions the tiles reach.
    let mut chosen: Vec<usize> = Vec::with_capacity(w);
    let mut next = alloc::vec![0usize; w + 1];
    loop {
        let depth = chosen.len();
        if depth == w {
            if let Some(found) = s.try_order(by_unit(&chosen))? {
                return Ok(Some(found));
            }
        }
        let start = next[depth];
        match (start..rank).find(|d| depth < w && !chosen.contains(d)) {
            Some(d) => {
                next[depth] = d + 1;
                chosen.push(d);
                next[depth + 1] = 0;
            }
            None => {
                if chosen.pop().is_none() {
                    return Ok(None);
                }
            }
        }
    }
}

/// `to`'s dimensions under a layout that makes the reshape from `from` a bitcast — `to`'s
/// tiles and other fields kept, only minor_to_major chosen — or `None` when no order does.
/// `to` itself when its own layout already does. For untiled shapes the first answer tried
/// is XLA's `AlignLayouts` (tests/data/algebra has its cases).
///
/// Errors: those of [`check_reshape`](super::check_reshape), and
/// [`ErrorKind::WorkLimit`] past [`MAX_LAYOUT_CANDIDATES`] orders.
///
/// ```
/// use layout_runtime::algebra::reshape_bitcast_layout;
/// let a = "bf16[8,256]{1,0:T(8,128)(2,1)}".parse()?;
/// let b = reshape_bitcast_layout(&a, &"bf16[1,8,256]{2,1,0:T(8,128)(2,1)}".parse()?)?;
/// assert_eq!(b.unwrap().to_string(), "bf16[1,8,256]{2,1,0:T(8,128)(2,1)}");
/// let c = reshape_bitcast_layout(&a, &"bf16[8,2,128]{2,1,0:T(8,128)(2,1)}".parse()?)?;
/// assert_eq!(c.unwrap().to_string(), "bf16[8,2,128]{2,0,1:T(8,128)(2,1)}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn reshape_bitcast_layout(
    from: &ArrayShape,
    to: &ArrayShape,
) -> Result<Option<ArrayShape>, Error> {
    let a = Side::new(from)?;
    let xla = align_layouts(from, to).ok().flatten().map(|s| layout_perm(&s)).transpose()?;
    search(a, to, xla)
}

/// `to`'s dimensions under a layout that makes the transpose from `from` with XLA's
/// `dimensions` a bitcast, or `None` when no order does; the first answer tried after
/// `to`'s own layout is XLA's `PermuteDimensions` (the operand's physical order).
///
/// Errors: those of [`check_transpose`](super::check_transpose), and
/// [`ErrorKind::WorkLimit`] past [`MAX_LAYOUT_CANDIDATES`] orders.
///
/// ```
/// use layout_runtime::algebra::transpose_bitcast_layout;
/// let a = "f32[16,3,12]{1,2,0:T(8,128)}".parse()?;
/// let b = transpose_bitcast_layout(&a, &"f32[12,16,3]{2,1,0:T(8,128)}".parse()?, &[2, 0, 1])?;
/// assert_eq!(b.unwrap().to_string(), "f32[12,16,3]{2,0,1:T(8,128)}");
/// # Ok::<(), layout_runtime::Error>(())
/// ```
pub fn transpose_bitcast_layout(
    from: &ArrayShape,
    to: &ArrayShape,
    dimensions: &[usize],
) -> Result<Option<ArrayShape>, Error> {
    let reordered = transposed_operand(from, to, dimensions)?;
    let xla = layout_perm(&reordered)?;
    search(Side::new(&reordered)?, to, Some(xla))
}
