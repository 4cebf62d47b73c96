//! A module's report with its peak's headline: the object `xlayout hlo --format json`
//! writes for each file, and `xlayout.hlo` returns in Python.

use serde::Serialize;

use super::peak::Peak;
use super::report::Report;

/// A module's [`Report`] and, when the module is scheduled, its peak's headline figures.
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
/// // Both f32[10] live at the negate: 40 bytes each by XLA's `ByteSizeOf`, which the peak
/// // counts (the tiles' padding is in the report's `array_bytes`).
/// assert_eq!((json["peak_step"].as_u64(), json["peak_bytes"].as_u64()), (Some(1), Some(80)));
/// assert_eq!(json["module"], "m");
/// ```
#[derive(Serialize)]
pub struct ReportWithPeak<'a, 'r, 'm, 't> {
    /// The report, its fields inline.
    #[serde(flatten)]
    pub report: &'a Report<'r, 'm, 't>,
    /// XLA's peak step (as `xlayout peak` finds it), when the module is scheduled.
    pub peak_step: Option<u32>,
    /// XLA's peak bytes (as `xlayout peak` finds them), when the module is scheduled.
    pub peak_bytes: Option<u64>,
    /// Whether every rule the peak needs is modelled.
    pub peak_exact: Option<bool>,
}

impl<'a, 'r, 'm, 't> ReportWithPeak<'a, 'r, 'm, 't> {
    /// The report with `peak`'s headline, or with none (a module without a schedule).
    ///
    /// ```
    /// use xlayout::hlo::{Analysis, Module, Report, ReportOptions, ReportWithPeak};
    /// let m = Module::parse("HloModule m\n\nENTRY %e {\n  ROOT %p = f32[10] parameter(0)\n}\n");
    /// let analysis = Analysis::new(&m);
    /// let report = Report::new(&analysis, ReportOptions::default());
    /// assert_eq!(ReportWithPeak::new(&report, None).peak_bytes, None);
    /// ```
    pub fn new(report: &'a Report<'r, 'm, 't>, peak: Option<&Peak>) -> Self {
        ReportWithPeak {
            report,
            peak_step: peak.map(|p| p.xla.step),
            peak_bytes: peak.map(|p| p.xla.bytes),
            peak_exact: peak.map(Peak::exact),
        }
    }
}
