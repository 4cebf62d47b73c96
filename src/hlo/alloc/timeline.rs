//! The allocation over time: at every step of the schedule, what the memory XLA:CPU
//! allocates holds. The arguments' and outputs' allocations are the program's for the
//! whole call; the temporaries' allocation holds, at each step, the buffers live there, each
//! counted once (the values that take over one place in it, a loop's carried buffer or an
//! element-wise chain, are one buffer). So the columns add up: the tallest temporaries
//! column is the most the temporaries hold at once ([`TempPeak`]), and the top of what they
//! hold, at its highest, is the whole temporaries' allocation.

use serde::Serialize;

use super::super::id::ValueId;
use super::super::peak::tree::NodeSizes;
use super::model::{Assignment, TempPeak};
use super::values::Rows;

/// A value's first and last step and sizes, as the peak has them.
pub(crate) type Lived = (u32, u32, Option<NodeSizes>);

/// What the allocated memory holds at one step.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  %a = f32[16]{0} exponential(%p)\n  %b = f32[16]{0} negate(%p)\n  ROOT %c = f32[16]{0} add(%a, %b)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// let t = peak.allocation_timeline();
/// // b is the one temporary (steps 2-3): 64 bytes while it lives.
/// let temps: Vec<u64> = t.iter().map(|s| s.temporaries).collect();
/// assert_eq!(temps, [0, 0, 64, 64]);
/// assert_eq!((t[0].parameters, t[0].outputs), (64, 64));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StepAllocated {
    /// The arguments' allocations (for the whole call).
    pub parameters: u64,
    /// The outputs' allocations that are not arguments (for the whole call).
    pub outputs: u64,
    /// The temporaries' buffers live at the step, each counted once.
    pub temporaries: u64,
    /// Their tiling padding (`ArraySize` beyond XLA:CPU's size; none on CPU).
    pub padding: u64,
    /// The top of what the temporaries' allocation holds at the step: its largest offset
    /// plus size in use. Its largest over all steps is the allocation's size.
    pub extent: u64,
    /// How many temporaries' buffers are live.
    pub buffers: u32,
}

/// One buffer of an allocation, and the steps it spans: an argument's or output's
/// allocation, the program's for the whole call, or in the temporaries' the values that take
/// one place one after another (a run of values at one offset whose live ranges overlap or
/// touch).
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[16]{0} parameter(0)\n  %a = f32[16]{0} exponential(%p)\n  %b = f32[16]{0} negate(%p)\n  ROOT %c = f32[16]{0} add(%a, %b)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// let at = peak.buffers_at(2);
/// // The output's allocation (a, then c over it), the argument's, the temporary b.
/// let sizes: Vec<(u64, usize)> = at.iter().map(|b| (b.size, b.values.len())).collect();
/// assert_eq!(sizes, [(64, 2), (64, 1), (64, 1)]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AllocatedBuffer {
    /// Its allocation (an index into [`Assignment::allocations`]).
    pub allocation: usize,
    /// Its offset there.
    pub offset: u64,
    /// Its size.
    pub size: u64,
    /// Its first step.
    pub start: u32,
    /// Its last step.
    pub end: u32,
    /// Its values (indices into the allocation's values), by first step.
    pub values: Vec<usize>,
}

impl Assignment {
    /// The buffers of the allocations `memory_analysis()` counts: an argument's or
    /// output's allocation whole, for the whole call (its `steps` steps); in the
    /// temporaries', each run of values at one offset. `lived` gives a value's steps; values
    /// without any are left out. Constants' and thread-local allocations are not counted, so
    /// not here.
    pub(crate) fn buffers(
        &self,
        steps: usize,
        lived: &dyn Fn(ValueId) -> Option<Lived>,
    ) -> Vec<AllocatedBuffer> {
        let mut out = Vec::new();
        for k in 0..self.allocations.len() {
            self.buffers_of(k, steps, lived, &mut out);
        }
        out
    }

    /// [`Assignment::buffers`] of allocation `k`, pushed onto `out`.
    fn buffers_of(
        &self,
        k: usize,
        steps: usize,
        lived: &dyn Fn(ValueId) -> Option<Lived>,
        out: &mut Vec<AllocatedBuffer>,
    ) {
        let a = &self.allocations[k];
        let whole = a.parameter.is_some() || a.maybe_live_out;
        if !whole && !a.temp {
            return;
        }
        let mut values: Vec<(u64, u32, u32, usize)> = a
            .values
            .iter()
            .enumerate()
            .filter_map(|(j, v)| {
                let (start, end, _) = lived(v.value?)?;
                Some((if a.temp { v.offset } else { 0 }, start, end, j))
            })
            .collect();
        values.sort_unstable();
        if whole {
            // The schedule's end, or past it where XLA's live ranges run to its end time.
            let last = u32::try_from(steps.saturating_sub(1)).unwrap_or(u32::MAX);
            let end = values.iter().map(|v| v.2).fold(last, u32::max);
            let values = values.iter().map(|v| v.3).collect();
            out.push(AllocatedBuffer {
                allocation: k,
                offset: 0,
                size: a.size,
                start: 0,
                end,
                values,
            });
            return;
        }
        let mut open: Option<AllocatedBuffer> = None;
        for (offset, start, end, j) in values {
            let size = a.values[j].size;
            match open.as_mut() {
                Some(b) if b.offset == offset && start <= b.end => {
                    b.end = b.end.max(end);
                    b.size = b.size.max(size);
                    b.values.push(j);
                }
                _ => {
                    out.extend(open.take());
                    let values = vec![j];
                    open =
                        Some(AllocatedBuffer { allocation: k, offset, size, start, end, values });
                }
            }
        }
        out.extend(open);
    }

    /// What the allocated memory holds at each of `steps` steps.
    pub(crate) fn steps(
        &self,
        steps: usize,
        lived: &dyn Fn(ValueId) -> Option<Lived>,
    ) -> Vec<StepAllocated> {
        let mut t = vec![StepAllocated::default(); steps];
        let fixed = |f: &dyn Fn(&super::model::PredictedAllocation) -> bool| {
            self.allocations.iter().filter(|a| f(a)).fold(0u64, |s, a| s.saturating_add(a.size))
        };
        let parameters = fixed(&|a| a.parameter.is_some());
        let outputs = fixed(&|a| a.maybe_live_out && a.parameter.is_none());
        // Difference arrays for the sums, and the tops of the buffers starting and ending
        // at each step for the extent's sweep.
        let mut delta = vec![[0i128; 3]; steps + 1];
        let (mut starts, mut ends) = (Vec::new(), Vec::new());
        let mut temps = Vec::new();
        for k in (0..self.allocations.len()).filter(|&k| self.allocations[k].temp) {
            self.buffers_of(k, steps, lived, &mut temps);
        }
        for b in temps {
            let a = &self.allocations[b.allocation];
            if steps == 0 {
                continue;
            }
            let (s, e) = ((b.start as usize).min(steps - 1), (b.end as usize).min(steps - 1));
            let padded = b
                .values
                .iter()
                .filter_map(|&j| lived(a.values[j].value?)?.2)
                .map(|n| n.array_bytes)
                .max();
            let padding = padded.unwrap_or(0).saturating_sub(b.size);
            for (k, x) in [b.size, padding, 1].into_iter().enumerate() {
                delta[s][k] += i128::from(x);
                delta[e + 1][k] -= i128::from(x);
            }
            let top = b.offset.saturating_add(b.size);
            starts.push((s, top));
            ends.push((e + 1, top));
        }
        let (starts, ends) = (Rows::new(steps + 1, &starts), Rows::new(steps + 1, &ends));
        let clamp = |x: i128| u64::try_from(x.max(0)).unwrap_or(u64::MAX);
        let mut sum = [0i128; 3];
        let mut tops = std::collections::BTreeMap::<u64, usize>::new();
        for (k, step) in t.iter_mut().enumerate() {
            for &x in ends.row(k) {
                if let Some(n) = tops.get_mut(&x) {
                    *n -= 1;
                    if *n == 0 {
                        tops.remove(&x);
                    }
                }
            }
            for &x in starts.row(k) {
                *tops.entry(x).or_insert(0) += 1;
            }
            for (s, d) in sum.iter_mut().zip(delta[k]) {
                *s += d;
            }
            *step = StepAllocated {
                parameters,
                outputs,
                temporaries: clamp(sum[0]),
                padding: clamp(sum[1]),
                extent: tops.keys().next_back().copied().unwrap_or(0),
                buffers: u32::try_from(clamp(sum[2])).unwrap_or(u32::MAX),
            };
        }
        t
    }
}

/// The first step with the most temporaries.
pub(crate) fn temp_peak(steps: &[StepAllocated]) -> TempPeak {
    let mut best = TempPeak::default();
    for (k, s) in steps.iter().enumerate() {
        if s.temporaries > best.bytes {
            best = TempPeak { step: k as u32, bytes: s.temporaries };
        }
    }
    best
}
