//! Cutting a block along its destination into consecutive parts: for threads
//! (`run_parallel`, in `parallel`) and for the slices a measuring plan times candidates on
//! (`measure`). Parts own disjoint, consecutive ranges of the destination, each starting on
//! a cache line where the buffer's address allows.

use alloc::vec::Vec;

use super::decompose::{Block, Inner};

/// Bytes of a cache line: where parts should start, so that no two threads write into
/// one line, and no timed slice starts or ends inside one.
const LINE: usize = 64;

/// The loop of `b` to cut, as (extent, destination stride): the outermost loop (the
/// largest destination stride), or for a block without outer loops the inner kernel's
/// destination-major one (the runs of a `Run`, the steps of a `Strided`, the destination
/// rows of a `Transpose`). `None` for a single point, or a block whose steps' destination
/// ranges overlap (not nested).
pub(super) fn major(b: &Block) -> Option<(usize, usize)> {
    if !b.nested {
        return None;
    }
    match (b.outer.first(), b.inner) {
        (Some(m), _) => Some((m.extent, m.dst)),
        (None, Inner::Run(n)) => Some((n, 1)),
        (None, Inner::Strided { n, dst, .. }) => Some((n, dst)),
        (None, Inner::Transpose { cols, dst_row_stride, .. }) => Some((cols, dst_row_stride)),
        (None, Inner::Point) => None,
    }
}

/// Steps `lo..hi` of `b`'s [`major`] loop.
pub(super) fn cut(b: &Block, lo: usize, hi: usize) -> Block {
    let mut p = b.clone();
    if let Some(m) = p.alt.first_mut() {
        m.extent = hi - lo; // the same outermost loop as `outer`'s
    }
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

/// Where to cut `b` into about `count` parts of its [`major`] loop, as steps `0 = c₀ < c₁ <
/// … < extent`: near even steps, each cut where that step's destination starts on a cache
/// line of the buffer (`base`: the address of the destination slice, `item`: bytes per
/// slice element, `unit`: block elements per slice element). Only where the buffer's address
/// puts no step on a line (a buffer not aligned for its elements) are the cuts on whole
/// slice elements instead. `None` when `b` cannot be cut or every cut would fall inside a
/// slice element.
pub(super) fn cuts(
    b: &Block,
    base: usize,
    item: usize,
    unit: usize,
    count: usize,
) -> Option<Vec<usize>> {
    let (extent, stride) = major(b)?;
    let count = count.min(extent);
    let at = |lo: usize| b.dst + lo * stride; // in block elements
    let whole = |lo: usize| at(lo) % unit == 0;
    let on_line = |lo: usize| whole(lo) && (base + at(lo) / unit * item) % LINE == 0;
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
    Some(cuts)
}

/// Where the destination of steps from `lo` of `b`'s [`major`] loop starts, in slice
/// elements (`unit` block elements each); `lo` must be a cut of [`cuts`] or the extent.
pub(super) fn start(b: &Block, lo: usize, unit: usize) -> usize {
    let stride = major(b).map_or(0, |(_, stride)| stride);
    (b.dst + lo * stride) / unit
}
