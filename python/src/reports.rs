//! `xlayout.hlo`, `xlayout.relayouts` and `xlayout.oom`: the library's reports, as the
//! command's JSON (the library's `Serialize`, one path) and as the HTML a notebook shows.
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
    decode, module_files, Analysis, Module, Peak, PeakOptions, Report, ReportOptions,
    ReportWithPeak, Stage, NOT_HLO,
};
use xlayout::oom::OomReport;

use super::errors::{input_error, py_str, py_strs, py_tuple};

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
/// list cut as `top` and `min_bytes` say, the HTML a notebook shows, and the report's small
/// keys (`module`, `is_scheduled`, `totals`, `size_bytes`) on their own, so that reading
/// them does not parse every instruction's row.
struct Texts {
    report: String,
    peak: String,
    html: String,
    head: String,
}

impl Texts {
    fn into_py<'py>(self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        py_strs(py, &[self.report, self.peak, self.html, self.head])
    }
}

/// The options of one call of `xlayout.hlo`, as the command's `--top` and `--min-bytes`.
#[derive(Clone, Copy)]
struct Cut {
    top: usize,
    min_bytes: u64,
}

/// The module read from `module` (its text, `name` for messages), or `NotHlo` when it is
/// MLIR: the command's one line about it.
fn check_hlo(module: &Module<'_>, name: &str) -> Result<(), Unread> {
    match module.diagnostics.first() {
        Some(d) if d.message == NOT_HLO => Err(Unread::NotHlo(format!("{name}:{d}"))),
        _ => Ok(()),
    }
}

/// One module's report, peak and HTML (added to `page` too, when there is one).
fn module_texts(
    module: &Module<'_>,
    name: &str,
    cut: Cut,
    page: Option<&mut HtmlPage>,
) -> Result<(Texts, u64), Unread> {
    let analysis = Analysis::new(module);
    let options = ReportOptions { top: cut.top, min_bytes: cut.min_bytes, ..Default::default() };
    let report = Report::new(&analysis, options);
    // As `xlayout peak` has it for any module, and for the headline and the page only when
    // the module is scheduled.
    let all = Peak::new(&analysis);
    let peak = module.is_scheduled.then_some(&all);
    let peak_options = PeakOptions { top: cut.top, min_bytes: cut.min_bytes };
    let summary = json(&all.summary(module, &peak_options))?;
    let html_options =
        HtmlOptions { source: name.to_string(), peak: peak_options, ..Default::default() };
    let mut own = HtmlPage::default().with_id_prefix(&ids());
    own.add_with_peak(&report, peak, &html_options);
    if let Some(page) = page {
        page.add_with_peak(&report, peak, &html_options);
    }
    let with_peak = ReportWithPeak::new(&report, peak);
    let size_bytes = with_peak.size_bytes();
    let head = serde_json::json!({
        "module": module.name,
        "is_scheduled": module.is_scheduled,
        "totals": report.totals,
        "size_bytes": size_bytes,
    });
    let texts = Texts {
        report: json(&with_peak)?,
        peak: summary,
        html: own.fragment(),
        head: json(&head)?,
    };
    Ok((texts, size_bytes))
}

/// `xlayout.hlo` of one module's text (`bytes`, called `name`): its [`Texts`] as a tuple
/// (report, peak, html, head).
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
    let texts = py.detach(|| {
        let (text, problems) = decode(bytes);
        let mut module = Module::parse(&text);
        check_hlo(&module, name)?;
        module.add_diagnostics(problems);
        module_texts(&module, name, cut, None).map(|(t, _)| t)
    });
    texts.map_err(|u| u.raise(py))?.into_py(py)
}

/// One module of a dump directory, read: its file, its name, and its texts unless a filter
/// left it out.
type DumpModule = (PathBuf, Option<String>, Option<(Texts, u64)>);

/// Reads every module text after optimizations below `dir`, as `xlayout hlo DIR` does, each
/// reported (those named `only`, when given).
fn read_dump(
    dir: &Path,
    cut: Cut,
    only: Option<&str>,
    page: &mut HtmlPage,
) -> Result<Vec<DumpModule>, Unread> {
    let files = module_files(dir, Stage::After).map_err(|e| Unread::Io(dir.to_path_buf(), e))?;
    let mut modules = Vec::with_capacity(files.len());
    for file in files {
        let bytes = std::fs::read(&file).map_err(|e| Unread::Io(file.clone(), e))?;
        let name = file.display().to_string();
        let (text, problems) = decode(&bytes);
        let mut module = Module::parse(&text);
        check_hlo(&module, &name)?;
        module.add_diagnostics(problems);
        let wanted = only.map_or(true, |o| module.name == Some(o));
        let texts =
            if wanted { Some(module_texts(&module, &name, cut, Some(page))?) } else { None };
        modules.push((file, module.name.map(str::to_string), texts));
    }
    Ok(modules)
}

/// `xlayout.hlo` of a dump directory: every module text after optimizations in it (as
/// `xlayout hlo DIR` reads them), each as `(file, module name, texts or None)` where
/// `texts` is the tuple of [`hlo_report`] for the modules `only` names (all when `None`),
/// those largest first ([`ReportWithPeak::size_bytes`]); and the HTML of them all on one
/// page, largest first, the small ones folded.
#[pyfunction]
#[pyo3(signature = (dir, top, min_bytes, only=None))]
fn hlo_dump<'py>(
    py: Python<'py>,
    dir: PathBuf,
    top: usize,
    min_bytes: u64,
    only: Option<&str>,
) -> PyResult<(Bound<'py, PyTuple>, Bound<'py, PyString>)> {
    let cut = Cut { top, min_bytes };
    let mut page = HtmlPage::default().with_id_prefix(&ids()).largest_first();
    let modules = py.detach(|| read_dump(&dir, cut, only, &mut page));
    let mut modules = modules.map_err(|u| u.raise(py))?;
    // Largest first, as the page shows them; modules of one size in path order.
    modules.sort_by_key(|(_, _, t)| std::cmp::Reverse(t.as_ref().map_or(0, |(_, size)| *size)));
    let mut out = Vec::with_capacity(modules.len());
    for (file, name, texts) in modules {
        let texts = match texts {
            Some((t, _)) => Some(t.into_py(py)?),
            None => None,
        };
        let name = match name {
            Some(n) => py_str(py, &n)?.into_any(),
            None => py.None().into_bound(py),
        };
        let texts = texts.map_or_else(|| py.None().into_bound(py), Bound::into_any);
        let file = py_str(py, &file.display().to_string())?.into_any();
        out.push(py_tuple(py, vec![file, name, texts])?);
    }
    let html = if page_is_empty(&out) { String::new() } else { page.fragment() };
    let modules = py_tuple(py, out.into_iter().map(Bound::into_any).collect())?;
    Ok((modules, py_str(py, &html)?))
}

/// Whether no module was reported (a filter that names none): no page then.
fn page_is_empty(modules: &[Bound<'_, PyTuple>]) -> bool {
    modules.iter().all(|m| m.get_item(2).is_ok_and(|t| t.is_none()))
}

/// What `xlayout.relayouts` needs of one module, as JSON: its name and [`Relayouts`]
/// (`rows`, as `xlayout relayouts --format json` has them, `free`, `moved_bytes`).
///
/// [`Relayouts`]: xlayout::hlo::Relayouts
#[pyfunction]
fn relayouts_report<'py>(
    py: Python<'py>,
    bytes: &[u8],
    name: &str,
) -> PyResult<Bound<'py, PyString>> {
    let out = py.detach(|| {
        let (text, problems) = decode(bytes);
        let mut module = Module::parse(&text);
        check_hlo(&module, name)?;
        module.add_diagnostics(problems);
        let r = xlayout::hlo::Relayouts::new(&module);
        json(&serde_json::json!({
            "module": module.name,
            "instructions": r.rows.len(),
            "free": r.free,
            "moved_bytes": r.moved_bytes,
            "rows": r.rows,
        }))
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
/// reads them.
#[pyfunction]
#[pyo3(name = "module_files")]
fn module_files_of(dir: PathBuf) -> PyResult<Vec<PathBuf>> {
    Ok(module_files(&dir, Stage::After)?)
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
    m.add_function(wrap_pyfunction!(hlo_dump, m)?)?;
    m.add_function(wrap_pyfunction!(oom_report, m)?)?;
    m.add_function(wrap_pyfunction!(relayouts_report, m)?)?;
    m.add_function(wrap_pyfunction!(module_files_of, m)?)?;
    m.add_function(wrap_pyfunction!(iec_bytes, m)?)?;
    Ok(())
}
