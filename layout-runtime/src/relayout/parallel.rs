//! `run_parallel`: each large block cut along its destination into parts that threads
//! own (feature `rayon`).

use alloc::vec::Vec;

use rayon::prelude::*;

use super::ctx::Ctx;
use super::decompose::Block;
use super::split::{cut, cuts, start};

/// Blocks smaller than this many elements are not worth a fork.
const MIN_ELEMENTS: usize = 1 << 15;

/// Cuts `b` along its major loop (`split::major`) into parts that own disjoint, consecutive
/// ranges of `dst` (`unit` block elements per slice element): about four per thread, each
/// starting on a cache line, so no two threads write into one line (see `split::cuts`).
/// `None` when the block is small, not nested (its outer steps' destination ranges
/// overlap), or every cut would fall inside a slice element.
pub(super) fn parts<'d, T>(
    b: &Block,
    dst: &'d mut [T],
    unit: usize,
) -> Option<Vec<(Block, &'d mut [T], usize)>> {
    if b.len() < MIN_ELEMENTS {
        return None;
    }
    let item = core::mem::size_of::<T>();
    let count = rayon::current_num_threads() * 4;
    let cuts = cuts(b, dst.as_ptr() as usize, item, unit, count)?;
    let extent = cuts[cuts.len() - 1];
    let mut out = Vec::with_capacity(cuts.len() - 1);
    let (mut rest, mut origin) = (dst, 0usize);
    for w in cuts.windows(2) {
        let end = if w[1] < extent { start(b, w[1], unit) } else { origin + rest.len() };
        let (mine, more) = core::mem::take(&mut rest).split_at_mut(end - origin);
        out.push((cut(b, w[0], w[1]), mine, origin * unit));
        rest = more;
        origin = end;
    }
    Some(out)
}

/// [`super::run_block`] on all threads, where `b` can be cut.
pub(super) fn run_block<T: Send>(
    b: &Block,
    dst: &mut [T],
    unit: usize,
    ctx: Ctx,
    f: impl Fn(&Block, &mut [T], usize) + Sync,
) {
    match parts(b, dst, unit) {
        Some(parts) => parts.into_par_iter().for_each(|(part, dst, origin)| {
            f(&part, dst, origin);
            // Each worker orders its own streamed stores before the join.
            ctx.finish();
        }),
        None => f(b, dst, 0),
    }
}
