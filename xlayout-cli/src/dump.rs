//! What the report commands say of a module file beside its report: the module files that
//! FILE|DIR|- name, a module's reading problems on standard error, XLA's own files beside it
//! (buffer assignment, live ranges) read and held to the prediction, the allocation held to
//! `--budget`, the headline's lines about them, and the HTML page. No analysis happens
//! here.

use std::path::{Path, PathBuf};

use serde::Serialize;
use xlayout::draw::HtmlPage;
use xlayout::hlo::xla::{
    dumps_beside, size_differences, BufferAssignment, LiveRangeDump, MemoryAnalysis, SizeDifference,
};
use xlayout::hlo::{
    decode_owned, module_files, units, Analysis, Assignment, Diagnostic, Module, Peak, Rule, Stage,
};

use super::args::{Format, Stage as StageArg, Units};
use super::io::{self, usage, Failure, Out, Stdin};
use super::output::{both, human, warn};
use super::Status;

/// The files FILE|DIR|- arguments stand for: each directory replaced by its module text of
/// `stage`; status 1 (said on standard error) for a directory without any.
pub fn module_inputs(
    inputs: &[PathBuf],
    stage: StageArg,
) -> Result<(Vec<PathBuf>, Status), Failure> {
    let picked = match stage {
        StageArg::After => Stage::After,
        StageArg::Before => Stage::Before,
        StageArg::All => Stage::All,
    };
    let mut status = 0;
    let mut files: Vec<PathBuf> = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let found = io::list_dir(input, |d| module_files(d, picked))?;
            if found.is_empty() {
                status = 1;
                warn(format_args!(
                    "{}: no module text of stage {picked} here (see --stage)",
                    input.display(),
                ));
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    Ok((files, status))
}

/// Says each reading problem of `module` (read from `name`) on standard error: 1 if any.
pub fn diagnostics(name: &str, module: &Module<'_>) -> Status {
    problems(name, &module.diagnostics)
}

/// Says each line of `name` that could not be read on standard error, `name:line: message`
/// (a module's diagnostics, XLA's files', an out-of-memory report's): 1 if any.
pub fn problems(name: &str, problems: &[impl std::fmt::Display]) -> Status {
    for p in problems {
        warn(format_args!("{name}:{p}"));
    }
    Status::from(!problems.is_empty())
}

/// XLA's buffer assignment (`*-buffer-assignment.txt`) and live ranges beside module `file`,
/// or the assignment `--buffer-assignment` names.
pub fn beside(file: &Path, assignment: Option<&Path>) -> (Option<PathBuf>, Option<PathBuf>) {
    if file == Path::new("-") {
        return (assignment.map(Path::to_path_buf), None);
    }
    dumps_beside(file, assignment)
}

/// XLA's file at `path` (beside the module, or named with `--buffer-assignment`), if there
/// is one: its name and what `parse` reads in its text, whose `problems` are said on
/// standard error (status 1). A file that cannot be read is a failure.
fn read_beside<T>(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
    status: &mut Status,
    parse: impl FnOnce(&str) -> T,
    unread: impl FnOnce(&T) -> &[Diagnostic],
) -> Result<Option<(String, T)>, Failure> {
    let Some(path) = path else { return Ok(None) };
    let (file, bytes) = io::read_file(&path, stdin)?;
    let read = parse(&decode_owned(bytes).0);
    *status |= problems(&file, unread(&read));
    Ok(Some((file, read)))
}

/// XLA's own peak, read from its live-range file, next to the project's.
#[derive(Serialize)]
pub struct XlaLiveRange {
    pub file: String,
    pub steps: Option<u64>,
    pub peak_step: Option<u64>,
    pub peak_bytes: Option<u64>,
    /// Whether XLA's step and bytes are the project's.
    pub agrees: bool,
}

/// Reads XLA's live ranges at `path` (their problems on standard error, status 1) and holds
/// `peak` to them.
pub fn live_range(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
    peak: &Peak,
    status: &mut Status,
) -> Result<Option<XlaLiveRange>, Failure> {
    let read = read_beside(path, stdin, status, LiveRangeDump::parse, |d| &d.problems)?;
    Ok(read.map(|(file, d)| {
        let agrees =
            d.peak_step == Some(u64::from(peak.xla.step)) && d.peak_bytes() == Some(peak.xla.bytes);
        XlaLiveRange {
            file,
            steps: d.max,
            peak_step: d.peak_step,
            peak_bytes: d.peak_bytes(),
            agrees,
        }
    }))
}

/// XLA's buffer assignment of a module: its totals, whether the prediction agrees, and the
/// values it sizes differently.
#[derive(Serialize)]
pub struct XlaAssignment {
    pub file: String,
    pub allocations: usize,
    /// The sum of its allocations' sizes (constants and thread-local ones included).
    pub total_bytes: u64,
    /// `memory_analysis()` as its allocations give it.
    pub memory_analysis: MemoryAnalysis,
    /// Whether the predicted `memory_analysis()` is the same (none without a prediction).
    pub agrees: Option<bool>,
    pub values: usize,
    pub size_differences: Vec<SizeDifference>,
}

/// Reads the buffer assignment at `path` (its problems on standard error, status 1) and
/// holds the prediction of module `name` to it: a prediction that follows every rule and
/// differs from XLA's is said on standard error, status 1.
pub fn assignment(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
    analysis: &Analysis<'_, '_>,
    predicted: Option<&Assignment>,
    name: &str,
    status: &mut Status,
) -> Result<Option<XlaAssignment>, Failure> {
    let read = read_beside(path, stdin, status, BufferAssignment::parse, |b| &b.problems)?;
    Ok(read.map(|(file, b)| {
        let xla = b.memory_analysis(&analysis.module.input_output_alias);
        let agrees = predicted.map(|a| a.memory_analysis() == xla);
        if let (Some(false), Some(a)) = (agrees, predicted.filter(|a| a.exact())) {
            *status = 1;
            let ours = a.memory_analysis();
            warn(format_args!(
                "{name}: the predicted allocation is not XLA's ({file}): {} bytes predicted \
                 (arguments {} + outputs {} - aliased {} + temporaries {}), {} in XLA's \
                 ({} + {} - {} + {})",
                ours.allocated_bytes,
                ours.argument_bytes,
                ours.output_bytes,
                ours.alias_bytes,
                ours.temp_bytes,
                xla.allocated_bytes,
                xla.argument_bytes,
                xla.output_bytes,
                xla.alias_bytes,
                xla.temp_bytes
            ));
        }
        XlaAssignment {
            file,
            allocations: b.allocations.len(),
            total_bytes: b.total_bytes(),
            memory_analysis: xla,
            agrees,
            values: b.allocations.iter().map(|a| a.values.len()).sum(),
            size_differences: size_differences(&b, analysis),
        }
    }))
}

/// Holds what a module allocates (XLA:CPU's buffer assignment, predicted) to `--budget`: 1
/// (and a line on standard error saying which figure and by how much) when it is above;
/// where a rule is not modelled, when its bounds do not keep it under; and when the module
/// has no allocation yet: it is not scheduled, or it has no ENTRY computation (nothing runs,
/// so its figure of 0 bytes is no allocation that holds).
pub fn check_budget(name: &str, budget: u64, module: &Module<'_>, peak: Option<&Peak>) -> Status {
    let Some(peak) = peak.filter(|_| module.is_scheduled) else {
        warn(format_args!(
            "{name}: not scheduled (no is_scheduled=true): there is no allocation to hold to \
             --budget {budget}; give the module as XLA compiled it (its after-optimizations text)"
        ));
        return 1;
    };
    if peak.not_modelled.iter().any(|n| n.rule == Rule::NoEntry) {
        warn(format_args!(
            "{name}: no ENTRY computation: nothing runs, so there is no allocation to hold to \
             --budget {budget}; give the whole module as XLA compiled it (its after-optimizations \
             text)"
        ));
        return 1;
    }
    let a = &peak.assignment;
    let over = |what: &str, bytes: u64| {
        warn(format_args!(
            "{name}: {what} {} is {} over --budget {}",
            bytes_said(bytes),
            bytes_said(bytes - budget),
            bytes_said(budget)
        ));
    };
    match a.bounds.filter(|_| !a.exact()) {
        None if a.allocated_bytes > budget => {
            over("allocated (XLA:CPU's buffer assignment, predicted)", a.allocated_bytes);
            1
        }
        None => 0,
        Some(b) if b.lower > budget => {
            over("allocated at least (a rule is not modelled)", b.lower);
            1
        }
        Some(b) if b.upper.is_some_and(|u| u <= budget) => 0,
        Some(b) => {
            let upper = b.upper.map_or_else(
                || String::from("no upper bound"),
                |u| format!("at most {}", bytes_said(u)),
            );
            let rules: Vec<&str> = a.not_modelled.iter().map(|n| n.rule.describe()).collect();
            warn(format_args!(
                "{name}: allocated may exceed --budget {}: at least {}, {upper}, as rules are not \
                 modelled ({})",
                bytes_said(budget),
                bytes_said(b.lower),
                rules.join("; ")
            ));
            1
        }
    }
}

/// A count of bytes for a message: exact, singular for one, with its rounded form beside it
/// only where that says something more (`1 byte`, `1000 bytes`, `2048 bytes (2.00K)`).
fn bytes_said(n: u64) -> String {
    match n {
        1 => String::from("1 byte"),
        0..1024 => format!("{n} bytes"),
        _ => format!("{n} bytes ({})", units::oom_bytes(n)),
    }
}

/// The headline of a module's memory, for the tables: what XLA:CPU allocates (predicted),
/// with its parts, or where it lies when a rule is not modelled.
pub fn allocation_line(a: &Assignment, unit: Units) -> String {
    let parts = format!(
        "arguments {} + outputs {} - aliased {} + temporaries {}",
        human(unit, a.argument_bytes),
        human(unit, a.output_bytes),
        human(unit, a.alias_bytes),
        human(unit, a.temp_bytes)
    );
    match a.bounds.filter(|_| !a.exact()) {
        None => format!(
            "allocated: {} = {parts}, XLA:CPU's buffer assignment predicted from the module\n",
            both(unit, a.allocated_bytes)
        ),
        Some(b) => {
            let upper = b.upper.map_or_else(|| String::from("no upper bound"), |u| human(unit, u));
            let rules: Vec<&str> = a.not_modelled.iter().map(|n| n.rule.describe()).collect();
            format!(
                "allocated: between {} and {upper}; not modelled: {}; as modelled, {} = \
                 {parts}\n",
                human(unit, b.lower),
                rules.join("; "),
                both(unit, a.allocated_bytes)
            )
        }
    }
}

/// What XLA's buffer assignment beside a module says, against the prediction.
pub fn xla_assignment_line(x: &XlaAssignment, unit: Units) -> String {
    let verdict = match x.agrees {
        Some(true) => "the same as predicted",
        Some(false) => "NOT the same as predicted",
        None => "no prediction to compare",
    };
    let m = &x.memory_analysis;
    format!(
        "XLA's buffer assignment ({}): {} allocations, allocated {} = arguments {} + outputs {} \
         - aliased {} + temporaries {}: {verdict}\n",
        x.file,
        x.allocations,
        both(unit, m.allocated_bytes),
        human(unit, m.argument_bytes),
        human(unit, m.output_bytes),
        human(unit, m.alias_bytes),
        human(unit, m.temp_bytes)
    )
}

/// Runs `write` (which writes the command's --format output to the `Out` it is given and
/// adds each module to the page, if there is one) and writes the `--html` page to `html`;
/// for `--html -` the page is the output, and what --format would write goes nowhere, so
/// an explicit `--format` beside it is a usage error (the page cannot be both).
pub fn with_page(
    html: Option<&Path>,
    format: Option<Format>,
    out: &mut Out<'_>,
    write: impl FnOnce(&mut Out<'_>, &mut Option<HtmlPage>) -> Result<Status, Failure>,
) -> Result<Status, Failure> {
    if let Some(format) = format.filter(|_| html == Some(Path::new("-"))) {
        let format = format!("{format:?}").to_lowercase();
        return Err(usage(format!(
            "--html - writes the page to standard output, where --format {format} would write \
             too: give the page a file (`--html report.html`), or leave out --format"
        )));
    }
    let mut page = html.map(|_| HtmlPage::default());
    let status = if html == Some(Path::new("-")) {
        let mut nowhere = std::io::sink();
        write(&mut Out::new(&mut nowhere), &mut page)?
    } else {
        write(out, &mut page)?
    };
    if let (Some(path), Some(page)) = (html, page) {
        io::write_file(path, &page.finish(), out)?;
    }
    Ok(status)
}

/// The name (for messages) and text of a module file, with what was not UTF-8 in it as
/// diagnostics for [`Module::add_diagnostics`].
pub fn read_module(
    file: &Path,
    stdin: &mut Stdin<'_>,
) -> Result<(String, String, Vec<Diagnostic>), Failure> {
    let (name, bytes) = io::read_file(file, stdin)?;
    let (text, problems) = decode_owned(bytes);
    Ok((name, text, problems))
}
