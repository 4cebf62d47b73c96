//! What `hlo` and `peak` share of a module they read: its reading problems on standard
//! error, XLA's own files beside it, the peak held to `--budget`, and the HTML page. No
//! analysis happens here.

use std::path::{Path, PathBuf};

use serde::Serialize;
use xlayout::draw::HtmlPage;
use xlayout::hlo::{
    decode, dumps_beside, size_differences, units, Analysis, BufferAssignment, Diagnostic, Module,
    Peak, Rule, SizeDifference,
};

use super::args::Format;
use super::io::{self, Failure, Out, Stdin};
use super::output::warn;
use super::Status;

/// Says each reading problem of `module` (read from `name`) on standard error: 1 if any.
pub fn diagnostics(name: &str, module: &Module<'_>) -> Status {
    for d in &module.diagnostics {
        warn(format_args!("{name}:{d}"));
    }
    Status::from(!module.diagnostics.is_empty())
}

/// A usage error with clap's look (`error: ...`, exit status 2).
pub fn usage(message: String) -> Failure {
    Failure::Usage(clap::Error::raw(clap::error::ErrorKind::ArgumentConflict, message + "\n"))
}

/// `--buffer-assignment FILE` names the assignment of one module.
pub fn one_module(assignment: &Option<PathBuf>, files: &[PathBuf]) -> Result<(), Failure> {
    if assignment.is_some() && files.len() != 1 {
        return Err(usage(format!(
            "--buffer-assignment compares with one module, and {} module files were given",
            files.len()
        )));
    }
    Ok(())
}

/// XLA's buffer assignment (`*-buffer-assignment.txt`) and live ranges beside module `file`,
/// or the assignment `--buffer-assignment` names.
pub fn beside(file: &Path, assignment: Option<&Path>) -> (Option<PathBuf>, Option<PathBuf>) {
    if file == Path::new("-") {
        return (assignment.map(Path::to_path_buf), None);
    }
    dumps_beside(file, assignment)
}

/// The name and text of a file beside the module, if there is one; a file named with
/// `--buffer-assignment` that cannot be read is a failure.
pub fn read_beside(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
) -> Result<Option<(String, String)>, Failure> {
    let Some(path) = path else { return Ok(None) };
    let (name, bytes) = io::read_file(&path, stdin)?;
    Ok(Some((name, decode(&bytes).0.into_owned())))
}

/// XLA's buffer assignment of a module and the values it sizes differently.
#[derive(Serialize)]
pub struct XlaAssignment {
    pub file: String,
    pub allocations: usize,
    /// The sum of its allocations' sizes: what XLA allocates for the program.
    pub total_bytes: u64,
    pub values: usize,
    pub size_differences: Vec<SizeDifference>,
}

/// Reads the buffer assignment at `path` (its problems on standard error, status 1).
pub fn assignment(
    path: Option<PathBuf>,
    stdin: &mut Stdin<'_>,
    analysis: &Analysis<'_, '_>,
    status: &mut Status,
) -> Result<Option<XlaAssignment>, Failure> {
    Ok(read_beside(path, stdin)?.map(|(file, text)| {
        let b = BufferAssignment::parse(&text);
        for p in &b.problems {
            *status = 1;
            warn(format_args!("{file}:{}: {}", p.line, p.message));
        }
        XlaAssignment {
            file,
            allocations: b.allocations.len(),
            total_bytes: b.total_bytes(),
            values: b.allocations.iter().map(|a| a.values.len()).sum(),
            size_differences: size_differences(&b, analysis),
        }
    }))
}

/// Holds a module's peak to `--budget`: 1 (and a line on standard error saying by how
/// much) when it is above, or when the module has no peak: it is not scheduled, or it has no
/// ENTRY computation (nothing runs, so its figure of 0 bytes is no peak that holds).
pub fn check_budget(name: &str, budget: u64, module: &Module<'_>, peak: Option<&Peak>) -> Status {
    let Some(peak) = peak.filter(|_| module.is_scheduled) else {
        warn(format_args!(
            "{name}: not scheduled (no is_scheduled=true): there is no peak to hold to --budget \
             {budget}; give the module as XLA compiled it (its after-optimizations text)"
        ));
        return 1;
    };
    if peak.not_modelled.iter().any(|n| n.rule == Rule::NoEntry) {
        warn(format_args!(
            "{name}: no ENTRY computation: nothing runs, so there is no peak to hold to --budget \
             {budget}; give the whole module as XLA compiled it (its after-optimizations text)"
        ));
        return 1;
    }
    let bytes = peak.xla.bytes;
    if bytes <= budget {
        return 0;
    }
    let at = peak
        .xla
        .instruction
        .map_or_else(String::new, |i| format!(" ({})", module.instructions[i].name));
    warn(format_args!(
        "{name}: peak {bytes} bytes ({}) at step {}{at} is {} bytes ({}) over --budget {budget} ({})",
        units::oom_bytes(bytes),
        peak.xla.step,
        bytes - budget,
        units::oom_bytes(bytes - budget),
        units::oom_bytes(budget)
    ));
    1
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
    let (text, problems) = decode(&bytes);
    Ok((name, text.into_owned(), problems))
}
