//! The peak as rows and one object with names (what `xlayout peak` prints as TSV
//! and JSON, the predicted allocation first): the values XLA lists at its peak with a cumulative column, the high-water
//! marks, and the rules not modelled.

use serde::Serialize;

use super::super::alloc::AllocationSummary;
use super::super::id::{CompId, InstrId, ValueId};
use super::super::module::Module;
use super::notes::NotModelledRow;
use super::{Bounds, Mark, NodeSizes, Peak, PeakOptions};
use crate::Shape;

/// One value as a report row.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let rows = Peak::new(&Analysis::new(&m)).live_rows(&m, &Default::default());
/// assert_eq!((rows[0].instruction, rows[0].opcode, rows[0].start, rows[0].end), ("n", "negate", 1, 2));
/// assert_eq!((rows[1].instruction, rows[1].cumulative_bytes), ("p", 80));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PeakRow<'a> {
    /// Its defining instruction.
    pub instruction: &'a str,
    /// That instruction's computation, by number: the index of its name in the summary's
    /// [`computations`](PeakSummary::computations).
    pub computation: Option<CompId>,
    /// Its opcode.
    pub opcode: &'a str,
    /// The value's shape index (`[]` for the whole result).
    pub shape_index: Vec<u32>,
    /// The value's shape, as XLA prints it.
    pub shape: String,
    /// Whether it is a phi value of a `while` or `conditional`.
    pub phi: bool,
    /// `ByteSizeOf` (XLA's size).
    pub bytes: u64,
    /// `ArraySize` (with tiling padding).
    pub array_bytes: u64,
    /// The data at natural width.
    pub logical_bytes: u64,
    /// The running sum of `bytes` down the list.
    pub cumulative_bytes: u64,
    /// First step live.
    pub start: u32,
    /// Last step live.
    pub end: u32,
    /// The instruction's `op_name`.
    pub op_name: Option<&'a str>,
}

/// A high-water mark with the instruction named.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).summary(&m, &Default::default());
/// assert_eq!((s.high_water.bytes.step, s.high_water.bytes.instruction, s.high_water.bytes.total), (1, Some("n"), 80));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct MarkRow<'a> {
    /// The first step with it.
    pub step: u32,
    /// The instruction there.
    pub instruction: Option<&'a str>,
    /// The total.
    pub total: u64,
}

/// The three high-water marks, named.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).summary(&m, &Default::default());
/// assert_eq!((s.high_water.array_bytes.total, s.high_water.logical_bytes.total), (128, 80));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HighWaterRows<'a> {
    /// By `ByteSizeOf`.
    pub bytes: MarkRow<'a>,
    /// By `ArraySize`.
    pub array_bytes: MarkRow<'a>,
    /// By the data at natural width.
    pub logical_bytes: MarkRow<'a>,
}

/// What the peak command says of one module, with names: the object `xlayout peak --format
/// json` prints per file (its keys are a contract, see
/// [`REPORT_VERSION`](crate::hlo::REPORT_VERSION)). First what XLA:CPU allocates (the
/// headline), then XLA's live-range rule (`HloLiveRange`: its peak step and what is live
/// there), the high-water marks and the values live at that step.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak, PeakOptions};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let s = Peak::new(&Analysis::new(&m)).summary(&m, &PeakOptions { top: 1, min_bytes: 0 });
/// assert_eq!((s.live_range_peak_bytes, s.live_range_peak_array_bytes, s.live.len(), s.live_count), (80, 128, 1, 2));
/// assert_eq!(s.allocation.allocated_bytes, 80);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PeakSummary<'a> {
    /// What XLA:CPU's buffer assignment allocates, predicted, with its allocations.
    #[serde(flatten)]
    pub allocation: AllocationSummary<'a>,
    /// Steps in the flattened sequence (`HloLiveRange (max N)`).
    pub steps: usize,
    /// Values with a live range.
    pub values: usize,
    /// XLA's live-range peak step (`Live ranges at N (peak)`).
    pub live_range_peak_step: u32,
    /// The instruction at that step.
    pub live_range_peak_instruction: Option<&'a str>,
    /// Its opcode.
    pub live_range_peak_opcode: Option<&'a str>,
    /// Its computation.
    pub live_range_peak_computation: Option<&'a str>,
    /// XLA's live-range peak bytes: the `ByteSizeOf` of the values listed there (values
    /// that share memory each counted).
    pub live_range_peak_bytes: u64,
    /// Their `ArraySize` (with tiling padding).
    pub live_range_peak_array_bytes: u64,
    /// Their data at natural width.
    pub live_range_peak_logical_bytes: u64,
    /// The largest sum of XLA's search, which it never prints.
    pub search_bytes: u64,
    /// Whether every rule the live ranges need is modelled.
    pub exact: bool,
    /// The rules not modelled.
    pub not_modelled: Vec<NotModelledRow<'a>>,
    /// Where the high-water marks lie when a rule is not modelled.
    pub bounds: Option<Bounds>,
    /// The largest live totals over all steps.
    pub high_water: HighWaterRows<'a>,
    /// The values XLA lists at its live-range peak, in its order, with a cumulative column:
    /// those the [`PeakOptions`] keep.
    pub live: Vec<PeakRow<'a>>,
    /// How many values are live at that peak in all.
    pub live_count: usize,
    /// The module's computations by number (a row's `computation`), each name once.
    pub computations: Vec<&'a str>,
}

/// The subshape of `shape` at `index`.
fn subshape<'s>(shape: &'s Shape, index: &[u32]) -> Option<&'s Shape> {
    index.iter().try_fold(shape, |s, &i| match s {
        Shape::Tuple(e) => e.get(i as usize),
        _ => None,
    })
}

impl Peak {
    /// Value `v` as a row, with a running total.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %t = (f32[10]{0:T(8)}) tuple(%p)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let r = peak.row(&m, peak.values.ids().next().unwrap(), 40);
    /// assert_eq!((r.instruction, r.shape.as_str(), r.bytes, r.array_bytes), ("p", "f32[10]{0:T(8)}", 40, 64));
    /// ```
    pub fn row<'a>(&self, m: &'a Module<'_>, v: ValueId, cumulative_bytes: u64) -> PeakRow<'a> {
        let value = &self.values[v];
        let ins = &m.instructions[value.instruction];
        let shape = m
            .shape(value.instruction)
            .and_then(|s| subshape(s, &value.shape_index))
            .map_or_else(|| String::from("-"), ToString::to_string);
        let sizes = value.sizes.unwrap_or_default();
        PeakRow {
            instruction: ins.name,
            computation: ins.computation,
            opcode: ins.opcode.as_str(),
            shape_index: value.shape_index.clone(),
            shape,
            phi: value.phi,
            bytes: sizes.bytes,
            array_bytes: sizes.array_bytes,
            logical_bytes: sizes.logical_bytes,
            cumulative_bytes,
            start: value.range.start,
            end: value.range.end,
            op_name: m.metadata(value.instruction).op_name.as_deref(),
        }
    }

    /// The values XLA lists at its peak, as rows in its order: those `options` keep (the
    /// first [`PeakOptions::top`], none smaller than [`PeakOptions::min_bytes`]), with the
    /// cumulative column over the whole list. Only the values kept are made into rows.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak, PeakOptions};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[8]{0} parameter(0)\n  ROOT %n = f32[4]{0} slice(%p), slice={[0:4]}\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let rows = peak.live_rows(&m, &PeakOptions { top: 5, min_bytes: 20 });
    /// assert_eq!((rows.len(), rows[0].instruction, rows[0].cumulative_bytes), (1, "p", 32));
    /// ```
    pub fn live_rows<'a>(&self, m: &'a Module<'_>, options: &PeakOptions) -> Vec<PeakRow<'a>> {
        let mut total = 0u64;
        let mut rows = Vec::new();
        for &v in &self.xla.live {
            let bytes = self.values[v].sizes.map_or(0, |s: NodeSizes| s.bytes);
            total = total.saturating_add(bytes);
            // The list is largest first: nothing after a value below the floor is kept.
            if bytes < options.min_bytes || rows.len() >= options.top {
                break;
            }
            rows.push(self.row(m, v, total));
        }
        rows
    }

    /// The whole peak with names; `options` say which values its live list keeps.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[8]{0} parameter(0)\n  ROOT %n = f32[8]{0} negate(%p)\n}\n");
    /// let peak = Peak::new(&Analysis::new(&m));
    /// let s = peak.summary(&m, &Default::default());
    /// assert_eq!((s.live_range_peak_step, s.live_range_peak_instruction), (1, Some("n")));
    /// assert_eq!((s.live_range_peak_bytes, s.live_count, s.allocation.allocated_bytes), (64, 2, 64));
    /// assert_eq!(s.live[1].cumulative_bytes, 64);
    /// ```
    pub fn summary<'a>(&self, m: &'a Module<'_>, options: &PeakOptions) -> PeakSummary<'a> {
        let name = |i: Option<InstrId>| i.map(|i| m.instructions[i].name);
        let mark =
            |k: &Mark| MarkRow { step: k.step, instruction: name(k.instruction), total: k.total };
        let peak = self.xla.instruction.map(|i| &m.instructions[i]);
        PeakSummary {
            allocation: self.assignment.summary(m, true),
            steps: self.sequence.len(),
            values: self.values.len(),
            live_range_peak_step: self.xla.step,
            live_range_peak_instruction: peak.map(|p| p.name),
            live_range_peak_opcode: peak.map(|p| p.opcode.as_str()),
            live_range_peak_computation: peak
                .and_then(|p| p.computation)
                .map(|c| m.computations[c].name),
            live_range_peak_bytes: self.xla.bytes,
            live_range_peak_array_bytes: self.xla.array_bytes,
            live_range_peak_logical_bytes: self.xla.logical_bytes,
            search_bytes: self.xla.search_bytes,
            exact: self.exact(),
            not_modelled: self.not_modelled.iter().map(|n| n.row(m)).collect(),
            bounds: self.bounds,
            high_water: HighWaterRows {
                bytes: mark(&self.high_water.bytes),
                array_bytes: mark(&self.high_water.array_bytes),
                logical_bytes: mark(&self.high_water.logical_bytes),
            },
            live: self.live_rows(m, options),
            live_count: self.xla.live.len(),
            computations: m.computations.iter().map(|c| c.name).collect(),
        }
    }
}
