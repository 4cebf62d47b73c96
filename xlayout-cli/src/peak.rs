//! `xlayout hlo --peak`: [`xlayout::hlo::Peak`] for each file, with XLA's own live ranges
//! and buffer assignment beside it when there are some, printed as a table for people or
//! as TSV, CSV or JSON for scripts. No analysis happens here.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use xlayout::hlo::{
    decode, dumps_beside, size_differences, Analysis, BufferAssignment, LiveRangeDump, Module,
    Peak, PeakRow, PeakSummary, SizeDifference, REPORT_VERSION,
};

use super::args::{Format, Hlo};
use super::io::{self, Failure, Out, Stdin};
use super::output::{aligned, count, csv_line, record, warn};
use super::Status;

/// The TSV and CSV header of `--peak`: one row per value XLA lists at its peak, in its
/// order (a contract with scripts, like the report's columns).
const COLUMNS: [&str; 15] = [
    "file",
    "peak_step",
    "instruction",
    "shape_index",
    "computation",
    "opcode",
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

/// XLA's own peak, read from its live-range file, next to the project's.
#[derive(Serialize)]
struct XlaLiveRange {
    file: String,
    steps: Option<u64>,
    peak_step: Option<u64>,
    peak_bytes: Option<u64>,
    /// Whether XLA's step and bytes are the project's.
    agrees: bool,
}

/// XLA's buffer assignment and the values it sizes differently.
#[derive(Serialize)]
struct XlaAssignment {
    file: String,
    allocations: usize,
    total_bytes: u64,
    values: usize,
    size_differences: Vec<SizeDifference>,
}

/// One file in the JSON output.
#[derive(Serialize)]
struct FileJson<'a> {
    file: &'a str,
    module: Option<&'a str>,
    scheduled: bool,
    #[serde(flatten)]
    peak: PeakSummary<'a>,
    xla_live_range: Option<XlaLiveRange>,
    xla_buffer_assignment: Option<XlaAssignment>,
}

pub(super) fn run(args: &Hlo, stdin: &mut Stdin<'_>, out: &mut Out<'_>) -> Result<Status, Failure> {
    let (files, mut status) = args.files()?;
    if args.buffer_assignment.is_some() && files.len() != 1 {
        let message = format!(
            "--buffer-assignment compares with one module, and {} module files were given",
            files.len()
        );
        return Err(Failure::Usage(clap::Error::raw(
            clap::error::ErrorKind::ArgumentConflict,
            message + "\n",
        )));
    }
    let format = args.format();
    match format {
        Format::Tsv => out.line(format_args!("{}", COLUMNS.join("\t")))?,
        Format::Csv => out.text(&csv_line(&COLUMNS))?,
        Format::Json => out.text(&format!("{{\"version\":{REPORT_VERSION},\"files\":["))?,
        Format::Table => {}
    }
    for (n, file) in files.iter().enumerate() {
        let (name, bytes) = io::read_file(file, stdin)?;
        let (text, problems) = decode(&bytes);
        let mut module = Module::parse(&text);
        module.add_diagnostics(problems);
        for d in &module.diagnostics {
            status = 1;
            warn(format_args!("{name}:{d}"));
        }
        let analysis = Analysis::new(&module);
        let peak = Peak::new(&analysis);
        let summary = peak.summary(&module, args.top);
        let beside = if file.as_path() == Path::new("-") {
            (args.buffer_assignment.clone(), None)
        } else {
            dumps_beside(file, args.buffer_assignment.as_deref())
        };
        let xla = read_beside(beside.1, stdin)?.map(|(file, text)| {
            let d = LiveRangeDump::parse(&text);
            for p in &d.problems {
                status = 1;
                warn(format_args!("{file}:{}: {}", p.line, p.message));
            }
            let agrees = d.peak_step == Some(u64::from(summary.peak_step))
                && d.peak_bytes() == Some(summary.peak_bytes);
            XlaLiveRange {
                file,
                steps: d.max,
                peak_step: d.peak_step,
                peak_bytes: d.peak_bytes(),
                agrees,
            }
        });
        let assignment = read_beside(beside.0, stdin)?.map(|(file, text)| {
            let b = BufferAssignment::parse(&text);
            for p in &b.problems {
                status = 1;
                warn(format_args!("{file}:{}: {}", p.line, p.message));
            }
            XlaAssignment {
                file,
                allocations: b.allocations.len(),
                total_bytes: b.total_bytes(),
                values: b.allocations.iter().map(|a| a.values.len()).sum(),
                size_differences: size_differences(&b, &analysis),
            }
        });
        let f = FileJson {
            file: &name,
            module: module.name,
            scheduled: module.is_scheduled,
            peak: summary,
            xla_live_range: xla,
            xla_buffer_assignment: assignment,
        };
        match format {
            Format::Table => {
                if n > 0 {
                    out.text("\n")?;
                }
                out.text(&table(args, &f))?;
            }
            Format::Tsv | Format::Csv => {
                let mut buf = String::new();
                for r in &f.peak.live {
                    buf += &record(format, &row_fields(&name, f.peak.peak_step, r));
                }
                out.text(&buf)?;
            }
            Format::Json => {
                if n > 0 {
                    out.text(",")?;
                }
                out.json(&f)?;
            }
        }
    }
    if format == Format::Json {
        out.line(format_args!("]}}"))?;
    }
    Ok(status)
}

/// The name and text of a file beside the module, if there is one; a file named with
/// `--buffer-assignment` that cannot be read is a failure.
fn read_beside(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
) -> Result<Option<(String, String)>, Failure> {
    let Some(path) = path else { return Ok(None) };
    let (name, bytes) = io::read_file(&path, stdin)?;
    Ok(Some((name, decode(&bytes).0.into_owned())))
}

/// A value as XLA names it: `name{1,0}` for a tuple element, `name` for a whole result.
fn value_name(r: &PeakRow<'_>) -> String {
    if r.shape_index.is_empty() {
        // A tuple's own value (its index table) as XLA writes it, apart from its elements.
        let table = if r.shape.starts_with('(') { "{}" } else { "" };
        return format!("{}{table}", r.instruction);
    }
    let index: Vec<String> = r.shape_index.iter().map(ToString::to_string).collect();
    format!("{}{{{}}}", r.instruction, index.join(","))
}

fn row_fields(file: &str, step: u32, r: &PeakRow<'_>) -> Vec<String> {
    let index: Vec<String> = r.shape_index.iter().map(ToString::to_string).collect();
    vec![
        file.to_string(),
        step.to_string(),
        r.instruction.to_string(),
        format!("{{{}}}", index.join(",")),
        r.computation.unwrap_or("-").to_string(),
        r.opcode.to_string(),
        r.shape.clone(),
        String::from(if r.phi { "yes" } else { "no" }),
        r.bytes.to_string(),
        r.array_bytes.to_string(),
        r.logical_bytes.to_string(),
        r.cumulative_bytes.to_string(),
        r.start.to_string(),
        r.end.to_string(),
        r.op_name.unwrap_or("-").to_string(),
    ]
}

/// A size in the `--bytes` units, with the exact count beside it unless exact already.
fn both(args: &Hlo, n: u64) -> String {
    let shown = args.size(n);
    if shown == n.to_string() {
        shown
    } else {
        format!("{shown} ({n} bytes)")
    }
}

/// The table of one file.
fn table(args: &Hlo, f: &FileJson<'_>) -> String {
    let p = &f.peak;
    let b = |n: u64| args.size(n);
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
    let where_ = match (p.peak_instruction, p.peak_opcode, p.peak_computation) {
        (Some(i), Some(o), Some(c)) => format!("step {}, {i} ({o} in {c})", p.peak_step),
        _ => format!("step {}", p.peak_step),
    };
    let _ = writeln!(
        s,
        "peak by XLA's rule (HloLiveRange): {where_}: {} live; {} allocated with padding, {} of data",
        both(args, p.peak_bytes),
        b(p.peak_array_bytes),
        b(p.peak_logical_bytes)
    );
    let hw = &p.high_water;
    let _ = writeln!(
        s,
        "largest live total: {} at {}; with padding {} at {}; data {} at {}",
        both(args, hw.bytes.total),
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
        let _ = write!(
            s,
            "XLA's buffer assignment ({}): {}, {} in all; ",
            a.file,
            count(a.allocations, "allocation"),
            b(a.total_bytes)
        );
        if a.size_differences.is_empty() {
            let _ = writeln!(s, "all {} values have the project's sizes", a.values);
        } else {
            let _ = writeln!(
                s,
                "{} of {} values sized differently:",
                a.size_differences.len(),
                a.values
            );
            let mut rows =
                vec![["value", "allocation", "XLA", "ArraySize here", "ByteSizeOf here", "shape"]
                    .map(String::from)
                    .to_vec()];
            for d in &a.size_differences {
                let v = &d.value;
                let index: Vec<String> = v.shape_index.iter().map(ToString::to_string).collect();
                let name = if index.is_empty() {
                    v.instruction.clone()
                } else {
                    format!("{}{{{}}}", v.instruction, index.join(","))
                };
                let here = |n: Option<u64>| n.map_or_else(|| String::from("-"), |n| n.to_string());
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
            let _ = writeln!(s, "  {} ({}){names}", n.description, count(n.count, "instruction"));
        }
        if let Some(bounds) = &p.bounds {
            let range = |x: &xlayout::hlo::Bound| match x.upper {
                Some(u) => format!("between {} and {}", b(x.lower), b(u)),
                None => format!("at least {} (no upper bound: a value has no size)", b(x.lower)),
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
        let _ = writeln!(s, "\nlive at step {} (XLA's list, largest first: {shown}):", p.peak_step);
        let mut rows = vec![[
            "bytes",
            "cumulative",
            "allocated",
            "data",
            "value",
            "opcode",
            "computation",
            "shape",
            "live",
            "op_name",
        ]
        .map(String::from)
        .to_vec()];
        for r in &p.live {
            rows.push(vec![
                b(r.bytes),
                b(r.cumulative_bytes),
                b(r.array_bytes),
                b(r.logical_bytes),
                value_name(r),
                r.opcode.to_string(),
                r.computation.unwrap_or("-").to_string(),
                r.shape.clone(),
                format!("{}-{}", r.start, r.end),
                r.op_name.unwrap_or("-").to_string(),
            ]);
        }
        s += &aligned(&rows, "  ");
    }
    s
}
