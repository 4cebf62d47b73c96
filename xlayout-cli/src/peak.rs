//! `xlayout peak`: [`xlayout::hlo::Peak`] for each file, with XLA's own live ranges and
//! buffer assignment beside it when there are some, held to `--budget` and
//! `--max-expansion`, printed as a table for people, as TSV, CSV or JSON for scripts, and
//! as the HTML report. No analysis happens here: the loop over the modules is
//! [`ModuleFiles::each_loaded`]'s; this file says what `peak` prints of each.

use std::fmt::Write as _;

use serde::Serialize;
use xlayout::hlo::rows::PeakRow;
use xlayout::hlo::{Module, Peak, PeakOptions, PeakSummary, Report, ReportOptions, REPORT_VERSION};

use super::args::Peak as PeakArgs;
use super::dump::{self, XlaAssignment, XlaLiveRange};
use super::io::{Failure, Out, Stdin};
use super::load::{ModuleFiles, Want};
use super::output::{
    aligned, both, chosen_format, count, human, names, row_table, warn, ByName, Column, Emitter,
    Fields, FileReport, Head, Rows,
};
use super::Status;

/// The TSV and CSV header: `file`, `live_range_peak_step`, then the keys of a JSON value
/// row ([`PeakRow`]); one row per value XLA lists at its live-range peak, in its order (a
/// contract with scripts, like the report's columns).
pub const COLUMNS: &[&str] = &[
    "file",
    "live_range_peak_step",
    "instruction",
    "computation",
    "opcode",
    "shape_index",
    "shape",
    "phi",
    "bytes",
    "array_bytes",
    "logical_bytes",
    "cumulative_bytes",
    "start",
    "end",
    "op_name",
];

/// A TSV row: the file and its live-range peak step, then a value.
#[derive(Serialize)]
struct FileRow<'a> {
    file: &'a str,
    live_range_peak_step: u32,
    #[serde(flatten)]
    row: &'a PeakRow<'a>,
}

/// One file's peak: in JSON its name, the module, the peak's summary and XLA's own
/// figures; a table; a row per value listed at the live-range peak.
#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    module: Option<&'a str>,
    scheduled: bool,
    #[serde(flatten)]
    peak: PeakSummary<'a>,
    xla_live_range: Option<&'a XlaLiveRange>,
    xla_buffer_assignment: Option<&'a XlaAssignment>,
    /// The prediction the summary names, for the table.
    #[serde(skip)]
    assignment: &'a xlayout::hlo::Assignment,
    #[serde(skip)]
    args: &'a PeakArgs,
}

impl PeakArgs {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let files = ModuleFiles::list(&self.modules, self.gates.buffer_assignment.as_deref())?;
        let shown = &self.shown;
        dump::with_page(shown.html.as_deref(), shown.format, out, |out, page| {
            let head = Head { version: REPORT_VERSION, list: "files", columns: COLUMNS };
            let mut emit = Emitter::begin(chosen_format(shown.format), head, out)?;
            let want = Want { every_peak: true, live_ranges: true };
            let status = files.each_loaded(&self.gates, want, stdin, |m| {
                // Every module has a peak here (`every_peak`).
                let Some(peak) = m.peak else { return Ok(0) };
                let status = self.expansions(m.name, m.module, peak);
                if let Some(page) = page.as_mut() {
                    let options = ReportOptions { top: shown.top, ..ReportOptions::default() };
                    m.add_to(page, &Report::new(m.analysis, options), self.options());
                }
                emit.file(&FileJson {
                    file: m.name,
                    module: m.module.name,
                    scheduled: m.module.is_scheduled,
                    peak: peak.summary(m.module, &self.options()),
                    xla_live_range: m.live_range,
                    xla_buffer_assignment: m.assignment,
                    assignment: &peak.assignment,
                    args: self,
                })?;
                Ok(status)
            })?;
            emit.end()?;
            Ok(status)
        })
    }

    /// What `--top` and `--min-bytes` keep of the list at the peak, for the rows, the
    /// JSON and the page alike.
    fn options(&self) -> PeakOptions {
        PeakOptions { top: self.shown.top, min_bytes: self.shown.min_bytes }
    }

    /// Reports the values live at the peak that take more than `--max-expansion` times
    /// their data with tiling padding; 1 if any.
    fn expansions(&self, name: &str, m: &Module<'_>, peak: &Peak) -> Status {
        let Some(x) = &self.gates.max_expansion else { return 0 };
        let mut status = 0;
        for &v in &peak.xla.live {
            let value = &peak.values[v];
            let Some(s) = value.sizes else { continue };
            let over = u128::from(s.array_bytes).saturating_mul(x.den)
                > u128::from(s.logical_bytes).saturating_mul(x.num);
            if !over {
                continue;
            }
            status = 1;
            let ins = &m.instructions[value.instruction];
            let e = xlayout::hlo::Ratio::new(s.array_bytes, s.logical_bytes)
                .map_or_else(|| String::from("unbounded"), |e| e.to_string());
            warn(format_args!(
                "{name}:{}: {}{} live at the peak takes {e}x its data ({} for {}), more than \
                 --max-expansion {}",
                ins.line,
                ins.name,
                index_text(&value.shape_index),
                s.array_bytes,
                s.logical_bytes,
                x.text
            ));
        }
        status
    }

    fn size(&self, n: u64) -> String {
        human(self.shown.bytes, n)
    }

    /// The table of one file.
    fn table(&self, f: &FileJson<'_>) -> Result<String, Failure> {
        let p = &f.peak;
        let b = |n: u64| self.size(n);
        let mut s = String::new();
        let module = match f.module {
            Some(m) => {
                format!("module {m}{}", if f.scheduled { ", scheduled" } else { ", not scheduled" })
            }
            None => String::from("no HloModule line"),
        };
        let _ = writeln!(
            s,
            "{}: {module}; {}, {} with a live range",
            f.file,
            count(p.steps, "step"),
            count(p.values, "value")
        );
        let at = |step: u32, name: Option<&str>| match name {
            Some(n) => format!("step {step} ({n})"),
            None => format!("step {step}"),
        };
        s += &dump::allocation_line(f.assignment, self.shown.bytes);
        let t = &f.assignment.temp_peak;
        if f.assignment.temp_bytes > 0 {
            // What the page's timeline marks: the allocation is this peak plus what XLA's
            // heap loses packing buffers of different lifetimes.
            let _ = writeln!(
                s,
                "temporaries: at most {} live at once, first at step {}, in their allocation of {}",
                both(self.shown.bytes, t.bytes),
                t.step,
                b(f.assignment.temp_bytes)
            );
        }
        let where_ = match (
            p.live_range_peak_instruction,
            p.live_range_peak_opcode,
            p.live_range_peak_computation,
        ) {
            (Some(i), Some(o), Some(c)) => {
                format!("step {}, {i} ({o} in {c})", p.live_range_peak_step)
            }
            _ => format!("step {}", p.live_range_peak_step),
        };
        let _ = writeln!(
            s,
            "live-range peak (XLA's HloLiveRange rule: values sharing memory each counted): {where_}: {} live; {} with padding, {} of data",
            both(self.shown.bytes, p.live_range_peak_bytes),
            b(p.live_range_peak_array_bytes),
            b(p.live_range_peak_logical_bytes)
        );
        let hw = &p.high_water;
        let _ = writeln!(
            s,
            "largest live total: {} at {}; with padding {} at {}; data {} at {}",
            both(self.shown.bytes, hw.bytes.total),
            at(hw.bytes.step, hw.bytes.instruction),
            b(hw.array_bytes.total),
            at(hw.array_bytes.step, hw.array_bytes.instruction),
            b(hw.logical_bytes.total),
            at(hw.logical_bytes.step, hw.logical_bytes.instruction),
        );
        if let Some(x) = &f.xla_live_range {
            let theirs = match (x.peak_step, x.peak_bytes) {
                (Some(step), Some(bytes)) => format!("peak at step {step}, {bytes} bytes"),
                _ => String::from("no peak in it"),
            };
            let verdict = if x.agrees { "the same" } else { "NOT the same as the project's" };
            let _ = writeln!(s, "XLA's live ranges ({}): {theirs}: {verdict}", x.file);
        }
        if let Some(a) = &f.xla_buffer_assignment {
            s += &dump::xla_assignment_line(a, self.shown.bytes);
            let _ = write!(s, "  ");
            if a.size_differences.is_empty() {
                let _ = writeln!(s, "all {} values have the project's sizes", a.values);
            } else {
                let _ = writeln!(
                    s,
                    "{} of {} values sized differently:",
                    a.size_differences.len(),
                    a.values
                );
                let mut rows = vec![[
                    "value",
                    "allocation",
                    "XLA",
                    "ArraySize here",
                    "ByteSizeOf here",
                    "shape",
                ]
                .map(String::from)
                .to_vec()];
                for d in &a.size_differences {
                    let v = &d.value;
                    let name = format!("{}{}", v.instruction, index_text(&v.shape_index));
                    let here =
                        |n: Option<u64>| n.map_or_else(|| String::from("-"), |n| n.to_string());
                    rows.push(vec![
                        name,
                        d.allocation.to_string(),
                        v.size.to_string(),
                        here(d.array_bytes),
                        here(d.bytes),
                        v.shape.clone(),
                    ]);
                }
                s += &aligned(&rows, "  ");
            }
        }
        if !p.exact {
            s += "not modelled (these figures follow the rules that are; see the bounds):\n";
            for n in &p.not_modelled {
                let names = if n.instructions.is_empty() {
                    String::new()
                } else {
                    format!(
                        ": {}{}",
                        n.instructions.join(", "),
                        if n.count > n.instructions.len() { ", ..." } else { "" }
                    )
                };
                let _ =
                    writeln!(s, "  {} ({}){names}", n.description, count(n.count, "instruction"));
            }
            if let Some(bounds) = &p.bounds {
                let range = |x: &xlayout::hlo::Bound| match x.upper {
                    Some(u) => format!("between {} and {}", b(x.lower), b(u)),
                    None => {
                        format!("at least {} (no upper bound: a value has no size)", b(x.lower))
                    }
                };
                let _ = writeln!(
                    s,
                    "  the largest live total lies {}; with padding {}; data {}",
                    range(&bounds.bytes),
                    range(&bounds.array_bytes),
                    range(&bounds.logical_bytes)
                );
            }
        }
        if !p.live.is_empty() {
            let shown = if p.live.len() < p.live_count {
                format!("the {} largest of {}", p.live.len(), p.live_count)
            } else {
                count(p.live_count, "value")
            };
            let _ = writeln!(
                s,
                "\nlive at step {} (XLA's live-range list, largest first: {shown}):",
                p.live_range_peak_step
            );
            let value = |f: &Fields| {
                let index = f.text("shape_index");
                let whole = f.text("shape").starts_with('(');
                match (index.as_str(), whole) {
                    // A tuple's own value (its index table), apart from its elements.
                    ("", true) => format!("{}{{}}", f.text("instruction")),
                    ("", false) => f.text("instruction"),
                    (i, _) => format!("{}{{{i}}}", f.text("instruction")),
                }
            };
            let live = |f: &Fields| format!("{}-{}", f.text("start"), f.text("end"));
            let computations = names(&p.computations);
            let computation = |f: &Fields| {
                let k = f.number("computation").and_then(|k| usize::try_from(k).ok());
                k.and_then(&computations).unwrap_or_else(|| String::from("-"))
            };
            let columns = [
                &Column::Bytes("bytes", "bytes"),
                &Column::Bytes("cumulative", "cumulative_bytes"),
                &Column::Bytes("allocated", "array_bytes"),
                &Column::Bytes("data", "logical_bytes"),
                &Column::Made("value", &value),
                &Column::Field("opcode", "opcode"),
                &Column::Made("computation", &computation),
                &Column::Field("shape", "shape"),
                &Column::Made("live", &live),
                &Column::Field("op_name", "op_name"),
            ];
            s += &row_table(&p.live, &columns, self.shown.bytes)?;
        }
        Ok(s)
    }
}

impl FileReport for FileJson<'_> {
    fn table(&self) -> Result<String, Failure> {
        self.args.table(self)
    }

    fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure> {
        let (file, live_range_peak_step) = (self.file, self.peak.live_range_peak_step);
        let live = self.peak.live.iter().map(|row| FileRow { file, live_range_peak_step, row });
        rows.all(live, &[ByName { column: "computation", name: &names(&self.peak.computations) }])
    }
}

/// `{1,0}` after a value's instruction for a tuple element; nothing for a whole result.
fn index_text<N: ToString>(index: &[N]) -> String {
    if index.is_empty() {
        return String::new();
    }
    let index: Vec<String> = index.iter().map(ToString::to_string).collect();
    format!("{{{}}}", index.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xlayout::hlo::Analysis;

    #[test]
    fn columns_are_the_rows_keys() {
        let m = Module::parse(
            "HloModule m, is_scheduled=true\n\nENTRY %e {\n  ROOT %p = f32[2]{0} parameter(0)\n}\n",
        );
        let peak = Peak::new(&Analysis::new(&m));
        let rows = peak.live_rows(&m, &PeakOptions { top: 1, min_bytes: 0 });
        let row = FileRow { file: "f", live_range_peak_step: 0, row: &rows[0] };
        assert_eq!(super::super::output::keys(&row), COLUMNS);
    }
}
