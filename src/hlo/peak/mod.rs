//! The peak memory of a scheduled module, by XLA's own rules.
//!
//! XLA's buffer assigner measures liveness with `HloLiveRange` over the values of
//! `HloDataflowAnalysis`; [`Peak::new`] follows the same steps on module text:
//!
//! 1. [`schedule`]: the flattened instruction sequence (a `while`'s condition and body,
//!    a `call`'s computation and a `conditional`'s branches just before the instruction),
//!    numbered as `HloLiveRange::FlattenSchedule` numbers it;
//! 2. [`dataflow`]: the values (what defines each position; `get-tuple-element`, `tuple`,
//!    `bitcast`, `call` and called computations' parameters define none; `while` and
//!    `conditional` merge, as phi values where several values meet);
//! 3. [`liveness`]: each value's live range (entry parameters from the start, a root's
//!    values to its computation's end, every value to its last use; a `while`'s init value
//!    to the start of its body), then the values of one buffer ([`aliasing`]: while loops,
//!    conditionals, in-place updates, `input_output_alias`) chained as
//!    `NormalizeAliasedBuffers` does;
//! 4. [`sweep`]: XLA's peak step (`ComputePeakMemoryMoment`: values sized by their
//!    defining instruction's whole shape, starts counted before the previous step's ends)
//!    and what XLA prints there (the values with `start <= step <= end`, sized by their own
//!    shape), and the true high-water mark of the live totals, with padding and without.
//!
//! Where a module needs a rule this model does not have, [`Peak::not_modelled`] says which
//! and for which instructions, and [`Peak::bounds`] bounds the high-water mark.
//!
//! ```
//! use xlayout::hlo::{Analysis, Module, Peak};
//! let text = "HloModule m, is_scheduled=true
//!
//! ENTRY %main (p: f32[1024]) -> f32[1024] {
//!   %p = f32[1024]{0} parameter(0)
//!   %a = f32[1024]{0} exponential(%p)
//!   %b = f32[1024]{0} negate(%a)
//!   ROOT %c = f32[1024]{0} add(%b, %p)
//! }
//! ";
//! let m = Module::parse(text);
//! let a = Analysis::new(&m);
//! let peak = Peak::new(&a);
//! // XLA's search still counts `a` (last used at step 2) at step 3, so its peak is the
//! // ROOT, step 3, where it prints the values live there: p, b and c.
//! assert_eq!((peak.xla.step, peak.xla.bytes, peak.xla.search_bytes), (3, 3 * 4096, 4 * 4096));
//! assert_eq!(m.instructions[peak.xla.instruction.unwrap()].name, "c");
//! // The first step with the largest live total is 2 (p, a and b).
//! assert_eq!((peak.high_water.bytes.step, peak.high_water.bytes.total), (2, 3 * 4096));
//! assert!(peak.not_modelled.is_empty());
//! ```

mod aliasing;
mod bounds;
mod dataflow;
mod liveness;
mod phi;
mod report;
mod schedule;
mod sweep;
mod timeline;
pub(crate) mod tree;

use serde::Serialize;

use super::buffer::Analysis;
use super::id::{IndexVec, InstrId, ValueId};
use dataflow::{Dataflow, FlowId};
pub use liveness::LiveRange;
pub use report::{HighWaterRows, MarkRow, NotModelledRow, PeakRow, PeakSummary};
use schedule::Schedule;
pub use timeline::{PeakSplit, StepLive};
pub use tree::NodeSizes;
use tree::Tree;

/// A rule of XLA's that this model does not follow, and so bounds instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The module is not marked `is_scheduled=true`: its text order is taken as the
    /// schedule, which XLA's scheduler would have chosen differently.
    NotScheduled,
    /// No `ENTRY` computation: nothing to flatten.
    NoEntry,
    /// Asynchronous operations (`async-start`, in-place `collective-permute-start`): XLA
    /// extends live ranges into their asynchronous context.
    Asynchronous,
    /// A computation run by several instructions (XLA flattens the call graph first).
    CalledSeveralTimes,
    /// An operand, tuple index or shape that does not match (a malformed or truncated
    /// module): the value there is not followed.
    Unfollowed,
    /// A value with no size (an unread shape, an unbounded `?` dimension).
    Unsized,
    /// XLA's phi simplification did not finish within its budget (a hostile module):
    /// phis left are counted as values of their own.
    PhiBudget,
}

impl Rule {
    /// What the rule is, in words.
    ///
    /// ```
    /// assert!(xlayout::hlo::Rule::Asynchronous.describe().contains("async"));
    /// ```
    pub fn describe(self) -> &'static str {
        match self {
            Rule::NotScheduled => "module not marked is_scheduled=true: its text order is taken as the schedule",
            Rule::NoEntry => "no ENTRY computation: there is no schedule to flatten",
            Rule::Asynchronous => "asynchronous operations (async-start/update/done, in-place collective-permute-start): their asynchronous live ranges are not modelled",
            Rule::CalledSeveralTimes => "a computation run by several instructions: XLA flattens the call graph first",
            Rule::Unfollowed => "an operand, tuple index or shape that does not match: the value is not followed",
            Rule::Unsized => "a value with no size (unread shape or unbounded dimension)",
            Rule::PhiBudget => "the phi simplification of XLA's dataflow stopped at its budget",
        }
    }
}

/// Where a rule is not modelled: the rule, how many instructions need it, and the first
/// few of them.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak, Rule};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
/// let n = &Peak::new(&Analysis::new(&m)).not_modelled[0];
/// assert_eq!((n.rule, n.count, n.instructions.len()), (Rule::NotScheduled, 1, 0));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NotModelled {
    /// The rule.
    pub rule: Rule,
    /// How many instructions need it.
    pub count: usize,
    /// The first [`NotModelled::EXAMPLES`] of them.
    pub instructions: Vec<InstrId>,
}

impl NotModelled {
    /// How many instructions are kept as examples.
    pub const EXAMPLES: usize = 5;

    /// Counts instruction `i` (or, with `None`, the whole module) under `rule`.
    pub(crate) fn add(notes: &mut Vec<NotModelled>, rule: Rule, i: Option<InstrId>) {
        let n = match notes.iter_mut().find(|n| n.rule == rule) {
            Some(n) => n,
            None => {
                notes.push(NotModelled { rule, count: 0, instructions: Vec::new() });
                notes.last_mut().expect("just pushed")
            }
        };
        n.count += 1;
        if let Some(i) = i.filter(|_| n.instructions.len() < Self::EXAMPLES) {
            n.instructions.push(i);
        }
    }
}

/// One value with a live range.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// let n = &peak.values.raw()[1];
/// assert_eq!((m.instructions[n.instruction].name, n.range.start, n.range.end), ("n", 1, 2));
/// assert_eq!((n.sizes.unwrap().bytes, n.sizes.unwrap().array_bytes, n.weight), (40, 64, Some(40)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PeakValue {
    /// Its defining instruction.
    pub instruction: InstrId,
    /// Its shape index in that instruction's result.
    pub shape_index: Vec<u32>,
    /// Whether it is a phi value (a `while` or `conditional` merging values).
    pub phi: bool,
    /// Its live range.
    pub range: LiveRange,
    /// Its own sizes (`None`: no size).
    pub sizes: Option<NodeSizes>,
    /// `ByteSizeOf` of its defining instruction's whole shape: what XLA's peak search
    /// weighs it by.
    pub weight: Option<u64>,
}

/// A largest total and where it is.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let mark = Peak::new(&Analysis::new(&m)).high_water.array_bytes;
/// assert_eq!((mark.step, mark.instruction, mark.total), (1, m.instruction_id("n"), 128));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Mark {
    /// The first step with it.
    pub step: u32,
    /// The instruction at that step.
    pub instruction: Option<InstrId>,
    /// The total.
    pub total: u64,
}

/// XLA's peak, as `HloLiveRange::ToString` prints it.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let x = Peak::new(&Analysis::new(&m)).xla;
/// assert_eq!((x.step, x.live.len(), x.bytes, x.array_bytes, x.logical_bytes), (1, 2, 80, 128, 80));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct XlaPeak {
    /// `ComputePeakMemoryMoment`: the step of `Live ranges at N (peak)`.
    pub step: u32,
    /// The instruction at that step.
    pub instruction: Option<InstrId>,
    /// The values printed there (`start <= step <= end`), in XLA's order: bytes
    /// descending, then name and shape index.
    pub live: Vec<ValueId>,
    /// Their own `ByteSizeOf` summed: XLA's peak bytes (the last `cumulative`).
    pub bytes: u64,
    /// Their `ArraySize` summed: with tiling padding.
    pub array_bytes: u64,
    /// Their data at natural width summed.
    pub logical_bytes: u64,
    /// The largest sum of XLA's search (values weighed by their instruction's shape,
    /// counted to `end + 1`), which XLA never prints.
    pub search_bytes: u64,
}

/// The largest live totals over all steps (`start <= step <= end`, own sizes).
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let h = Peak::new(&Analysis::new(&m)).high_water;
/// assert_eq!((h.bytes.total, h.array_bytes.total, h.logical_bytes.total), (80, 128, 80));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HighWater {
    /// By `ByteSizeOf` (XLA's sizes).
    pub bytes: Mark,
    /// By `ArraySize` (with tiling padding).
    pub array_bytes: Mark,
    /// By the data at natural width.
    pub logical_bytes: Mark,
}

/// The range a high-water mark lies in when a rule is not modelled. With the module's
/// schedule, `lower` counts what the model follows (no size as 0) and `upper` also keeps
/// every uncertain value live from its start to the end; without one (not
/// `is_scheduled=true`), they hold for any order: every value at once, and what is live
/// together at one instruction's step in every order. `upper` is `None` (unbounded) when a
/// value has no size.
///
/// ```
/// use xlayout::hlo::{Analysis, Bound, Module, Peak};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
/// let b = Peak::new(&Analysis::new(&m)).bounds.unwrap();
/// assert_eq!(b.bytes, Bound { lower: 8, upper: Some(8) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bound {
    /// At least this.
    pub lower: u64,
    /// At most this.
    pub upper: Option<u64>,
}

/// [`Bound`]s of the three high-water marks.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0:T(4)} parameter(0)\n}\n");
/// let b = Peak::new(&Analysis::new(&m)).bounds.unwrap();
/// assert_eq!((b.bytes.lower, b.array_bytes.lower, b.logical_bytes.upper), (8, 16, Some(8)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Bounds {
    /// Of [`HighWater::bytes`].
    pub bytes: Bound,
    /// Of [`HighWater::array_bytes`].
    pub array_bytes: Bound,
    /// Of [`HighWater::logical_bytes`].
    pub logical_bytes: Bound,
}

/// The live ranges of a module's values and its peak (the rules are in the documentation
/// of the `hlo::peak` module's source, which is private).
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let peak = Peak::new(&Analysis::new(&m));
/// assert_eq!((peak.sequence.len(), peak.values.len(), peak.exact()), (2, 2, true));
/// ```
#[derive(Clone, Debug, Default, Serialize)]
pub struct Peak {
    /// The instruction at each step of the flattened sequence.
    pub sequence: Vec<InstrId>,
    /// Every value with a live range, in an order close to XLA's value ids.
    pub values: IndexVec<ValueId, PeakValue>,
    /// XLA's peak.
    pub xla: XlaPeak,
    /// The true high-water marks.
    pub high_water: HighWater,
    /// Rules this module needs that the model does not follow; empty when every figure
    /// is XLA's.
    pub not_modelled: Vec<NotModelled>,
    /// When `not_modelled` is not empty: where the high-water marks lie.
    pub bounds: Option<Bounds>,
}

impl Peak {
    /// The live ranges and peak of the module `a` analysed. Linear in the size of the
    /// module (positions, operands, values and steps), but for sorting the peak's list.
    pub fn new(a: &Analysis<'_, '_>) -> Peak {
        let m = a.module;
        let mut notes = Vec::new();
        let Some(entry) = m.entry else {
            NotModelled::add(&mut notes, Rule::NoEntry, None);
            return Peak { not_modelled: notes, ..Peak::default() };
        };
        if !m.is_scheduled {
            NotModelled::add(&mut notes, Rule::NotScheduled, None);
        }
        let s = Schedule::new(m, entry);
        let d = Dataflow::new(a, &s, &mut notes);
        let ranges = liveness::live_ranges(a, &s, &d);
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
        }
    }

    /// Whether every figure follows XLA's rules (no rule was missing).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// assert!(!peak.exact()); // not marked is_scheduled=true
    /// ```
    pub fn exact(&self) -> bool {
        self.not_modelled.is_empty()
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
        phi::TEST_BUDGET.with(|b| b.set(Some(1)));
        let stopped = Peak::new(&a);
        phi::TEST_BUDGET.with(|b| b.set(None));
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
        let summary = stopped.summary(&m, 20);
        assert_eq!(summary.not_modelled.len(), 1);
        assert_eq!(summary.bounds, Some(b));
    }
}
