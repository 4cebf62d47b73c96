//! `xlayout.hlo`, `xlayout.relayouts` and `xlayout.oom`: the library's reports, as the
//! command's JSON (the library's `Serialize`, one path) and as the HTML a notebook shows.
//! An HLO module's page is made by its own function ([`hlo_html`], [`hlo_dump_html`]) when
//! a notebook shows it, not with the report: a page is several times the size of what it
//! shows, and a report that is never shown should not cost it.
//! Input with nothing to read in it raises as the command exits 1: MLIR where HLO module text
//! is read (`NotHlo`, with the library's hint), text without an out-of-memory report
//! (`NoOomReport`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use xlayout::draw::{self, HtmlOptions, HtmlPage};
use xlayout::hlo::{
    decode, module_files, Analysis, ComputationNames, Module, Peak, PeakOptions, Report,
    ReportOptions, ReportWithPeak, Stage, NOT_HLO,
};
use xlayout::oom::OomReport;

use super::args;
use super::errors::{input_error, py_path, py_str, py_strs, py_tuple};

/// Why a module or a report was not read.
enum Unread {
    /// MLIR, not HLO module text: the command's line about it (`name:line: hint`).
    NotHlo(String),
    /// No out-of-memory report in the text (`name: no out-of-memory report found`).
    NoOomReport(String),
    /// A file of a dump directory that cannot be read.
    Io(PathBuf, std::io::Error),
    /// A report that did not serialize: a bug, reported rather than hidden.
    Json(String),
}

impl Unread {
    fn raise(self, py: Python<'_>) -> PyErr {
        match self {
            Unread::NotHlo(message) => input_error(py, "NotHlo", &message),
            Unread::NoOomReport(message) => input_error(py, "NoOomReport", &message),
            // Python's own OSError subclass for the error (FileNotFoundError, ...), naming
            // the file.
            Unread::Io(path, e) => {
                let err = PyErr::from(e);
                let _ = err.value(py).setattr("filename", path.display().to_string());
                err
            }
            Unread::Json(message) => PyRuntimeError::new_err(message),
        }
    }
}

/// A report type as JSON, as the command's `--format json` writes it.
fn json<T: serde::Serialize>(value: &T) -> Result<String, Unread> {
    // The report types always serialize (the fuzz targets check it).
    serde_json::to_string(value).map_err(|e| Unread::Json(e.to_string()))
}

/// Ids of the HTML of one report: each report shown in a notebook gets its own, so that its
/// links lead to its own elements.
fn ids() -> String {
    static SHOWN: AtomicU64 = AtomicU64::new(0);
    format!("x{}-", SHOWN.fetch_add(1, Ordering::Relaxed))
}

/// What `xlayout.hlo` keeps of one module, as the command's JSON: the report (`xlayout hlo
/// --format json`'s object per file, without `file` and XLA's buffer assignment), the peak
/// (`xlayout peak`'s, without `file`, `module`, `scheduled` and XLA's dumps) with its live
/// list cut as `top` and `min_bytes` say, and the report's small keys (`module`,
/// `is_scheduled`, `totals`, `size_bytes`) on their own, so that reading them does not
/// parse every instruction's row. No page: [`hlo_html`] makes it when it is shown.
struct Texts {
    report: String,
    peak: String,
    head: String,
}

impl Texts {
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        py_strs(py, &[self.report, self.peak, self.head])
    }
}

/// The options of one call of `xlayout.hlo`, as the command's `--top` and `--min-bytes`.
#[derive(Clone, Copy)]
struct Cut {
    top: usize,
    min_bytes: u64,
}

impl Cut {
    /// The peak's live list cut so.
    fn peak(self) -> PeakOptions {
        PeakOptions { top: self.top, min_bytes: self.min_bytes }
    }
}

/// The module read from `module` (its text, `name` for messages), or `NotHlo` when it is
/// MLIR: the command's one line about it.
fn check_hlo(module: &Module<'_>, name: &str) -> Result<(), Unread> {
    match module.diagnostics.first() {
        Some(d) if d.message == NOT_HLO => Err(Unread::NotHlo(format!("{name}:{d}"))),
        _ => Ok(()),
    }
}

/// The module in `bytes` (called `name`), read as the command reads a file (bytes that are
/// not UTF-8 as it reads them, MLIR refused with its line), for `work`.
fn read<T>(
    bytes: &[u8],
    name: &str,
    work: impl FnOnce(&Module<'_>) -> Result<T, Unread>,
) -> Result<T, Unread> {
    let (text, problems) = decode(bytes);
    let mut module = Module::parse(&text);
    check_hlo(&module, name)?;
    module.add_diagnostics(problems);
    work(&module)
}

/// `module` analysed as `xlayout hlo` and `xlayout peak` analyse it, for `work`: its report
/// (cut as `cut` says), its peak as `xlayout peak` has it for any module, and the peak that
/// the headline and the page show (only when the module is scheduled). What a module's
/// texts and its page both start from.
fn analysed<T>(
    module: &Module<'_>,
    cut: Cut,
    work: impl FnOnce(&Report<'_, '_>, &Peak, Option<&Peak>) -> T,
) -> T {
    let analysis = Analysis::new(module);
    let options = ReportOptions { top: cut.top, min_bytes: cut.min_bytes, ..Default::default() };
    let report = Report::new(&analysis, options);
    let all = Peak::new(&analysis);
    work(&report, &all, module.is_scheduled.then_some(&all))
}

/// One module's [`Texts`], and its size ([`ReportWithPeak::size_bytes`]).
fn module_texts(module: &Module<'_>, cut: Cut) -> Result<(Texts, u64), Unread> {
    analysed(module, cut, |report, all, peak| {
        let summary = json(&all.summary(module, &cut.peak()))?;
        let with_peak = ReportWithPeak::new(report, peak);
        let size_bytes = with_peak.size_bytes();
        let head = serde_json::json!({
            "module": module.name,
            "is_scheduled": module.is_scheduled,
            "totals": report.totals,
            "size_bytes": size_bytes,
        });
        let texts = Texts { report: json(&with_peak)?, peak: summary, head: json(&head)? };
        Ok((texts, size_bytes))
    })
}

/// Adds the section of one module (its file called `name`) to `page`: `xlayout hlo
/// --html`'s, the same report and peak as [`module_texts`]'.
fn add_section(page: &mut HtmlPage, module: &Module<'_>, name: &str, cut: Cut) {
    analysed(module, cut, |report, _, peak| {
        let options =
            HtmlOptions { source: name.to_string(), peak: cut.peak(), ..Default::default() };
        page.add_with_peak(report, peak, &options);
    });
}

/// `xlayout.hlo` of one module's text (`bytes`, called `name`): its [`Texts`] as a tuple
/// (report, peak, head). The page is [`hlo_html`]'s, made only when a notebook shows it.
#[pyfunction]
fn hlo_report<'py>(
    py: Python<'py>,
    // Borrowed from the `bytes` object: a 100 MB dump is not copied element by element.
    bytes: &[u8],
    name: &str,
    top: usize,
    min_bytes: u64,
) -> PyResult<Bound<'py, PyTuple>> {
    let cut = Cut { top, min_bytes };
    let texts = py.detach(|| read(bytes, name, |m| module_texts(m, cut).map(|(t, _)| t)));
    texts.map_err(|u| u.raise(py))?.into_py(py)
}

/// The HTML page of one module (`xlayout hlo --html`'s, as a fragment with its own ids),
/// titled `name`, for a notebook to show: made when it is shown, not with the report.
#[pyfunction]
fn hlo_html<'py>(
    py: Python<'py>,
    bytes: &[u8],
    name: &str,
    top: usize,
    min_bytes: u64,
) -> PyResult<Bound<'py, PyString>> {
    let cut = Cut { top, min_bytes };
    let html = py.detach(|| {
        read(bytes, name, |module| {
            let mut page = HtmlPage::default().with_id_prefix(&ids());
            add_section(&mut page, module, name, cut);
            Ok(page.fragment())
        })
    });
    py_str(py, &html.map_err(|u| u.raise(py))?)
}

/// Every module text after optimizations below `dir`, as `xlayout hlo DIR` reads them, each
/// given to `each` with its file and the file's name for messages.
fn each_dump_module(
    dir: &Path,
    mut each: impl FnMut(&Path, &str, &Module<'_>) -> Result<(), Unread>,
) -> Result<(), Unread> {
    let files = module_files(dir, Stage::After).map_err(|e| Unread::Io(dir.to_path_buf(), e))?;
    for file in files {
        let bytes = std::fs::read(&file).map_err(|e| Unread::Io(file.clone(), e))?;
        let name = file.display().to_string();
        read(&bytes, &name, |module| each(&file, &name, module))?;
    }
    Ok(())
}

/// One module of a dump directory, read: its file, its name, and its texts unless a filter
/// left it out.
type DumpModule = (PathBuf, Option<String>, Option<(Texts, u64)>);

/// Every module of the dump directory `dir`, each reported (those named `only`, when given).
fn read_dump(dir: &Path, cut: Cut, only: Option<&str>) -> Result<Vec<DumpModule>, Unread> {
    let mut modules = Vec::new();
    each_dump_module(dir, |file, _, module| {
        let wanted = only.map_or(true, |o| module.name == Some(o));
        let texts = if wanted { Some(module_texts(module, cut)?) } else { None };
        modules.push((file.to_path_buf(), module.name.map(str::to_string), texts));
        Ok(())
    })?;
    Ok(modules)
}

/// `xlayout.hlo` of a dump directory: every module text after optimizations in it (as
/// `xlayout hlo DIR` reads them), each as `(file, module name, texts or None)` where
/// `texts` is the tuple of [`hlo_report`] for the modules `only` names (all when `None`),
/// those largest first ([`ReportWithPeak::size_bytes`]). The page of them all is
/// [`hlo_dump_html`]'s, made only when a notebook shows it.
#[pyfunction]
#[pyo3(signature = (dir, top, min_bytes, only=None))]
fn hlo_dump<'py>(
    py: Python<'py>,
    dir: &Bound<'py, PyAny>,
    top: usize,
    min_bytes: u64,
    only: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (dir, cut) = (args::path(dir)?, Cut { top, min_bytes });
    let modules = py.detach(|| read_dump(&dir, cut, only));
    let mut modules = modules.map_err(|u| u.raise(py))?;
    // Largest first, as the page shows them; modules of one size in path order.
    modules.sort_by_key(|(_, _, t)| std::cmp::Reverse(t.as_ref().map_or(0, |(_, size)| *size)));
    let mut out = Vec::with_capacity(modules.len());
    for (file, name, texts) in modules {
        let texts = match texts {
            Some((t, _)) => t.into_py(py)?.into_any(),
            None => py.None().into_bound(py),
        };
        let name = match name {
            Some(n) => py_str(py, &n)?.into_any(),
            None => py.None().into_bound(py),
        };
        let file = py_path(py, &file)?;
        out.push(py_tuple(py, vec![file, name, texts])?.into_any());
    }
    py_tuple(py, out)
}

/// The page of the dump directory `dir` (`xlayout hlo DIR --html`'s modules, as a fragment
/// with its own ids): every module largest first, the largest open and the others folded.
/// Made when a notebook shows it, from the directory read again: the reports keep no
/// module text.
#[pyfunction]
fn hlo_dump_html<'py>(
    py: Python<'py>,
    dir: &Bound<'py, PyAny>,
    top: usize,
    min_bytes: u64,
) -> PyResult<Bound<'py, PyString>> {
    let (dir, cut) = (args::path(dir)?, Cut { top, min_bytes });
    let html = py.detach(|| {
        let mut page = HtmlPage::default().with_id_prefix(&ids()).largest_first();
        each_dump_module(&dir, |_, name, module| {
            add_section(&mut page, module, name, cut);
            Ok(())
        })?;
        Ok(page.fragment())
    });
    py_str(py, &html.map_err(|u: Unread| u.raise(py))?)
}

/// What `xlayout.relayouts` needs of one module, as JSON: its name and [`Relayouts`]
/// (`rows`, as `xlayout relayouts --format json` has them, `free`, `moved_bytes`, and the
/// names of the computations that the rows give by number).
///
/// [`Relayouts`]: xlayout::hlo::Relayouts
#[pyfunction]
fn relayouts_report<'py>(
    py: Python<'py>,
    bytes: &[u8],
    name: &str,
) -> PyResult<Bound<'py, PyString>> {
    let out = py.detach(|| {
        read(bytes, name, |module| {
            let r = xlayout::hlo::Relayouts::new(module);
            json(&serde_json::json!({
                "module": module.name,
                "instructions": r.rows.len(),
                "free": r.free,
                "moved_bytes": r.moved_bytes,
                "rows": r.rows,
                "computations": ComputationNames(module),
            }))
        })
    });
    py_str(py, &out.map_err(|u| u.raise(py))?)
}

/// The out-of-memory report in `bytes` (called `name`), as the command's JSON (`xlayout oom
/// --format json`'s object per report, without `file` and `hlo`) and as HTML; bytes that
/// are not UTF-8 are read as the command reads them. Text with no report in it raises, as
/// the command exits 1 for it.
#[pyfunction]
fn oom_report<'py>(py: Python<'py>, bytes: &[u8], name: &str) -> PyResult<Bound<'py, PyTuple>> {
    let texts = py.detach(|| {
        let report = OomReport::from_bytes(bytes);
        if !report.found() {
            let why = report.missing().unwrap_or_default();
            return Err(Unread::NoOomReport(format!("{name}: {why}")));
        }
        Ok([json(&report)?, draw::oom_html(&report)])
    });
    py_strs(py, &texts.map_err(|u| u.raise(py))?)
}

/// The module texts after optimizations in the dump directory `dir`, as `xlayout hlo DIR`
/// reads them: a tuple of paths.
#[pyfunction]
#[pyo3(name = "module_files")]
fn module_files_of<'py>(py: Python<'py>, dir: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let dir = args::path(dir)?;
    let files = py.detach(|| module_files(&dir, Stage::After))?;
    let files = files.iter().map(|f| py_path(py, f)).collect::<PyResult<Vec<_>>>()?;
    py_tuple(py, files)
}

/// `n` bytes as the HTML reports print sizes (XLA's `HumanReadableNumBytes`: `256.0KiB`,
/// `1.69MiB`, `512B`), for the text beside them.
#[pyfunction]
fn iec_bytes(py: Python<'_>, n: u64) -> PyResult<Bound<'_, PyString>> {
    py_str(py, &xlayout::hlo::units::iec_bytes(n))
}

/// Adds this file's functions to the extension module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hlo_report, m)?)?;
    m.add_function(wrap_pyfunction!(hlo_html, m)?)?;
    m.add_function(wrap_pyfunction!(hlo_dump, m)?)?;
    m.add_function(wrap_pyfunction!(hlo_dump_html, m)?)?;
    m.add_function(wrap_pyfunction!(oom_report, m)?)?;
    m.add_function(wrap_pyfunction!(relayouts_report, m)?)?;
    m.add_function(wrap_pyfunction!(module_files_of, m)?)?;
    m.add_function(wrap_pyfunction!(iec_bytes, m)?)?;
    Ok(())
}
