//! `xlayout hlo`: the reports of [`xlayout::hlo`] for each file, printed as a table for
//! people or as TSV, CSV or JSON for scripts. No analysis happens here: this module picks
//! the files, asks the library, and formats what it says.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use xlayout::draw;
use xlayout::hlo::{
    decode, units, Analysis, GroupBy, InstrId, Keyed, Module, Report, ReportOptions, Row, Sizes,
    Sum, Totals, REPORT_VERSION,
};

use super::args::{By, Format, Hlo};
use super::io::{self, Failure, Out, Stdin};
use super::output::{aligned, count, csv_line, or_dash, tsv_escape, warn};
use super::Status;

/// The size columns of instruction and group rows, in order.
const SIZE_COLUMNS: [&str; 6] = [
    "array_bytes",
    "logical_bytes",
    "padding_bytes",
    "tiling_padding_bytes",
    "widening_bytes",
    "expansion",
];

/// The TSV and CSV header: a contract with scripts (see [`REPORT_VERSION`]). One row per
/// instruction, or with `--by` one per group.
fn columns(groups: bool) -> Vec<&'static str> {
    let mut c = if groups {
        vec!["file", "by", "key", "instructions"]
    } else {
        vec!["file", "line", "computation", "instruction", "opcode", "shape", "memory_space"]
    };
    c.extend(SIZE_COLUMNS);
    if !groups {
        c.extend(["owns_buffer", "ownership", "owned_bytes", "op_name", "source", "cause"]);
        c.extend(["best_layout", "best_bytes"]);
    }
    c
}

impl Hlo {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        if self.peak || self.buffer_assignment.is_some() {
            return super::peak::run(self, stdin, out);
        }
        let mut page = self.html.as_ref().map(|_| draw::HtmlPage::default());
        let status = if self.html.as_deref() == Some(Path::new("-")) {
            // The page is the output: what --format would write goes nowhere.
            let mut sink = std::io::sink();
            self.reports(stdin, &mut Out::new(&mut sink), &mut page)?
        } else {
            self.reports(stdin, out, &mut page)?
        };
        if let (Some(path), Some(page)) = (&self.html, page) {
            io::write_file(path, &page.finish(), out)?;
        }
        Ok(status)
    }

    /// Reads every input and writes its report in --format; adds each module to `page`.
    fn reports(
        &self,
        stdin: &mut Stdin<'_>,
        out: &mut Out<'_>,
        page: &mut Option<draw::HtmlPage>,
    ) -> Result<Status, Failure> {
        let format = self.format();
        let options = ReportOptions {
            top: self.top,
            min_bytes: self.min_bytes,
            group_by: self.by.map(|b| match b {
                By::Op => GroupBy::Op,
                By::Opcode => GroupBy::Opcode,
                By::Shape => GroupBy::Shape,
            }),
            op_depth: self.op_depth,
        };
        let (files, mut status) = self.files()?;

        match format {
            Format::Tsv => out.line(format_args!("{}", self.header().join("\t")))?,
            Format::Csv => out.text(&csv_line(&self.header()))?,
            Format::Json => out.text(&format!("{{\"version\":{REPORT_VERSION},\"files\":["))?,
            Format::Table => {}
        }
        let mut total = Totals::default();
        for (n, file) in files.iter().enumerate() {
            let (name, bytes) = io::read_file(file, stdin)?;
            let (text, problems) = decode(&bytes);
            let mut module = Module::parse(&text);
            module.add_diagnostics(problems);
            let analysis = Analysis::new(&module);
            let report = Report::new(&analysis, options);
            for d in &module.diagnostics {
                status = 1;
                warn(format_args!("{name}:{d}"));
            }
            status |= self.limits(&name, &report);
            total.merge(&report.totals);
            if let Some(page) = page {
                let html =
                    draw::HtmlOptions { source: name.clone(), ..draw::HtmlOptions::default() };
                page.add(&report, &html);
            }
            match format {
                Format::Table => {
                    if n > 0 {
                        out.text("\n")?;
                    }
                    out.text(&self.table(&name, &report))?;
                }
                Format::Tsv | Format::Csv => self.rows(format, &name, &report, out)?,
                Format::Json => {
                    if n > 0 {
                        out.text(",")?;
                    }
                    out.json(&FileJson { file: &name, report: &report })?;
                }
            }
        }
        match format {
            Format::Json => {
                out.text("],\"total\":")?;
                out.json(&TotalJson { files: files.len(), totals: &total })?;
                out.text("}\n")?;
            }
            Format::Table if files.len() > 1 => {
                out.text(&format!("\n{}", self.total_table(files.len(), &total)))?
            }
            _ => {}
        }
        Ok(status)
    }

    fn header(&self) -> Vec<&'static str> {
        columns(self.by.is_some())
    }

    /// Reports the buffers and totals beyond `--max-expansion` and `--budget`; 1 if any.
    fn limits(&self, name: &str, report: &Report<'_, '_, '_>) -> Status {
        let mut status = 0;
        if let Some(x) = &self.max_expansion {
            for i in report.expanding_more_than(x.num, x.den) {
                status = 1;
                let ins = &report.analysis.module.instructions[i];
                let owned = report.analysis.buffers[i].owned;
                let e = owned.expansion().unwrap_or_else(|| String::from("unbounded"));
                warn(format_args!(
                    "{name}:{}: {} takes {e}x its data ({} for {}), more than --max-expansion {}",
                    ins.line, ins.name, owned.array_bytes, owned.logical_bytes, x.text
                ));
            }
        }
        if let Some(budget) = self.budget {
            let owned = report.totals.owned.sizes.array_bytes;
            if owned > budget {
                status = 1;
                warn(format_args!(
                    "{name}: owned buffers add up to {owned} bytes ({}), more than --budget \
                     {budget} ({})",
                    units::oom_bytes(owned),
                    units::oom_bytes(budget)
                ));
            }
        }
        status
    }

    /// One row per instruction (or per group with `--by`), TSV or CSV, written in blocks
    /// (standard output is line-buffered; a dump has hundreds of thousands of rows).
    fn rows(
        &self,
        format: Format,
        name: &str,
        report: &Report<'_, '_, '_>,
        out: &mut Out<'_>,
    ) -> Result<(), Failure> {
        let mut buf = String::new();
        let mut emit = |out: &mut Out<'_>, fields: &[String]| {
            match format {
                Format::Csv => buf += &csv_line(fields),
                _ => {
                    for (i, f) in fields.iter().enumerate() {
                        if i > 0 {
                            buf.push('\t');
                        }
                        buf += &tsv_escape(f);
                    }
                    buf.push('\n');
                }
            }
            if buf.len() >= 1 << 16 {
                out.text(&buf)?;
                buf.clear();
            }
            Ok::<(), Failure>(())
        };
        if let Some(by) = self.by {
            let by = format!("{by:?}").to_lowercase();
            for g in &report.groups {
                let mut fields = vec![name.to_string(), by.clone(), g.key.clone()];
                fields.push(g.sum.instructions.to_string());
                fields.extend(size_fields(&g.sum.sizes));
                emit(out, &fields)?;
            }
        } else {
            let a = report.analysis;
            for i in a.module.instructions.ids() {
                emit(out, &row_fields(name, &a.row(i)))?;
            }
        }
        out.text(&buf)
    }

    /// The table of one file.
    fn table(&self, name: &str, report: &Report<'_, '_, '_>) -> String {
        let a = report.analysis;
        let m = a.module;
        let b = |n: u64| self.size(n);
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
        s += &self.totals_text(&report.totals);
        if !m.diagnostics.is_empty() {
            let _ = writeln!(
                s,
                "{} problems reading this file (on standard error, with their lines)",
                m.diagnostics.len()
            );
        }
        let row = |i: InstrId| a.row(i);
        let lists: [(&str, &[InstrId], &[&str]); 3] = [
            (
                "largest buffers",
                &report.top_allocated,
                &["allocated", "padding", "x", "line", "instruction", "opcode", "shape", "op_name"],
            ),
            (
                "most padding",
                &report.top_padding,
                &[
                    "padding",
                    "allocated",
                    "x",
                    "line",
                    "instruction",
                    "shape",
                    "why",
                    "better layout",
                ],
            ),
            (
                "largest expansion",
                &report.top_expansion,
                &[
                    "x",
                    "allocated",
                    "padding",
                    "line",
                    "instruction",
                    "shape",
                    "why",
                    "better layout",
                ],
            ),
        ];
        for (title, list, columns) in lists {
            if list.is_empty() {
                continue;
            }
            let mut rows: Vec<Vec<String>> = vec![columns.iter().map(|c| c.to_string()).collect()];
            for &i in list {
                let r = row(i);
                let owned = a.buffers[i].owned;
                let x = owned.expansion().map_or_else(|| String::from("-"), |e| format!("{e}x"));
                let cells: Vec<String> = columns
                    .iter()
                    .map(|c| match *c {
                        "allocated" => b(owned.array_bytes),
                        "padding" => b(owned.padding_bytes()),
                        "x" => x.clone(),
                        "line" => r.line.to_string(),
                        "instruction" => r.instruction.to_string(),
                        "opcode" => r.opcode.to_string(),
                        "shape" => r.shape.to_string(),
                        "op_name" => r.op_name.unwrap_or("-").to_string(),
                        "why" => or_dash(r.causes.join(", ")),
                        _ => match (&r.best_layout, r.best_bytes) {
                            (Some(l), Some(n)) => format!("{l} {}", b(n)),
                            _ => String::from("-"),
                        },
                    })
                    .collect();
                rows.push(cells);
            }
            let _ = write!(s, "\n{title}:\n{}", aligned(&rows, "  "));
        }
        if report.top_padding.is_empty() && report.totals.owned.instructions > 0 {
            s += "\nno owned buffer pads\n";
        }
        if let Some(by) = report.options.group_by {
            let title = format!("owned buffers by {by:?}").to_lowercase();
            let _ = write!(s, "\n{title}:\n{}", self.sums(by_name(by), &report.groups));
        }
        s
    }

    /// The totals of several files.
    fn total_table(&self, files: usize, totals: &Totals) -> String {
        format!(
            "total of {files} files: {} instructions\n{}",
            totals.instructions,
            self.totals_text(totals)
        )
    }

    fn totals_text(&self, t: &Totals) -> String {
        let o = &t.owned;
        let mut s = format!(
            "owned: {}, {} allocated for {} of data, {} padding{}\n",
            count(o.instructions as usize, "instruction"),
            self.size(o.sizes.array_bytes),
            self.size(o.sizes.logical_bytes),
            self.size(o.sizes.padding_bytes()),
            o.sizes.expansion().map_or_else(String::new, |e| format!(" ({e}x)"))
        );
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
            let spaces: Vec<Keyed<String>> = t
                .by_memory_space
                .iter()
                .map(|k| Keyed { key: format!("S({})", k.key), sum: k.sum })
                .collect();
            s += &self.sums("memory space", &spaces);
        }
        if !t.by_computation.is_empty() {
            s += &self.sums("computation", &t.by_computation);
        }
        s
    }

    /// Sums as an aligned table under `what`.
    fn sums(&self, what: &str, sums: &[Keyed<String>]) -> String {
        let mut rows = vec![[what, "instructions", "allocated", "data", "padding", "x"]
            .map(String::from)
            .to_vec()];
        for k in sums {
            let Sum { instructions, sizes } = k.sum;
            rows.push(vec![
                k.key.clone(),
                instructions.to_string(),
                self.size(sizes.array_bytes),
                self.size(sizes.logical_bytes),
                self.size(sizes.padding_bytes()),
                sizes.expansion().map_or_else(|| String::from("-"), |e| format!("{e}x")),
            ]);
        }
        aligned(&rows, "  ")
    }
}

fn by_name(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Op => "op_name",
        GroupBy::Opcode => "opcode",
        GroupBy::Shape => "shape",
    }
}

/// The size columns shared by instruction and group rows, exact integers.
fn size_fields(s: &Sizes) -> [String; 6] {
    [
        s.array_bytes.to_string(),
        s.logical_bytes.to_string(),
        s.padding_bytes().to_string(),
        s.tiling_padding_bytes.to_string(),
        s.widening_bytes.to_string(),
        s.expansion().unwrap_or_else(|| String::from("-")),
    ]
}

/// One instruction's fields, in [`columns`] order.
fn row_fields(file: &str, r: &Row<'_>) -> Vec<String> {
    let spaces: Vec<String> = r.memory_spaces.iter().map(ToString::to_string).collect();
    let mut f = vec![
        file.to_string(),
        r.line.to_string(),
        r.computation.unwrap_or("-").to_string(),
        r.instruction.to_string(),
        r.opcode.to_string(),
        r.shape.to_string(),
        or_dash(spaces.join("+")),
    ];
    match r.sizes {
        Some(s) => f.extend(size_fields(&s.sizes)),
        None => f.extend(std::iter::repeat(String::from("-")).take(6)),
    }
    f.push(String::from(if r.owns_buffer { "yes" } else { "no" }));
    f.push(r.ownership.name().to_string());
    f.push(r.owned_bytes.to_string());
    f.push(r.op_name.unwrap_or("-").to_string());
    f.push(r.source.clone().unwrap_or_else(|| String::from("-")));
    f.push(or_dash(r.causes.join("; ")));
    f.push(r.best_layout.clone().unwrap_or_else(|| String::from("-")));
    f.push(r.best_bytes.map_or_else(|| String::from("-"), |n| n.to_string()));
    f
}

/// One file in the JSON output: its name, then its report.
#[derive(Serialize)]
struct FileJson<'a, 'r, 'm, 't> {
    file: &'a str,
    #[serde(flatten)]
    report: &'a Report<'r, 'm, 't>,
}

/// The JSON output's total.
#[derive(Serialize)]
struct TotalJson<'a> {
    files: usize,
    #[serde(flatten)]
    totals: &'a Totals,
}
