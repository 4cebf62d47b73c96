//! A module's report with its memory headline: the object `xlayout hlo --format json`
//! writes for each file, and `xlayout.hlo` returns in Python.

use serde::Serialize;

use super::peak::{Bound, Peak};
use super::report::Report;

/// A module's [`Report`] and, when the module is scheduled, what XLA:CPU allocates for it
/// (the headline) and XLA's live-range peak.
///
/// One definition for the command's JSON and the Python package's, so the two cannot drift.
///
/// ```
/// use xlayout::hlo::{Analysis, Module, Peak, Report, ReportOptions, ReportWithPeak};
/// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0:T(8)} parameter(0)\n  ROOT %n = f32[10]{0:T(8)} negate(%p)\n}\n");
/// let analysis = Analysis::new(&m);
/// let report = Report::new(&analysis, ReportOptions::default());
/// let peak = Peak::new(&analysis);
/// let json = serde_json::to_value(ReportWithPeak::new(&report, Some(&peak))).unwrap();
/// // The argument and the result, 40 bytes each by XLA:CPU's sizes (the tiles' padding is
/// // in the report's `array_bytes`); both live at the negate.
/// assert_eq!((json["allocated_bytes"].as_u64(), json["live_range_peak_bytes"].as_u64()), (Some(80), Some(80)));
/// assert_eq!(json["module"], "m");
/// ```
#[derive(Serialize)]
pub struct ReportWithPeak<'a, 't> {
    /// The report, its fields inline.
    #[serde(flatten)]
    pub report: &'a Report<'a, 't>,
    /// What XLA:CPU's buffer assignment allocates (arguments + outputs − aliased +
    /// temporaries), predicted from the module, when it is scheduled.
    pub allocated_bytes: Option<u64>,
    /// Its arguments.
    pub argument_bytes: Option<u64>,
    /// Its outputs.
    pub output_bytes: Option<u64>,
    /// Its parameters an output is written over.
    pub alias_bytes: Option<u64>,
    /// Its temporaries.
    pub temp_bytes: Option<u64>,
    /// Whether every rule the prediction needs is modelled.
    pub allocation_exact: Option<bool>,
    /// Where `allocated_bytes` lies when not.
    pub allocation_bounds: Option<Bound>,
    /// XLA's live-range peak step (`HloLiveRange`, as `xlayout peak` finds it).
    pub live_range_peak_step: Option<u32>,
    /// XLA's live-range peak bytes.
    pub live_range_peak_bytes: Option<u64>,
    /// Whether every rule the live ranges need is modelled.
    pub live_range_peak_exact: Option<bool>,
}

impl<'a, 't> ReportWithPeak<'a, 't> {
    /// The report with `peak`'s headline, or with none (a module without a schedule).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions, ReportWithPeak};
    /// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[10] parameter(0)\n}\n");
    /// let analysis = Analysis::new(&m);
    /// let report = Report::new(&analysis, ReportOptions::default());
    /// let r = ReportWithPeak::new(&report, None);
    /// assert_eq!((r.allocated_bytes, r.live_range_peak_bytes), (None, None));
    /// ```
    pub fn new(report: &'a Report<'a, 't>, peak: Option<&Peak>) -> Self {
        let a = peak.map(|p| &p.assignment);
        ReportWithPeak {
            report,
            allocated_bytes: a.map(|a| a.allocated_bytes),
            argument_bytes: a.map(|a| a.argument_bytes),
            output_bytes: a.map(|a| a.output_bytes),
            alias_bytes: a.map(|a| a.alias_bytes),
            temp_bytes: a.map(|a| a.temp_bytes),
            allocation_exact: a.map(|a| a.exact()),
            allocation_bounds: a.and_then(|a| a.bounds),
            live_range_peak_step: peak.map(|p| p.xla.step),
            live_range_peak_bytes: peak.map(|p| p.xla.bytes),
            live_range_peak_exact: peak.map(Peak::exact),
        }
    }
}

impl ReportWithPeak<'_, '_> {
    /// What orders a dump's modules largest first: what XLA:CPU allocates for the module
    /// (`allocated_bytes`) when it is scheduled, the sum of every buffer it owns when not.
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Peak, Report, ReportOptions, ReportWithPeak};
    /// let m = Module::parse("HloModule m, is_scheduled=true\n\nENTRY %e {\n  %p = f32[10]{0} parameter(0)\n  ROOT %n = f32[10]{0} negate(%p)\n}\n");
    /// let a = Analysis::new(&m);
    /// let r = Report::new(&a, ReportOptions::default());
    /// assert_eq!(ReportWithPeak::new(&r, Some(&Peak::new(&a))).size_bytes(), 80); // allocated
    /// assert_eq!(ReportWithPeak::new(&r, None).size_bytes(), 80); // owned: the two buffers
    /// ```
    pub fn size_bytes(&self) -> u64 {
        self.allocated_bytes.unwrap_or(self.report.totals.owned.sizes.array_bytes)
    }
}
