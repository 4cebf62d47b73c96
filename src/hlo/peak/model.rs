//! The peak's model: what [`Peak::new`](super::Peak::new) finds, as plain data (values, marks,
//! bounds, the rules not modelled), and what a report lists of it ([`PeakOptions`]).

use serde::Serialize;

use super::super::id::{IndexVec, InstrId, ValueId};
use super::liveness::LiveRange;
use super::tree::NodeSizes;

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

/// What a report lists of the values live at XLA's peak: the command's `--top` and
/// `--min-bytes`, the HTML page and Python take the same options, so all three list the
/// same values.
///
/// ```
/// use xlayout::hlo::PeakOptions;
/// let o = PeakOptions::default();
/// assert_eq!((o.top, o.min_bytes), (20, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PeakOptions {
    /// At most this many values, the largest first.
    pub top: usize,
    /// None smaller than this many bytes (XLA's `ByteSizeOf`).
    pub min_bytes: u64,
}

impl Default for PeakOptions {
    /// The command's defaults: the 20 largest values, whatever their size.
    fn default() -> Self {
        PeakOptions { top: 20, min_bytes: 0 }
    }
}
