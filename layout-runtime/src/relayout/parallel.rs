//! `run_parallel`: each large block cut along its destination into parts that threads
//! own (feature `rayon`).

use alloc::vec::Vec;

use rayon::prelude::*;

use super::ctx::Ctx;
use super::decompose::{Block, Inner};

/// Blocks smaller than this many elements are not worth a fork.
const MIN_ELEMENTS: usize = 1 << 15;

/// Bytes of a cache line: where parts should start, so that no two threads write into
/// one line.
const LINE: usize = 64;

/// The loop of `b` to cut between threads, as (extent, destination stride): the outermost
/// loop (the largest destination stride), or for a block without outer loops the inner
/// kernel's destination-major one (the runs of a `Run`, the steps of a `Strided`, the
/// destination rows of a `Transpose`).
fn major(b: &Block) -> Option<(usize, usize)> {
    match (b.outer.first(), b.inner) {
        (Some(m), _) => Some((m.extent, m.dst)),
        (None, Inner::Run(n)) => Some((n, 1)),
        (None, Inner::Strided { n, dst, .. }) => Some((n, dst)),
        (None, Inner::Transpose { cols, dst_row_stride, .. }) => Some((cols, dst_row_stride)),
        (None, Inner::Point) => None,
    }
}

/// Steps `lo..hi` of `b`'s [`major`] loop.
fn cut(b: &Block, lo: usize, hi: usize) -> Block {
    let mut p = b.clone();
    match (p.outer.first_mut(), &mut p.inner) {
        (Some(m), _) => {
            p.src += lo * m.src;
            p.dst += lo * m.dst;
            m.extent = hi - lo;
        }
        (None, Inner::Run(n)) => {
            (p.src, p.dst, *n) = (p.src + lo, p.dst + lo, hi - lo);
        }
        (None, Inner::Strided { n, src, dst }) => {
            (p.src, p.dst, *n) = (p.src + lo * *src, p.dst + lo * *dst, hi - lo);
        }
        (None, Inner::Transpose { cols, dst_row_stride, .. }) => {
            (p.src, p.dst, *cols) = (p.src + lo, p.dst + lo * *dst_row_stride, hi - lo);
        }
        (None, Inner::Point) => {}
    }
    p
}

/// Cuts `b` along its [`major`] loop into parts that own disjoint, consecutive ranges of
/// `dst` (`unit` block elements per slice element): about four per thread, each
/// starting on a cache line, so no two threads write into one line. Only where the
/// buffer's address puts no step of the loop on a line (a buffer not aligned for its
/// elements) are the cuts on whole elements instead, and threads share a line at each.
/// `None` when the block is small, not nested (its outer steps' destination ranges
/// overlap), or every cut would fall inside a slice element.
pub(super) fn parts<'d, T>(
    b: &Block,
    dst: &'d mut [T],
    unit: usize,
) -> Option<Vec<(Block, &'d mut [T], usize)>> {
    let (extent, stride) = major(b)?;
    if !b.nested || b.len() < MIN_ELEMENTS || extent < 2 {
        return None;
    }
    let base = dst.as_ptr() as usize;
    let at = |lo: usize| b.dst + lo * stride; // in block elements
    let whole = |lo: usize| at(lo) % unit == 0;
    let on_line =
        |lo: usize| whole(lo) && (base + at(lo) / unit * core::mem::size_of::<T>()) % LINE == 0;
    let count = (rayon::current_num_threads() * 4).min(extent);
    // Line starts recur every `LINE · unit` steps at most, whole elements every `unit`:
    // cuts on lines if there are any, else on whole elements.
    let cuts_where = |ok: &dyn Fn(usize) -> bool, span: usize| {
        let mut cuts = Vec::with_capacity(count + 1);
        cuts.push(0);
        for k in 1..count {
            let even = k * extent / count;
            let lo =
                (even.max(cuts[cuts.len() - 1] + 1)..(even + span).min(extent)).find(|&lo| ok(lo));
            cuts.extend(lo);
        }
        cuts
    };
    let mut cuts = cuts_where(&on_line, LINE * unit);
    if cuts.len() < 2 {
        cuts = cuts_where(&whole, unit);
    }
    if cuts.len() < 2 {
        return None;
    }
    cuts.push(extent);
    let mut out = Vec::with_capacity(cuts.len() - 1);
    let (mut rest, mut origin) = (dst, 0usize);
    for w in cuts.windows(2) {
        let end = if w[1] < extent { at(w[1]) / unit } else { origin + rest.len() };
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
