//! `xlayout hlo`: the reports of [`xlayout::hlo`] for each file, with what XLA:CPU allocates
//! for a scheduled module and XLA's own allocation total in the headline, printed as a table
//! for people or as TSV, CSV or JSON for scripts. No analysis happens here: the loop over the
//! modules is [`ModuleFiles::each_loaded`]'s; this file says what `hlo` prints of each.

use std::fmt::Write as _;

use serde::Serialize;
use xlayout::hlo::rows::Row;
use xlayout::hlo::{
    GroupBy, InstrId, Keyed, Module, Peak, PeakOptions, Report, ReportOptions, ReportWithPeak,
    RunningTotals, Sum, Totals, REPORT_VERSION,
};

use super::args::{By, Hlo};
use super::dump::{self, XlaAssignment};
use super::io::{usage, Failure, Out, Stdin};
use super::load::{ModuleFiles, Want};
use super::output::{
    self, aligned, both, chosen_format, computation_names, count, human, names, row_table, warn,
    ByName, Column, Emitter, Fields, FileReport, Head, Rows,
};
use super::Status;

/// The TSV and CSV header: `file`, then the keys of an instruction's JSON row ([`Row`]).
/// A contract with scripts (see [`REPORT_VERSION`]).
pub const COLUMNS: &[&str] = &[
    "file",
    "line",
    "computation",
    "instruction",
    "opcode",
    "shape",
    "memory_spaces",
    "array_bytes",
    "logical_bytes",
    "padding_bytes",
    "tiling_padding_bytes",
    "widening_bytes",
    "expansion",
    "unsized_leaves",
    "owns_buffer",
    "ownership",
    "owned_bytes",
    "op_name",
    "source_file",
    "source_line",
    "causes",
    "best_layout",
    "best_bytes",
];

/// With `--by`: `file`, `group_by`, then the keys of a JSON group ([`Keyed`]).
pub const GROUP_COLUMNS: &[&str] = &[
    "file",
    "group_by",
    "key",
    "instructions",
    "array_bytes",
    "logical_bytes",
    "padding_bytes",
    "tiling_padding_bytes",
    "widening_bytes",
    "expansion",
    "saturated",
];

/// A TSV row: the file, then an instruction's row.
#[derive(Serialize)]
struct FileRow<'a, R> {
    file: &'a str,
    #[serde(flatten)]
    row: R,
}

/// A row of the people's top lists: an instruction's row and what it owns of it.
#[derive(Serialize)]
struct TopRow<'a> {
    #[serde(flatten)]
    row: Row<'a>,
    owned_padding_bytes: u64,
    owned_expansion: Option<xlayout::hlo::Ratio>,
}

/// Columns of the top lists that need no name of their own.
const OPCODE: Column<'static> = Column::Field("opcode", "opcode");
const OP_NAME: Column<'static> = Column::Field("op_name", "op_name");

/// A TSV row of `--by`: the file, the grouping, then a group.
#[derive(Serialize)]
struct GroupRow<'a> {
    file: &'a str,
    group_by: GroupBy,
    #[serde(flatten)]
    group: &'a Keyed<String>,
}

/// One file's report: in JSON its name, its report with the headline, XLA's allocation
/// total; a table; rows of instructions or of groups.
#[derive(Serialize)]
struct HloFile<'a, 't> {
    file: &'a str,
    #[serde(flatten)]
    report: ReportWithPeak<'a, 't>,
    xla_buffer_assignment: Option<&'a XlaAssignment>,
    #[serde(skip)]
    args: &'a Hlo,
    #[serde(skip)]
    peak: Option<&'a Peak>,
}

/// The JSON output's total.
#[derive(Default, Serialize)]
struct TotalJson {
    files: usize,
    #[serde(flatten)]
    totals: Totals,
}

impl Hlo {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        if self.peak {
            return Err(usage(String::from(
                "`hlo --peak` is its own command now: `xlayout peak FILE|DIR|-...` \
                 (with --budget, --max-expansion, --min-bytes, --top, --format and --html)",
            )));
        }
        if self.op_depth.is_some() && self.by != Some(By::Op) {
            let by = self
                .options()
                .group_by
                .map_or_else(|| String::from("no --by"), |b| format!("--by {b}"));
            return Err(usage(format!(
                "--op-depth N groups by the first N parts of op_name, which `--by op` does; \
                 with {by} it would change nothing: add `--by op`, or leave out --op-depth"
            )));
        }
        let files = ModuleFiles::list(&self.modules, self.gates.buffer_assignment.as_deref())?;
        let shown = &self.shown;
        dump::with_page(shown.html.as_deref(), shown.format, out, |out, page| {
            let columns = if self.by.is_some() { GROUP_COLUMNS } else { COLUMNS };
            let head = Head { version: REPORT_VERSION, list: "files", columns };
            let mut emit = Emitter::begin(chosen_format(shown.format), head, out)?;
            let options = self.options();
            let mut total = TotalJson::default();
            let mut running = RunningTotals::default();
            let want = Want { every_peak: false, live_ranges: false };
            let status = files.each_loaded(&self.gates, want, stdin, |m| {
                let report = Report::new(m.analysis, options);
                let status = self.limits(m.name, &report);
                if let Some(page) = page.as_mut() {
                    m.add_to(
                        page,
                        &report,
                        PeakOptions { top: shown.top, min_bytes: shown.min_bytes },
                    );
                }
                total.files += 1;
                running.add(&report.totals);
                emit.file(&HloFile {
                    file: m.name,
                    report: ReportWithPeak::new(&report, m.peak),
                    xla_buffer_assignment: m.assignment,
                    args: self,
                    peak: m.peak,
                })?;
                Ok(status)
            })?;
            total.totals = running.into_totals();
            let table = || match total.files {
                0 | 1 => String::new(),
                n => format!("\n{}", self.total_table(n, &total.totals)),
            };
            emit.end_with("total", &total, table)?;
            Ok(status)
        })
    }

    /// What the reports list, from the command line.
    fn options(&self) -> ReportOptions {
        ReportOptions {
            top: self.shown.top,
            min_bytes: self.shown.min_bytes,
            group_by: self.by.map(|b| match b {
                By::Op => GroupBy::Op,
                By::Opcode => GroupBy::Opcode,
                By::Shape => GroupBy::Shape,
            }),
            op_depth: self.op_depth,
        }
    }

    /// Reports the buffers beyond `--max-expansion`; 1 if any.
    fn limits(&self, name: &str, report: &Report<'_, '_>) -> Status {
        let Some(x) = &self.gates.max_expansion else { return 0 };
        let mut status = 0;
        for i in report.expanding_more_than(x.num, x.den) {
            status = 1;
            let ins = &report.analysis.module.instructions[i];
            let owned = report.analysis.buffers[i].owned;
            let e = owned.expansion().map_or_else(|| String::from("unbounded"), |e| e.to_string());
            warn(format_args!(
                "{name}:{}: {} takes {e}x its data ({} for {}), more than --max-expansion {}",
                ins.line, ins.name, owned.array_bytes, owned.logical_bytes, x.text
            ));
        }
        status
    }

    fn size(&self, n: u64) -> String {
        human(self.shown.bytes, n)
    }

    /// The table of one file: the headline, which names each figure, then the lists.
    fn table(
        &self,
        name: &str,
        report: &Report<'_, '_>,
        peak: Option<&Peak>,
        xla: Option<&XlaAssignment>,
    ) -> Result<String, Failure> {
        let a = report.analysis;
        let m = a.module;
        let mut s = String::new();
        let module = match m.name {
            Some(n) => format!("module {n}{}", if m.is_scheduled { ", scheduled" } else { "" }),
            None => String::from("no HloModule line"),
        };
        let _ = writeln!(
            s,
            "{name}: {module}; {}, {}, {}",
            count(m.computations.len(), "computation"),
            count(m.instructions.len(), "instruction"),
            count(m.lines, "line")
        );
        s += &peak_line(m, peak, self.shown.bytes);
        if let Some(x) = xla {
            s += &dump::xla_assignment_line(x, self.shown.bytes);
        }
        s +=
            &self.totals_text("sum of every buffer the program owns, not its peak", &report.totals);
        if !m.diagnostics.is_empty() {
            let _ = writeln!(
                s,
                "{} problems reading this file (on standard error, with their lines)",
                m.diagnostics.len()
            );
        }
        let why = |f: &Fields| output::why(f, "causes");
        let better = |f: &Fields| output::better(f, "best_layout", "best_bytes", self.shown.bytes);
        let allocated = Column::Bytes("allocated", "owned_bytes");
        let padding = Column::Bytes("padding", "owned_padding_bytes");
        let x = Column::Times("x", "owned_expansion");
        let line = Column::Field("line", "line");
        let instruction = Column::Field("instruction", "instruction");
        let shape = Column::Field("shape", "shape");
        let (why, better) = (Column::Made("why", &why), Column::Made("better layout", &better));
        let lists: [(&str, &[InstrId], Vec<&Column<'_>>); 3] = [
            (
                "largest buffers",
                &report.top_allocated,
                vec![&allocated, &padding, &x, &line, &instruction, &OPCODE, &shape, &OP_NAME],
            ),
            (
                "most padding",
                &report.top_padding,
                vec![&padding, &allocated, &x, &line, &instruction, &shape, &why, &better],
            ),
            (
                "largest expansion",
                &report.top_expansion,
                vec![&x, &allocated, &padding, &line, &instruction, &shape, &why, &better],
            ),
        ];
        for (title, list, columns) in lists {
            if list.is_empty() {
                continue;
            }
            let rows = list.iter().map(|&i| {
                let owned = a.buffers[i].owned;
                TopRow {
                    row: report.row(i),
                    owned_padding_bytes: owned.padding_bytes(),
                    owned_expansion: owned.expansion(),
                }
            });
            let _ = write!(s, "\n{title}:\n{}", row_table(rows, &columns, self.shown.bytes)?);
        }
        if report.top_padding.is_empty() && report.totals.owned.instructions > 0 {
            s += "\nno owned buffer pads\n";
        }
        if let Some(by) = report.options.group_by {
            let title = format!("owned buffers by {by}");
            let _ =
                write!(s, "\n{title}:\n{}", self.sums(by_name(by), &report.groups, String::clone));
        }
        Ok(s)
    }

    /// The totals of several files.
    fn total_table(&self, files: usize, totals: &Totals) -> String {
        format!(
            "total of {files} files: {} instructions\n{}",
            totals.instructions,
            self.totals_text("sum of every buffer the programs own, not a peak", totals)
        )
    }

    /// A figure of `sum`: `>=` before it when the sum saturated (it is at least that).
    fn sum_size(&self, sum: &Sum, n: u64) -> String {
        let at_least = if sum.saturated { ">=" } else { "" };
        format!("{at_least}{}", self.size(n))
    }

    /// The padding of `sum`: `-` when it saturated (the difference of two figures that
    /// stopped at 2^64 - 1 says nothing).
    fn sum_padding(&self, sum: &Sum) -> String {
        match sum.saturated {
            true => String::from("-"),
            false => self.size(sum.sizes.padding_bytes()),
        }
    }

    fn totals_text(&self, what: &str, t: &Totals) -> String {
        let o = &t.owned;
        let mut s = format!(
            "{what}: {}, {} allocated for {} of data, {}{}\n",
            count(o.instructions as usize, "instruction"),
            self.sum_size(o, o.sizes.array_bytes),
            self.sum_size(o, o.sizes.logical_bytes),
            match o.saturated {
                true => String::from("padding not known"),
                false => format!("{} padding", self.size(o.sizes.padding_bytes())),
            },
            o.sizes
                .expansion()
                .filter(|_| !o.saturated)
                .map_or_else(String::new, |e| format!(" ({e}x)"))
        );
        let saturated = o.saturated
            || t.by_memory_space.iter().any(|k| k.sum.saturated)
            || t.by_computation.iter().any(|k| k.sum.saturated);
        if saturated {
            let _ = writeln!(
                s,
                "sums marked >= reached 2^64 - 1 bytes and stopped there: each is at least what \
                 it says (the JSON's \"saturated\": true)"
            );
        }
        if t.unread_shapes > 0 {
            let _ = writeln!(
                s,
                "{} instructions have a result shape that was not read",
                t.unread_shapes
            );
        }
        if t.unsized_owners > 0 {
            let _ = writeln!(
                s,
                "{} owning instructions have a leaf with no size (an unbounded dimension)",
                t.unsized_owners
            );
        }
        if !t.by_memory_space.is_empty() {
            s += &self.sums("memory space", &t.by_memory_space, |k| format!("S({k})"));
        }
        if !t.by_computation.is_empty() {
            s += &self.sums("computation", &t.by_computation, String::clone);
        }
        s
    }

    /// Sums as an aligned table under `what`, each key named by `name`: at most
    /// [`MAX_SUM_ROWS`] of them (the largest by bytes allocated, in their order), then one
    /// row for the rest.
    fn sums<K>(&self, what: &str, sums: &[Keyed<K>], name: impl Fn(&K) -> String) -> String {
        let mut rows = vec![[what, "instructions", "allocated", "data", "padding", "x"]
            .map(String::from)
            .to_vec()];
        let (kept, rest) = largest(sums);
        let row = |key: String, sum: &Sum| {
            let Sum { instructions, sizes, saturated } = *sum;
            vec![
                key,
                instructions.to_string(),
                self.sum_size(sum, sizes.array_bytes),
                self.sum_size(sum, sizes.logical_bytes),
                self.sum_padding(sum),
                sizes
                    .expansion()
                    .filter(|_| !saturated)
                    .map_or_else(|| String::from("-"), |e| format!("{e}x")),
            ]
        };
        rows.extend(kept.iter().map(|k| row(name(&k.key), &k.sum)));
        if let Some((count, sum)) = rest {
            rows.push(row(format!("({count} more)"), &sum));
        }
        aligned(&rows, "  ")
    }
}

impl FileReport for HloFile<'_, '_> {
    fn table(&self) -> Result<String, Failure> {
        let report = self.report.report;
        self.args.table(self.file, report, self.peak, self.xla_buffer_assignment)
    }

    fn rows(&self, rows: &mut Rows<'_, '_>) -> Result<(), Failure> {
        let report = self.report.report;
        let file = self.file;
        if let Some(group_by) = report.options.group_by {
            let groups = report.groups.iter().map(|group| GroupRow { file, group_by, group });
            return rows.all(groups, &[]);
        }
        let m = report.analysis.module;
        let named = [
            ByName { column: "computation", name: &computation_names(m) },
            ByName { column: "source_file", name: &names(report.source_files.names()) },
        ];
        rows.all(m.instructions.ids().map(|i| FileRow { file, row: report.row(i) }), &named)
    }
}

/// A table of sums lists at most this many keys: a hostile module can put every
/// instruction in a memory space or a computation of its own, and a table of a million rows
/// is no answer for a person (`--format json` and TSV keep every one).
const MAX_SUM_ROWS: usize = 50;

/// The [`MAX_SUM_ROWS`] largest of `sums` by bytes allocated (ties: the first), in their
/// order; and, if there are more, how many and their sum. Linear in `sums`.
fn largest<K>(sums: &[Keyed<K>]) -> (Vec<&Keyed<K>>, Option<(usize, Sum)>) {
    if sums.len() <= MAX_SUM_ROWS {
        return (sums.iter().collect(), None);
    }
    let mut order: Vec<usize> = (0..sums.len()).collect();
    let key = |&i: &usize| (std::cmp::Reverse(sums[i].sum.sizes.array_bytes), i);
    order.select_nth_unstable_by_key(MAX_SUM_ROWS - 1, key);
    order.truncate(MAX_SUM_ROWS);
    order.sort_unstable();
    let mut keep = vec![false; sums.len()];
    order.iter().for_each(|&i| keep[i] = true);
    let mut rest = Sum::default();
    sums.iter().zip(&keep).filter(|(_, &k)| !k).for_each(|(k, _)| rest.merge(&k.sum));
    (order.iter().map(|&i| &sums[i]).collect(), Some((sums.len() - MAX_SUM_ROWS, rest)))
}

/// The headline of a scheduled module: what XLA:CPU allocates (predicted), then XLA's
/// live-range peak; or why there is neither.
fn peak_line(m: &Module<'_>, peak: Option<&Peak>, unit: super::args::Units) -> String {
    let Some(p) = peak else {
        return String::from(
            "allocated: none yet, the module is not scheduled (no is_scheduled=true): XLA's \
             scheduler decides the order of its instructions, and so what it allocates\n",
        );
    };
    let at = match p.xla.instruction {
        Some(i) => {
            let ins = &m.instructions[i];
            let computation = m.computation_name(i).unwrap_or("-");
            format!(", {} ({} in {computation})", ins.name, ins.opcode.as_str())
        }
        None => String::new(),
    };
    let exact =
        if p.exact() { "" } else { "; not every rule it needs is modelled, see `xlayout peak`" };
    format!(
        "{}live-range peak: {} live at step {} of {}{at}, by XLA's HloLiveRange rule \
         (values sharing memory each counted){exact}\n",
        dump::allocation_line(&p.assignment, unit),
        both(unit, p.xla.bytes),
        p.xla.step,
        p.sequence.len()
    )
}

fn by_name(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Op => "op_name",
        GroupBy::Opcode => "opcode",
        GroupBy::Shape => "shape",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xlayout::hlo::Analysis;

    /// The columns are the serialized row's keys, for instruction rows (a row whose shape
    /// was not read too) and group rows.
    #[test]
    fn columns_are_the_rows_keys() {
        let m = Module::parse("%a = f32[2]{0} parameter(0)\n%b = f32[3]{0:T(0)} negate(%a)\n");
        let a = Analysis::new(&m);
        for i in m.instructions.ids() {
            let row = FileRow { file: "f", row: Report::new(&a, ReportOptions::default()).row(i) };
            assert_eq!(super::super::output::keys(&row), COLUMNS);
        }
        let r = Report::new(
            &a,
            ReportOptions { group_by: Some(GroupBy::Opcode), ..ReportOptions::default() },
        );
        let g = GroupRow { file: "f", group_by: GroupBy::Opcode, group: &r.groups[0] };
        assert_eq!(super::super::output::keys(&g), GROUP_COLUMNS);
    }

    /// A table of sums keeps the largest 50 in their order and sums the rest in one row.
    #[test]
    fn a_table_of_many_sums_lists_the_largest_and_counts_the_rest() {
        use xlayout::hlo::Sizes;
        // Key k allocates (k * 7919) % 61 bytes: the 50 largest of 0..=60 are 11..=60.
        let sums: Vec<Keyed<i64>> = (0..61)
            .map(|k: i64| {
                let bytes = (k as u64 * 7919) % 61;
                let sizes = Sizes { array_bytes: bytes, ..Sizes::default() };
                Keyed { key: k, sum: Sum { instructions: 1, sizes, saturated: false } }
            })
            .collect();
        let (kept, rest) = largest(&sums);
        let bytes: Vec<u64> = kept.iter().map(|k| k.sum.sizes.array_bytes).collect();
        assert_eq!(kept.len(), MAX_SUM_ROWS);
        assert!(kept.windows(2).all(|w| w[0].key < w[1].key), "in their order");
        let mut sorted = bytes.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (11..=60).collect::<Vec<u64>>());
        let (count, sum) = rest.unwrap();
        assert_eq!((count, sum.instructions, sum.sizes.array_bytes), (11, 11, (0..=10).sum()));
        let (all, none) = largest(&sums[..50]);
        assert_eq!((all.len(), none.is_none()), (50, true));
    }
}
