//! The loop of the report commands over the modules they read, written once: the files
//! that FILE|DIR|- name ([`ModuleFiles::list`]), each read, parsed and its reading problems
//! said ([`ModuleFiles::each`], all `relayouts` needs), then for `hlo` and `peak` analysed,
//! its peak found, XLA's own files beside it read and compared, and its allocation held to
//! `--budget` ([`ModuleFiles::each_loaded`]). Each command gets a [`Loaded`] module and
//! keeps only what it prints, and what it alone holds to `--max-expansion`.

use std::path::{Path, PathBuf};

use xlayout::draw::{HtmlOptions, HtmlPage};
use xlayout::hlo::{Analysis, Module, Peak, PeakOptions, Report};

use super::args::{Gates, Lists, Modules};
use super::dump::{self, XlaAssignment, XlaLiveRange};
use super::io::{usage, Failure, Stdin};
use super::Status;

/// The module files the FILE|DIR|- arguments name, listed before any is read.
pub struct ModuleFiles {
    files: Vec<PathBuf>,
    /// 1 when a directory had no module text (said on standard error).
    status: Status,
}

/// A module read and parsed, and the name it has in messages.
pub struct Read<'a, 't> {
    pub name: &'a str,
    pub module: &'a Module<'t>,
}

/// A module read, analysed, with its peak and XLA's own files beside it: what `hlo` and
/// `peak` print of it.
pub struct Loaded<'a, 't> {
    pub name: &'a str,
    pub module: &'a Module<'t>,
    pub analysis: &'a Analysis<'a, 't>,
    /// The peak ([`Want::every_peak`]: of every module, or only of a scheduled one).
    pub peak: Option<&'a Peak>,
    /// XLA's buffer assignment, read and held to the prediction.
    pub assignment: Option<&'a XlaAssignment>,
    /// XLA's live ranges, read and held to the peak ([`Want::live_ranges`]).
    pub live_range: Option<&'a XlaLiveRange>,
}

/// What a command asks of each module beyond its analysis.
#[derive(Clone, Copy, Debug)]
pub struct Want {
    /// The peak of every module (its rules not modelled say why an unscheduled one has
    /// none), or only of a scheduled one.
    pub every_peak: bool,
    /// XLA's live ranges beside the module, read and compared with the peak.
    pub live_ranges: bool,
}

impl ModuleFiles {
    /// The files `modules` stand for, each directory replaced by its module text of the
    /// stage asked for; a directory without any is said on standard error (status 1). A
    /// `--buffer-assignment` (`compared`) must have one module to be compared with: a usage
    /// error otherwise, before anything is written.
    pub fn list(modules: &Modules, compared: Option<&Path>) -> Result<ModuleFiles, Failure> {
        let (files, status) = dump::module_inputs(&modules.inputs, modules.stage)?;
        if compared.is_some() && files.len() != 1 {
            return Err(usage(format!(
                "--buffer-assignment compares with one module, and {} module files were given",
                files.len()
            )));
        }
        Ok(ModuleFiles { files, status })
    }

    /// Reads each module, says its reading problems on standard error and hands it to
    /// `each`; the status is 1 when a directory or a module could not all be read, or when
    /// `each` says so.
    pub fn each(
        &self,
        stdin: &mut Stdin<'_>,
        mut each: impl FnMut(&mut Stdin<'_>, &Path, &Read<'_, '_>) -> Result<Status, Failure>,
    ) -> Result<Status, Failure> {
        let mut status = self.status;
        for file in &self.files {
            let (name, text, problems) = dump::read_module(file, stdin)?;
            let mut module = Module::parse(&text);
            module.add_diagnostics(problems);
            status |= dump::diagnostics(&name, &module);
            status |= each(stdin, file, &Read { name: &name, module: &module })?;
        }
        Ok(status)
    }

    /// [`ModuleFiles::each`], each module analysed, its peak as `want` says, XLA's files
    /// beside it (or `--buffer-assignment`) read and compared, its allocation held to
    /// `--budget`: their problems are said on standard error, status 1.
    pub fn each_loaded<L: Lists>(
        &self,
        gates: &Gates<L>,
        want: Want,
        stdin: &mut Stdin<'_>,
        mut each: impl FnMut(&Loaded<'_, '_>) -> Result<Status, Failure>,
    ) -> Result<Status, Failure> {
        self.each(stdin, |stdin, file, read| {
            let (name, module) = (read.name, read.module);
            let analysis = Analysis::new(module);
            let peak = (want.every_peak || module.is_scheduled).then(|| Peak::new(&analysis));
            let mut status = 0;
            let (assignment, live_range) = dump::beside(file, gates.buffer_assignment.as_deref());
            let live_range = match (want.live_ranges, &peak) {
                (true, Some(p)) => dump::live_range(live_range, stdin, p, &mut status)?,
                _ => None,
            };
            let predicted = peak.as_ref().map(|p| &p.assignment);
            let assignment =
                dump::assignment(assignment, stdin, &analysis, predicted, name, &mut status)?;
            if let Some(budget) = gates.budget {
                status |= dump::check_budget(name, budget, module, peak.as_ref());
            }
            let loaded = Loaded {
                name,
                module,
                analysis: &analysis,
                peak: peak.as_ref(),
                assignment: assignment.as_ref(),
                live_range: live_range.as_ref(),
            };
            Ok(status | each(&loaded)?)
        })
    }
}

impl Loaded<'_, '_> {
    /// Adds the module's section to `page`: `report`, the peak with the values of its live
    /// list that `peak` keeps, and XLA's own allocation total when its file was read.
    pub fn add_to(&self, page: &mut HtmlPage, report: &Report<'_, '_>, peak: PeakOptions) {
        let options = HtmlOptions {
            source: self.name.to_string(),
            xla_allocated_bytes: self.assignment.map(|x| x.memory_analysis.allocated_bytes),
            peak,
            ..HtmlOptions::default()
        };
        page.add_with_peak(report, self.peak, &options);
    }
}
