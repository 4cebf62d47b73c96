//! [`Peak::new`]: the stages of the peak run in order (schedule, dataflow, liveness, sweep,
//! bounds), each reading what the one before found.

use super::super::alloc::{Assignment, Stages};
use super::super::buffer::Analysis;
use super::super::id::{IndexVec, ValueId};
use super::dataflow::{Dataflow, FlowId};
use super::schedule::Schedule;
use super::tree::{NodeSizes, Tree};
use super::{aliasing, bounds, liveness, sweep};
use super::{Bound, HighWater, LiveRange, Mark, NotModelled, Peak, PeakValue, Rule, XlaPeak};

impl Peak {
    /// The live ranges and peak of the module `a` analysed, and what XLA:CPU allocates for
    /// it ([`Peak::assignment`]). Linear in the size of the module (positions, operands,
    /// values and steps), but for sorting the peak's list and the heap's buffers.
    pub fn new(a: &Analysis<'_, '_>) -> Peak {
        Peak::build(a, true)
    }

    /// [`Peak::new`] without predicting the allocation: its [`Peak::assignment`] is empty,
    /// not a prediction. For the benchmark that prices the prediction against the rest;
    /// not a stable interface.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[4]{0} parameter(0)\n  ROOT %n = f32[4]{0} negate(%p)\n}\n");
    /// let a = Analysis::new(&m);
    /// let (with, without) = (Peak::new(&a), Peak::__without_assignment(&a));
    /// assert_eq!((with.xla.bytes, without.xla.bytes), (32, 32));
    /// assert_eq!((with.assignment.allocated_bytes, without.assignment.allocated_bytes), (32, 0));
    /// ```
    #[doc(hidden)]
    pub fn __without_assignment(a: &Analysis<'_, '_>) -> Peak {
        Peak::build(a, false)
    }

    fn build(a: &Analysis<'_, '_>, predict: bool) -> Peak {
        let m = a.module;
        let mut notes = Vec::new();
        let Some(entry) = m.entry else {
            NotModelled::add(&mut notes, Rule::NoEntry, None);
            let unknown = Bound { lower: 0, upper: None };
            let assignment = Assignment {
                not_modelled: notes.clone(),
                bounds: Some(unknown),
                ..Assignment::default()
            };
            return Peak { not_modelled: notes, assignment, ..Peak::default() };
        };
        if !m.is_scheduled {
            NotModelled::add(&mut notes, Rule::NotScheduled, None);
        }
        let s = Schedule::new(m, entry);
        let mut embedded_notes = Vec::new();
        let d = Dataflow::new(a, &s, &mut notes, &mut embedded_notes);
        let buffers = aliasing::buffers(a, &s, &d);
        let liveness = liveness::live_ranges(a, &s, &d, &buffers);
        let ranges = &liveness.ranges;
        // At most one per dataflow value: room for them all at once, not grown by doubling.
        let mut values: IndexVec<ValueId, PeakValue> =
            IndexVec::from_raw(Vec::with_capacity(d.values.len()));
        let mut value_of = IndexVec::<FlowId, Option<ValueId>>::from_elem(None, d.values.len());
        for ((v, value), range) in d.values.iter_enumerated().zip(ranges.iter()) {
            let Some(range) = *range else { continue };
            let tree = d.tree(value.instruction);
            let node = &tree.nodes[value.node];
            if node.sizes.is_none() {
                NotModelled::add(&mut notes, Rule::Unsized, Some(value.instruction));
            }
            value_of[v] = Some(values.push(PeakValue {
                instruction: value.instruction,
                shape_index: tree.index(value.node),
                phi: value.phi,
                range,
                sizes: node.sizes,
                weight: tree.nodes[Tree::root()].sizes.map(|s| s.bytes),
            }));
        }
        let steps = s.end();
        let measure = |f: fn(&NodeSizes) -> u64| -> Vec<(LiveRange, u64)> {
            values.iter().map(|v| (v.range, v.sizes.as_ref().map_or(0, f))).collect()
        };
        // Each list of (range, size) lives only while it is swept: a module's values are
        // hundreds of thousands in a large dump, and four such lists at once were a tenth
        // of what reading it holds.
        let (step, search) = sweep::peak_moment(
            &values.iter().map(|v| (v.range, v.weight.unwrap_or(0))).collect::<Vec<_>>(),
            steps,
        );
        let mut live: Vec<ValueId> = values
            .iter_enumerated()
            .filter(|(_, v)| v.range.start <= step && step <= v.range.end)
            .map(|(v, _)| v)
            .collect();
        let own = |v: ValueId| values[v].sizes.unwrap_or_default();
        live.sort_by(|&x, &y| {
            let key =
                |v: ValueId| (m.instructions[values[v].instruction].name, &values[v].shape_index);
            own(y).bytes.cmp(&own(x).bytes).then_with(|| key(x).cmp(&key(y)))
        });
        let total = live.iter().fold(NodeSizes::default(), |t, &v| t.plus(own(v)));
        let clamp = |n: u128| u64::try_from(n).unwrap_or(u64::MAX);
        let mark = |ranges: &[(LiveRange, u64)]| {
            let (step, total) = sweep::high_water(ranges, steps);
            Mark { step, instruction: s.at(step), total: clamp(total) }
        };
        let high_water = HighWater {
            bytes: mark(&measure(|s| s.bytes)),
            array_bytes: mark(&measure(|s| s.array_bytes)),
            logical_bytes: mark(&measure(|s| s.logical_bytes)),
        };
        let bounds = (!notes.is_empty()).then(|| {
            let rule = |r: Rule| notes.iter().any(|n| n.rule == r);
            let how = bounds::Unmodelled {
                not_scheduled: rule(Rule::NotScheduled),
                phis_left: rule(Rule::PhiBudget),
            };
            bounds::bounds(a, &s, &d, &values, &value_of, &high_water, how)
        });
        notes.sort_by_key(|n| n.rule);
        // The allocation follows every rule the peak follows, and those of the
        // thread-local computations' dataflow.
        let mut allocation_notes = notes.clone();
        for n in embedded_notes {
            for _ in 0..n.count.saturating_sub(n.instructions.len()) {
                NotModelled::add(&mut allocation_notes, n.rule, None);
            }
            for i in n.instructions {
                NotModelled::add(&mut allocation_notes, n.rule, Some(i));
            }
        }
        let stages = Stages {
            s: &s,
            d: &d,
            sets: &buffers,
            live: &liveness,
            value_of: &value_of,
            values: &values,
        };
        let assignment = if predict {
            Assignment::predict(a, &stages, allocation_notes)
        } else {
            Assignment::default()
        };
        Peak {
            xla: XlaPeak {
                step,
                instruction: s.at(step),
                live,
                bytes: total.bytes,
                array_bytes: total.array_bytes,
                logical_bytes: total.logical_bytes,
                search_bytes: clamp(search),
            },
            sequence: s.sequence,
            values,
            high_water,
            not_modelled: notes,
            bounds,
            assignment,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hlo::Module;

    /// A `while` whose body updates one element of its tuple: phis at the loop's values.
    const WHILE: &str = "HloModule m, is_scheduled=true

%body (p: (s32[], f32[1024])) -> (s32[], f32[1024]) {
  %p = (s32[], f32[1024]{0}) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %x = f32[1024]{0} get-tuple-element(%p), index=1
  %n = f32[1024]{0} negate(%x)
  ROOT %t = (s32[], f32[1024]{0}) tuple(%i, %n)
}

%cond (q: (s32[], f32[1024])) -> pred[] {
  %q = (s32[], f32[1024]{0}) parameter(0)
  ROOT %c = pred[] constant(true)
}

ENTRY %e (a: f32[1024]) -> (s32[], f32[1024]) {
  %a = f32[1024]{0} parameter(0)
  %z = s32[] constant(0)
  %init = (s32[], f32[1024]{0}) tuple(%z, %a)
  ROOT %w = (s32[], f32[1024]{0}) while(%init), condition=%cond, body=%body
}
";

    #[test]
    fn a_phi_simplification_stopped_at_its_budget_is_not_modelled_and_bounded() {
        let m = Module::parse(WHILE);
        let a = Analysis::new(&m);
        let whole = Peak::new(&a);
        assert!(whole.not_modelled.is_empty(), "{:?}", whole.not_modelled);
        assert_eq!(whole.bounds, None);
        // The same module with a budget of one step: the phis left are said, and the
        // values of their instructions bounded.
        super::super::phi::TEST_BUDGET.with(|b| b.set(Some(1)));
        let stopped = Peak::new(&a);
        super::super::phi::TEST_BUDGET.with(|b| b.set(None));
        let names: Vec<_> = stopped
            .not_modelled
            .iter()
            .map(|n| {
                let names: Vec<_> =
                    n.instructions.iter().map(|&i| m.instructions[i].name).collect();
                (n.rule, n.count, names)
            })
            .collect();
        // The phis of the loop's state: the body's and the condition's parameters and the
        // loop's result.
        assert_eq!(names, [(Rule::PhiBudget, 3, vec!["p", "q", "w"])]);
        // The mark the whole simplification finds lies within the bounds: the phis left
        // are values of their own in the modelled mark (4 bytes more, the loop counter's
        // phi), and count nothing in the lower bound.
        // Two f32[1024], the counter, the index tables (two pointers) of two tuples, the
        // predicate.
        assert_eq!(whole.high_water.bytes.total, 2 * 4096 + 4 + 2 * 16 + 1);
        assert_eq!(stopped.high_water.bytes.total, whole.high_water.bytes.total + 4);
        let b = stopped.bounds.expect("bounds where a rule is not modelled");
        assert!(b.bytes.lower <= whole.high_water.bytes.total);
        assert!(b.bytes.upper.unwrap() >= whole.high_water.bytes.total);
        let summary = stopped.summary(&m, &Default::default());
        assert_eq!(summary.not_modelled.len(), 1);
        assert_eq!(summary.bounds, Some(b));
    }
}
