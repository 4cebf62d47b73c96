//! XLA's heap simulator over the whole module (`HeapSimulator::RunComputation`, run once
//! on the flattened schedule because every global computation has a sequence on CPU), and
//! the packing of its buffers by `GlobalDecreasingSizeBestFitHeap` in its two orders
//! (`kSpatial`, `kTemporal`), the smaller heap kept (`ChooseBestHeapAlgorithm`), with
//! XLA:CPU's alignment of 64 bytes.
//!
//! The simulator turns the temporaries' live ranges into events, counted in the order they
//! happen (every value starting at a step, then every value ending there): a value opens
//! an interval where it is defined and closes it where it is last live, unless it takes
//! over the memory of an operand that dies at its step (`CanShareOperandBufferWithUser`) or
//! of a value of its own buffer, which make it a colocation of that value. The packer then
//! places the intervals one by one, largest (or longest) first, each in the smallest free
//! gap of the memory used by the intervals placed before it that overlap it in time.

use serde::Serialize;

use super::super::id::IndexVec;
use super::super::opcode::Opcode;
use super::super::peak::dataflow::FlowId;
use super::super::peak::tree::Tree;
use super::share::Sharing;
use super::values::{Budget, Ctx, Rows};

/// XLA:CPU's alignment of every heap offset: `EIGEN_MAX_ALIGN_BYTES` of XLA's Eigen build.
pub const ALIGNMENT: u64 = 64;

/// Which order of XLA's best-fit heap packed the temporaries.
///
/// ```
/// assert_eq!(xlayout::hlo::HeapAlgorithm::Spatial.as_str(), "spatial");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum HeapAlgorithm {
    /// Largest first (`kSpatial`), which XLA keeps on a tie.
    Spatial,
    /// Longest-lived first (`kTemporal`).
    Temporal,
}

impl HeapAlgorithm {
    /// Its name in the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            HeapAlgorithm::Spatial => "spatial",
            HeapAlgorithm::Temporal => "temporal",
        }
    }
}

/// The heap: its size, the order that packed it, and each value's (offset, size).
pub(crate) struct Heap {
    pub size: u64,
    pub algorithm: HeapAlgorithm,
    pub values: Vec<(FlowId, u64, u64)>,
}

/// One interval of the simulator: a value from the event that opened it to the one that
/// closed it, and the values that took over its memory.
struct Interval {
    value: FlowId,
    size: u64,
    start: u64,
    end: u64,
    colocations: Vec<u32>,
    /// Placed by the packer (not a colocation of another).
    need: bool,
}

/// Runs the simulator on the `deferred` values and packs them; `None` when the budget ran
/// out.
pub(crate) fn heap(
    x: Ctx<'_, '_, '_>,
    share: &mut Sharing<'_, '_, '_>,
    budget: &mut Budget,
    deferred: &[FlowId],
) -> Option<Heap> {
    let (intervals, zero) = events(x, share, budget, deferred)?;
    let spatial = pack(&intervals, HeapAlgorithm::Spatial, budget)?;
    let temporal = pack(&intervals, HeapAlgorithm::Temporal, budget)?;
    let (size, algorithm, offsets) = if temporal.0 < spatial.0 {
        (temporal.0, HeapAlgorithm::Temporal, temporal.1)
    } else {
        (spatial.0, HeapAlgorithm::Spatial, spatial.1)
    };
    let mut values: Vec<(FlowId, u64, u64)> =
        intervals.iter().zip(offsets).map(|(x, off)| (x.value, off, x.size)).collect();
    values.extend(zero.into_iter().map(|v| (v, 0, 0)));
    Some(Heap { size, algorithm, values })
}

/// `HeapSimulator::RunComputation`: the intervals, and the values of size 0 (placed at
/// offset 0, outside any interval).
fn events(
    x: Ctx<'_, '_, '_>,
    share: &mut Sharing<'_, '_, '_>,
    budget: &mut Budget,
    deferred: &[FlowId],
) -> Option<(Vec<Interval>, Vec<FlowId>)> {
    let Ctx { a, d, facts, live } = x;
    let m = a.module;
    let n = d.values.len();
    let mut is_deferred = IndexVec::<FlowId, bool>::from_elem(false, n);
    deferred.iter().for_each(|&v| is_deferred[v] = true);
    let range = |v: FlowId| live.ranges[v].map(|r| (r.start, r.end));
    let mut order: Vec<(u32, u32, FlowId)> =
        deferred.iter().filter_map(|&v| range(v).map(|(s, e)| (s, e, v))).collect();
    order.sort_unstable();
    if !budget.spend(order.len()) {
        return None;
    }
    let steps = order.iter().map(|&(s, e, _)| s.max(e)).max().map_or(0, |t| t as usize + 1);
    let defined =
        Rows::new(steps, &order.iter().map(|&(s, _, v)| (s as usize, v)).collect::<Vec<_>>());
    let freed =
        Rows::new(steps, &order.iter().map(|&(_, e, v)| (e as usize, v)).collect::<Vec<_>>());
    // Whether a value is still due to be freed at its step.
    let mut due = is_deferred.clone();
    let mut intervals: Vec<Interval> = Vec::with_capacity(order.len());
    let mut interval_of = IndexVec::<FlowId, Option<u32>>::from_elem(None, n);
    let mut first_allocated = IndexVec::from_elem(None, facts.buffers());
    let mut zero = Vec::new();
    let mut clock = 0u64;
    let size = |v: FlowId| facts.buffer_size[facts.buffer[v]];
    for t in 0..steps {
        for &v in defined.row(t) {
            let b = facts.buffer[v];
            if let Some(first) = first_allocated[b] {
                share_with(
                    &mut intervals,
                    &mut interval_of,
                    &mut zero,
                    &mut clock,
                    v,
                    first,
                    size(v),
                );
                continue;
            }
            let mut shared = false;
            if facts.members(b).len() == 1 {
                let f = d.values[v];
                let ins = &m.instructions[f.instruction];
                'operands: for o in ins.operands.iter().filter_map(|o| o.id) {
                    if !budget.spend(1) {
                        return None;
                    }
                    let Some(u) = d.value(o, Tree::root()) else { continue };
                    if facts.members(facts.buffer[u]).len() > 1
                        || range(u).map(|r| r.1 as usize) != Some(t)
                        || !is_deferred[u]
                        || !due[u]
                    {
                        continue;
                    }
                    let uf = d.values[u];
                    let user_of = ins.operands.iter().any(|x| x.id == Some(uf.instruction));
                    if user_of
                        && ins.opcode != Opcode::Copy
                        && share.can_share(uf.instruction, uf.node, f.instruction, f.node)
                    {
                        // The operand is freed right before its memory is shared.
                        free(&mut intervals, &interval_of, &mut clock, u);
                        due[u] = false;
                        share_with(
                            &mut intervals,
                            &mut interval_of,
                            &mut zero,
                            &mut clock,
                            v,
                            u,
                            size(v),
                        );
                        shared = true;
                        break 'operands;
                    }
                }
            }
            if !shared {
                if size(v) == 0 {
                    zero.push(v);
                } else {
                    interval_of[v] = Some(intervals.len() as u32);
                    intervals.push(Interval {
                        value: v,
                        size: size(v),
                        start: clock,
                        end: u64::MAX,
                        colocations: Vec::new(),
                        need: true,
                    });
                    clock += 1;
                }
                first_allocated[b] = Some(v);
            }
        }
        for &v in freed.row(t) {
            if std::mem::replace(&mut due[v], false) {
                free(&mut intervals, &interval_of, &mut clock, v);
            }
        }
    }
    Some((intervals, zero))
}

/// `ShareWith(v, shared)`: `v` opens an interval that is a colocation of `shared`'s.
fn share_with(
    intervals: &mut Vec<Interval>,
    interval_of: &mut IndexVec<FlowId, Option<u32>>,
    zero: &mut Vec<FlowId>,
    clock: &mut u64,
    v: FlowId,
    shared: FlowId,
    size: u64,
) {
    let Some(k) = interval_of[shared].filter(|_| size > 0) else {
        zero.push(v);
        return;
    };
    let me = intervals.len() as u32;
    intervals[k as usize].colocations.push(me);
    interval_of[v] = Some(me);
    intervals.push(Interval {
        value: v,
        size: intervals[k as usize].size,
        start: *clock,
        end: u64::MAX,
        colocations: Vec::new(),
        need: false,
    });
    *clock += 1;
}

/// `Free(v)`: closes `v`'s interval at the next event.
fn free(
    intervals: &mut [Interval],
    interval_of: &IndexVec<FlowId, Option<u32>>,
    clock: &mut u64,
    v: FlowId,
) {
    if let Some(k) = interval_of[v] {
        intervals[k as usize].end = *clock;
        *clock += 1;
    }
}

/// `GlobalDecreasingSizeBestFitHeap::Finish` in `order`: the heap's size and each
/// interval's offset.
fn pack(
    intervals: &[Interval],
    order: HeapAlgorithm,
    budget: &mut Budget,
) -> Option<(u64, Vec<u64>)> {
    let n = intervals.len();
    // Each placed interval's colocations, transitively.
    let mut colocated: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (k, x) in intervals.iter().enumerate().filter(|(_, x)| x.need) {
        let mut stack = x.colocations.clone();
        while let Some(c) = stack.pop() {
            colocated[k].push(c);
            stack.extend_from_slice(&intervals[c as usize].colocations);
        }
        if !budget.spend(1 + colocated[k].len()) {
            return None;
        }
    }
    let end_with_colocations = |k: usize| {
        colocated[k].iter().map(|&c| intervals[c as usize].end).fold(intervals[k].end, u64::max)
    };
    let mut sorted: Vec<usize> = (0..n).filter(|&k| intervals[k].need).collect();
    let id = |k: usize| intervals[k].value;
    match order {
        HeapAlgorithm::Spatial => sorted.sort_unstable_by_key(|&k| {
            let x = &intervals[k];
            (std::cmp::Reverse(x.size), std::cmp::Reverse(x.end - x.start), id(k))
        }),
        HeapAlgorithm::Temporal => sorted.sort_unstable_by_key(|&k| {
            let x = &intervals[k];
            (std::cmp::Reverse(end_with_colocations(k) - x.start), std::cmp::Reverse(x.size), id(k))
        }),
    }
    let mut tree = Placed::new(intervals);
    let mut offsets = vec![0u64; n];
    let mut heap_size = 0u64;
    let mut used: Vec<(u64, u64)> = Vec::new();
    for k in sorted {
        let x = &intervals[k];
        used.clear();
        tree.overlapping(x.start, x.end, &mut used);
        for &c in &colocated[k] {
            let y = &intervals[c as usize];
            tree.overlapping(y.start, y.end, &mut used);
        }
        if !budget.spend(1 + used.len()) {
            return None;
        }
        let offset = best_fit(&mut used, x.size);
        heap_size = heap_size.max(offset.saturating_add(x.size));
        offsets[k] = offset;
        tree.add(k, offset, x.size);
        for &c in &colocated[k] {
            offsets[c as usize] = offset;
            tree.add(c as usize, offset, x.size);
        }
    }
    Some((heap_size, offsets))
}

/// The offset XLA picks among the chunks `used` (offset, size) occupies: the start of the
/// smallest free gap at least `size` long (the first of equal ones), where a gap runs from
/// 0 or from the end of a used chunk rounded up to [`ALIGNMENT`] to the next used chunk,
/// and past the last one without end.
fn best_fit(used: &mut [(u64, u64)], size: u64) -> u64 {
    used.sort_unstable();
    let mut cursor = 0u64;
    let mut best: Option<(u64, u64)> = None;
    for &(offset, len) in used.iter() {
        if offset > cursor {
            let gap = offset - cursor;
            if gap >= size && best.map_or(true, |(g, _)| gap < g) {
                best = Some((gap, cursor));
            }
        }
        cursor = cursor.max(align(offset.saturating_add(len)));
    }
    best.map_or(cursor, |(_, at)| at)
}

/// `x` rounded up to [`ALIGNMENT`].
pub(crate) fn align(x: u64) -> u64 {
    x.div_ceil(ALIGNMENT).saturating_mul(ALIGNMENT)
}

/// The intervals placed so far, found by time: a segment tree over the intervals (already
/// in order of start: each opens at the next tick of the clock), each leaf holding its
/// interval's end plus one once it is placed (0 until then), each inner node the largest
/// below it. A query visits the placed intervals that overlap it and the paths to them.
/// The tree is a flat array of `u64` and the first interval starting after a time is looked
/// up, not searched for: the packer's cost is memory traffic, hundreds of thousands of
/// queries on a large module.
struct Placed {
    /// Per interval placed: its chunk.
    chunk: Vec<(u64, u64)>,
    /// The tree: `max_end[1]` is the root, leaves from `leaves`; 0 where nothing is placed.
    max_end: Vec<u64>,
    leaves: usize,
    /// Per tick of the clock: how many intervals start at or before it.
    started: Vec<u32>,
    /// Each interval's end plus one (`u64::MAX` for one never freed).
    ends: Vec<u64>,
}

impl Placed {
    fn new(intervals: &[Interval]) -> Self {
        debug_assert!(intervals.windows(2).all(|w| w[0].start < w[1].start));
        let ticks = intervals.last().map_or(0, |x| x.start as usize + 1);
        let mut started = vec![0u32; ticks];
        let mut k = 0usize;
        for (t, n) in started.iter_mut().enumerate() {
            while k < intervals.len() && intervals[k].start as usize <= t {
                k += 1;
            }
            *n = k as u32;
        }
        let leaves = intervals.len().next_power_of_two().max(1);
        Placed {
            chunk: vec![(0, 0); intervals.len()],
            max_end: vec![0; 2 * leaves],
            leaves,
            started,
            ends: intervals.iter().map(|x| x.end.saturating_add(1)).collect(),
        }
    }

    fn add(&mut self, k: usize, offset: u64, size: u64) {
        self.chunk[k] = (offset, size);
        let end = self.ends[k];
        let mut node = self.leaves + k;
        while node >= 1 && self.max_end[node] < end {
            self.max_end[node] = end;
            node /= 2;
        }
    }

    /// Pushes onto `out` the chunk of every placed interval `[s, e]` overlaps (both ends
    /// included, as `BufferIntervalTree` finds them).
    fn overlapping(&self, s: u64, e: u64, out: &mut Vec<(u64, u64)>) {
        // Intervals starting after `e` are `limit..`; one ending before `s` has an end plus
        // one of at most `s`, as has a place with nothing placed.
        let limit = match usize::try_from(e) {
            Ok(e) if e < self.started.len() => self.started[e] as usize,
            _ => self.chunk.len(),
        };
        // Depth-first, the left child first: at most two nodes a level wait.
        let mut stack = [(0usize, 0usize, 0usize); 2 * usize::BITS as usize];
        stack[0] = (1, 0, self.leaves);
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let (node, lo, hi) = stack[top];
            if lo >= limit || self.max_end[node] <= s {
                continue;
            }
            if hi - lo == 1 {
                out.push(self.chunk[lo]);
                continue;
            }
            let mid = (lo + hi) / 2;
            stack[top] = (2 * node + 1, mid, hi);
            stack[top + 1] = (2 * node, lo, mid);
            top += 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_fit_takes_the_smallest_gap_that_fits_after_aligned_ends() {
        // Chunks at [0,100) and [256,300) and [512, 520): gaps [128,256) (128 long) and
        // [320,512) (192 long), then [576, ..).
        let mut used = vec![(256, 44), (0, 100), (512, 8)];
        assert_eq!(best_fit(&mut used, 100), 128);
        assert_eq!(best_fit(&mut used, 150), 320);
        assert_eq!(best_fit(&mut used, 200), 576);
        assert_eq!(best_fit(&mut [], 10), 0);
        // Overlapping chunks (placed at one offset at different times) make one.
        assert_eq!(best_fit(&mut [(0, 64), (0, 32), (128, 4)], 64), 64);
        assert_eq!(align(68), 128);
    }
}
