//! The peak's model: what [`Peak::new`](super::Peak::new) finds, as plain data (values, marks,
//! bounds, the rules not modelled), and what a report lists of it ([`PeakOptions`]).

use serde::Serialize;

use super::super::alloc::Assignment;
use super::super::id::{IndexVec, InstrId, ValueId};
use super::liveness::LiveRange;
use super::notes::{Bound, NotModelled};
use super::tree::NodeSizes;

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

/// The live ranges of a module's values and its peak, by XLA's rules: the schedule flattened
/// as `HloLiveRange::FlattenSchedule` numbers it; the values of `HloDataflowAnalysis` (phi
/// values where a `while` or `conditional` merges); each value live from its definition to
/// its last use (entry parameters from the start, a root's values to its computation's
/// end), the values of one buffer chained as `NormalizeAliasedBuffers` does; and the peak
/// step as `ComputePeakMemoryMoment` finds it, beside the true high-water mark. Where a
/// module needs a rule this model lacks, [`Peak::not_modelled`] says which and
/// [`Peak::bounds`] bounds the high-water mark.
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
    /// What XLA:CPU's buffer assignment allocates for the module: the figure a program
    /// needs, where the peak is XLA's live-range rule.
    pub assignment: Assignment,
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
