//! Where the high-water marks lie when a rule is not modelled: a lower and an upper value
//! instead of one number.
//!
//! With a schedule (the module's own) and some values whose live ranges a missing rule may
//! lengthen (asynchronous operations, computations called twice, operands not followed),
//! the lower value is the mark as modelled and the upper one keeps each uncertain value
//! live from its start to the end, plus every value of the computations run
//! asynchronously, which are placed at no step. Without a schedule (a module not marked
//! `is_scheduled=true`), any order XLA's scheduler could choose is possible: the upper value
//! is every value at once, the lower one what must be live together in every order (at one
//! instruction's step: its results, its operands' top-level values, and the entry
//! parameters that live throughout).

use super::super::buffer::Analysis;
use super::super::id::{CompId, IndexVec, InstrId, ValueId};
use super::super::opcode::Opcode;
use super::dataflow::{Dataflow, FlowId};
use super::liveness::LiveRange;
use super::schedule::Schedule;
use super::tree::{NodeId, NodeSizes, Tree};
use super::{sweep, Bound, Bounds, HighWater, PeakValue};

/// The three measures of a size.
const MEASURES: [fn(&NodeSizes) -> u64; 3] = [|s| s.bytes, |s| s.array_bytes, |s| s.logical_bytes];

fn clamp(n: u128) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// The bounds of the three marks. `value_of` maps dataflow values to `values` (`None`
/// for values without a live range).
pub(crate) fn bounds(
    a: &Analysis<'_, '_>,
    s: &Schedule,
    d: &Dataflow,
    values: &IndexVec<ValueId, PeakValue>,
    value_of: &IndexVec<FlowId, Option<ValueId>>,
    marks: &HighWater,
    not_scheduled: bool,
) -> Bounds {
    let m = a.module;
    let steps = s.end();
    let unsized_value = values.iter().any(|v| v.sizes.is_none());
    let extra = asynchronous_values(a, s);
    let lowers = [marks.bytes.total, marks.array_bytes.total, marks.logical_bytes.total];
    let mut out = [Bound { lower: 0, upper: None }; 3];
    if not_scheduled {
        // Entry parameters live throughout (those not donated end at the schedule's end).
        let throughout: IndexVec<ValueId, bool> = values
            .iter()
            .map(|v| {
                m.instructions[v.instruction].opcode == Opcode::Parameter
                    && v.range.end == steps
                    && v.range.start == 0
            })
            .collect();
        for (k, f) in MEASURES.iter().enumerate() {
            let size = |v: ValueId| values[v].sizes.as_ref().map_or(0, f);
            let always: u128 =
                values.ids().filter(|&v| throughout[v]).map(|v| u128::from(size(v))).sum();
            let mut best: u128 = 0;
            for &i in &s.sequence {
                let mut own: Vec<ValueId> = (0..d.tree(i).len())
                    .filter_map(|k| d.value(i, NodeId::new(k)))
                    .chain(
                        m.instructions[i]
                            .operands
                            .iter()
                            .filter_map(|o| d.value(o.id?, Tree::root())),
                    )
                    .filter_map(|v| value_of[v])
                    .filter(|&x| !throughout[x])
                    .collect();
                own.sort_unstable();
                own.dedup();
                best = best.max(own.iter().map(|&v| u128::from(size(v))).sum());
            }
            let all: u128 =
                values.ids().map(|v| u128::from(size(v))).sum::<u128>() + u128::from(f(&extra));
            out[k] =
                Bound { lower: clamp(always + best), upper: (!unsized_value).then(|| clamp(all)) };
        }
    } else {
        let uncertain = uncertain(a, d, values, value_of);
        for (k, f) in MEASURES.iter().enumerate() {
            let longest: Vec<(LiveRange, u64)> = values
                .iter()
                .zip(uncertain.iter())
                .map(|(v, &u)| {
                    let end = if u { steps } else { v.range.end };
                    (LiveRange { start: v.range.start, end }, v.sizes.as_ref().map_or(0, f))
                })
                .collect();
            let upper = clamp(sweep::high_water(&longest, steps).1).saturating_add(f(&extra));
            out[k] = Bound { lower: lowers[k], upper: (!unsized_value).then_some(upper) };
        }
    }
    let [bytes, array_bytes, logical_bytes] = out;
    Bounds { bytes, array_bytes, logical_bytes }
}

/// Values of instructions whose dataflow was not followed and of their operands: they may
/// live to the end.
fn uncertain(
    a: &Analysis<'_, '_>,
    d: &Dataflow,
    values: &IndexVec<ValueId, PeakValue>,
    value_of: &IndexVec<FlowId, Option<ValueId>>,
) -> IndexVec<ValueId, bool> {
    let m = a.module;
    let mut uncertain = IndexVec::from_elem(false, values.len());
    let mut mark_all = |j: InstrId| {
        for k in 0..d.tree(j).len() {
            if let Some(x) = d.value(j, NodeId::new(k)).and_then(|v| value_of[v]) {
                uncertain[x] = true;
            }
        }
    };
    for &i in &d.unsure {
        mark_all(i);
        for o in m.instructions[i].operands.iter().filter_map(|o| o.id) {
            mark_all(o);
        }
    }
    uncertain
}

/// The values of computations run asynchronously, which are placed at no step: all of them
/// may be live at any one.
fn asynchronous_values(a: &Analysis<'_, '_>, s: &Schedule) -> NodeSizes {
    let m = a.module;
    let mut extra = NodeSizes::default();
    let mut seen = IndexVec::<CompId, bool>::from_elem(false, m.computations.len());
    for &i in &s.async_callers {
        for c in m.instructions[i].called.iter().filter_map(|c| c.id) {
            if s.span[c].is_some() || std::mem::replace(&mut seen[c], true) {
                continue;
            }
            for j in m.computations[c].instructions {
                if let Some(f) = a.facts(j) {
                    let t = f.total;
                    let bytes = t.logical_bytes.saturating_add(t.widening_bytes);
                    extra = extra.plus(NodeSizes {
                        bytes,
                        array_bytes: t.array_bytes,
                        logical_bytes: t.logical_bytes,
                    });
                }
            }
        }
    }
    extra
}
