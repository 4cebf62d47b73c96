//! `xlayout oom`: [`xlayout::oom::OomReport`] for each report, joined to an HLO dump with
//! `--hlo`, printed as a table for people or as TSV, CSV or JSON for scripts. No analysis
//! happens here.

use std::fmt::Write as _;

use serde::Serialize;
use xlayout::hlo::{decode, Module, REPORT_VERSION};
use xlayout::oom::{join, Entry, Joined, OomReport, Printed};

use super::args::{Format, Oom};
use super::io::{self, Failure, Out, Stdin};
use super::output::{aligned, chosen_format, csv_line, human, or_dash, record, warn};
use super::Status;

/// The TSV and CSV header: one row per entry (a contract with scripts).
const COLUMNS: [&str; 24] = [
    "file",
    "entry",
    "memory_space",
    "shape",
    "printed_size",
    "size_bytes",
    "logical_bytes",
    "padding_bytes",
    "expansion",
    "agrees",
    "inferred_tiling",
    "instruction",
    "op_name",
    "printed_unpadded",
    "printed_padding",
    "printed_expansion",
    "allocation_type",
    "opcode",
    "source",
    "cause",
    "best_layout",
    "best_bytes",
    "hlo_shape",
    "hlo_source",
];

/// One report in the JSON output.
#[derive(Serialize)]
struct ReportJson<'a> {
    file: &'a str,
    #[serde(flatten)]
    report: &'a OomReport,
    /// With `--hlo`: per entry, what the module says about its instruction.
    hlo: Option<Vec<Option<Joined<'a>>>>,
}

impl Oom {
    pub fn run(&self, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
        let format = chosen_format(self.format);
        // The dump is read once, before the reports (it may be standard input, then the
        // reports cannot be).
        let dump = match &self.hlo {
            Some(path) => {
                let (name, bytes) = io::read_file(path, stdin)?;
                Some((name, decode(&bytes).0.into_owned()))
            }
            None => None,
        };
        let module = dump.as_ref().map(|(_, text)| Module::parse(text));
        let mut status = 0;
        match format {
            Format::Tsv => out.line(format_args!("{}", COLUMNS.join("\t")))?,
            Format::Csv => out.text(&csv_line(&COLUMNS))?,
            Format::Json => out.text(&format!("{{\"version\":{REPORT_VERSION},\"reports\":["))?,
            Format::Table => {}
        }
        for (n, input) in self.inputs.iter().enumerate() {
            let (name, bytes) = io::read_file(input, stdin)?;
            let (text, _) = decode(&bytes);
            let report = OomReport::parse(&text);
            for p in &report.problems {
                status = 1;
                warn(format_args!("{name}:{}: {}", p.line, p.message));
            }
            let joined = module.as_ref().map(|m| join(&report, m));
            match format {
                Format::Table => {
                    if n > 0 {
                        out.text("\n")?;
                    }
                    out.text(&self.table(&name, &report, joined.as_deref()))?;
                }
                Format::Tsv | Format::Csv => {
                    let mut buf = String::new();
                    for (k, e) in report.entries.iter().enumerate() {
                        let j = joined.as_ref().and_then(|j| j[k].as_ref());
                        buf += &record(format, &row_fields(&name, e, j));
                    }
                    out.text(&buf)?;
                }
                Format::Json => {
                    if n > 0 {
                        out.text(",")?;
                    }
                    out.json(&ReportJson { file: &name, report: &report, hlo: joined })?;
                }
            }
        }
        if format == Format::Json {
            out.line(format_args!("]}}"))?;
        }
        Ok(status)
    }

    /// The table of one report.
    fn table(&self, name: &str, r: &OomReport, joined: Option<&[Option<Joined<'_>>]>) -> String {
        let b = |n: u64| human(self.bytes, n);
        let mut s = String::new();
        let what = match r.kind {
            xlayout::oom::Kind::Tpu => "TPU out-of-memory report",
            xlayout::oom::Kind::Gpu => "XLA:GPU buffer assignment report",
            xlayout::oom::Kind::Unknown => "report",
        };
        let _ = write!(s, "{name}: {what}");
        if let Some(c) = &r.error_code {
            let _ = write!(s, " ({c})");
        }
        if let Some(m) = &r.memory_space {
            let _ = write!(s, ", memory space {m}");
        }
        let text = |p: &Option<Printed>| p.as_ref().map(|p| p.text.clone());
        if let (Some(used), Some(cap)) = (text(&r.used), text(&r.capacity)) {
            let _ = write!(s, ": used {used} of {cap}");
            if let Some(x) = text(&r.exceeded) {
                let _ = write!(s, ", {x} over");
            }
        }
        if let Some(a) = text(&r.allocating) {
            let _ = write!(s, ": failed to allocate {a} bytes");
        }
        s.push('\n');
        if let Some(h) = &r.hlo_temp {
            let _ = write!(s, "HLO temp {}", h.size.text);
            if let Some(u) = &h.utilization {
                let _ = write!(s, ", {u}% utilization printed");
            }
            match (&h.utilization_recomputed, h.utilization_agrees) {
                (Some(x), Some(true)) => {
                    let _ = write!(s, "; Unpadded / Padded = {x}%: agrees");
                }
                (Some(x), _) => {
                    let _ = write!(s, "; Unpadded / Padded = {x}%: does NOT agree");
                }
                _ => {}
            }
            s.push('\n');
        }
        let t = &r.totals;
        let _ = writeln!(
            s,
            "{} {} ({} with a readable shape, {} agreeing with it): {} listed, {} of data, {} padding{}",
            t.entries,
            if t.entries == 1 { "entry" } else { "entries" },
            t.recomputed,
            t.agreeing,
            b(t.sizes.array_bytes),
            b(t.sizes.logical_bytes),
            b(t.sizes.padding_bytes()),
            t.padding_percent.as_ref().map_or_else(String::new, |p| format!(" ({p}% of it)"))
        );
        if r.entries.is_empty() {
            return s;
        }
        let mut rows = vec![[
            "#",
            "printed",
            "size",
            "data",
            "padding",
            "x",
            "agrees",
            "shape",
            "instruction",
            "why",
            "better layout",
        ]
        .map(String::from)
        .to_vec()];
        let mut notes = Vec::new();
        for (k, e) in r.entries.iter().enumerate() {
            let x = e.recomputed.as_ref();
            let sizes = x.map(|x| x.sizes);
            let dash = || String::from("-");
            let instruction =
                e.instruction.clone().or_else(|| e.opcode.clone()).unwrap_or_else(dash);
            rows.push(vec![
                e.number.to_string(),
                e.size.as_ref().map_or_else(dash, |p| p.text.clone()),
                sizes.map_or_else(dash, |z| b(z.array_bytes)),
                sizes.map_or_else(dash, |z| b(z.logical_bytes)),
                sizes.map_or_else(dash, |z| b(z.padding_bytes())),
                x.and_then(|x| x.expansion.clone()).map_or_else(dash, |v| format!("{v}x")),
                agrees(e).to_string(),
                x.map_or_else(|| e.shape.clone().unwrap_or_else(dash), |x| x.shape.clone()),
                instruction,
                x.map_or_else(dash, |x| {
                    or_dash(x.causes.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
                }),
                x.and_then(|x| x.best_layout.as_ref())
                    .map_or_else(dash, |l| format!("{} {}", l.layout, b(l.array_bytes))),
            ]);
            if let Some(t) = x.and_then(|x| x.inferred_tiling.as_ref()) {
                notes.push(format!("entry {}: printed without tiles; the TPU default tiling T{t} gives the printed size (inferred)", e.number));
            }
            if let Some(x) = x {
                let a = x.agrees;
                let mut wrong = Vec::new();
                let mut check =
                    |field: &str, ok: Option<bool>, printed: Option<&str>, want: &str| {
                        if ok == Some(false) {
                            wrong.push(format!(
                                "{field} {} (the shape gives {want})",
                                printed.unwrap_or("-")
                            ));
                        }
                    };
                check("Size", a.size, e.size.as_ref().map(|p| p.text.as_str()), &x.expected.size);
                check(
                    "Unpadded size",
                    a.unpadded,
                    e.unpadded.as_ref().map(|p| p.text.as_str()),
                    &x.expected.unpadded,
                );
                check(
                    "padding",
                    a.padding,
                    e.padding.as_ref().map(|p| p.text.as_str()),
                    &x.expected.padding,
                );
                let one = x.expansion_one_decimal.clone().unwrap_or_else(dash);
                check("expansion", a.expansion, e.printed_expansion.as_deref(), &format!("{one}x"));
                if !wrong.is_empty() {
                    notes.push(format!("entry {}: printed {}", e.number, wrong.join(", ")));
                }
            }
            if e.label_truncated {
                notes.push(format!("entry {}: the label is cut short by the report", e.number));
            }
            if let Some(op) = &e.op_name {
                let source = e.source.as_ref().map_or_else(String::new, |s| format!(" ({s})"));
                notes.push(format!("entry {}: op_name {op}{source}", e.number));
            }
            if let Some(j) = joined.and_then(|j| j[k].as_ref()) {
                let source = j.source.as_ref().map_or_else(String::new, |s| format!(", from {s}"));
                notes.push(format!(
                    "entry {}: in the dump at line {}: {} = {} {}{source}",
                    e.number,
                    j.line,
                    e.instruction.as_deref().unwrap_or("-"),
                    j.shape,
                    j.opcode
                ));
            }
        }
        s.push('\n');
        s += &aligned(&rows, "  ");
        if !notes.is_empty() {
            s.push('\n');
            for n in notes {
                let _ = writeln!(s, "  {n}");
            }
        }
        s
    }
}

/// `yes`, `no` or `-` (no readable shape).
fn agrees(e: &Entry) -> &'static str {
    match &e.recomputed {
        Some(x) if x.agrees.all() => "yes",
        Some(_) => "no",
        None => "-",
    }
}

fn row_fields(file: &str, e: &Entry, j: Option<&Joined<'_>>) -> Vec<String> {
    let dash = || String::from("-");
    let x = e.recomputed.as_ref();
    let sizes = x.map(|x| x.sizes);
    let printed = |p: &Option<Printed>| p.as_ref().map_or_else(dash, |p| p.text.clone());
    vec![
        file.to_string(),
        e.number.to_string(),
        e.memory_space.clone().unwrap_or_else(dash),
        e.shape.clone().unwrap_or_else(dash),
        printed(&e.size),
        sizes.map_or_else(dash, |z| z.array_bytes.to_string()),
        sizes.map_or_else(dash, |z| z.logical_bytes.to_string()),
        sizes.map_or_else(dash, |z| z.padding_bytes().to_string()),
        x.and_then(|x| x.expansion.clone()).unwrap_or_else(dash),
        agrees(e).to_string(),
        x.and_then(|x| x.inferred_tiling.clone()).unwrap_or_else(dash),
        e.instruction.clone().unwrap_or_else(dash),
        e.op_name.clone().unwrap_or_else(dash),
        printed(&e.unpadded),
        printed(&e.padding),
        e.printed_expansion.clone().unwrap_or_else(dash),
        e.allocation_type.clone().unwrap_or_else(dash),
        e.opcode.clone().unwrap_or_else(dash),
        e.source.clone().unwrap_or_else(dash),
        x.map_or_else(dash, |x| {
            or_dash(x.causes.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
        }),
        x.and_then(|x| x.best_layout.as_ref()).map_or_else(dash, |l| l.layout.clone()),
        x.and_then(|x| x.best_layout.as_ref()).map_or_else(dash, |l| l.array_bytes.to_string()),
        j.map_or_else(dash, |j| j.shape.to_string()),
        j.and_then(|j| j.source.clone()).unwrap_or_else(dash),
    ]
}
