//! Dump directories: which of the files XLA writes with `--xla_dump_to` hold module text.
//!
//! XLA names them `module_NNNN.<name>.before_optimizations.txt` and
//! `module_NNNN.<name>.<platform>_after_optimizations.txt` (`cpu_`, `sm_8.0_gpu_`, ...);
//! beside them are reports that are not module text (`-buffer-assignment.txt`,
//! `-memory-usage-report.txt`, `-live-range.txt`) and other formats (`.dot`, `.ll`, `.pb`).

use std::io;
use std::path::{Path, PathBuf};

/// Which module text of a dump to read.
///
/// ```
/// use xlayout::hlo::Stage;
/// assert!(Stage::After.matches("module_0001.jit_f.sm_8.0_gpu_after_optimizations.txt"));
/// assert!(!Stage::After.matches("module_0001.jit_f.before_optimizations.txt"));
/// assert!(Stage::All.matches("module_0001.jit_f.0004.simplification.after_algsimp.txt"));
/// assert!(!Stage::All.matches("module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// `*after_optimizations.txt`: the compiled module, with the layouts that are allocated.
    After,
    /// `*before_optimizations.txt`: the module as the framework handed it to XLA.
    Before,
    /// Every `*.txt` that is not one of XLA's reports (pass-by-pass dumps included).
    All,
}

/// Writes [`Stage::as_str`].
impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Parts of the names of the text files XLA writes beside module text that are not module
/// text.
const REPORTS: [&str; 7] = [
    "buffer-assignment",
    "buffer_assignment",
    "memory-usage-report",
    "memory_usage_report",
    "live-range",
    "live_range",
    "-schedule",
];

impl Stage {
    /// The stage's name, as `--stage` takes it (`"after"`, `"before"`, `"all"`): a stable
    /// name, kept for as long as the stage exists.
    ///
    /// ```
    /// use xlayout::hlo::Stage;
    /// assert_eq!(Stage::After.as_str(), "after");
    /// assert_eq!(Stage::All.to_string(), "all");
    /// ```
    pub const fn as_str(self) -> &'static str {
        // No `_` arm: a new stage does not compile until it is given its name here.
        match self {
            Stage::After => "after",
            Stage::Before => "before",
            Stage::All => "all",
        }
    }

    /// Whether a file called `name` holds module text of this stage.
    pub fn matches(self, name: &str) -> bool {
        if !name.ends_with(".txt") || REPORTS.iter().any(|r| name.contains(r)) {
            return false;
        }
        match self {
            Stage::After => name.ends_with("after_optimizations.txt"),
            Stage::Before => name.ends_with("before_optimizations.txt"),
            Stage::All => true,
        }
    }
}

/// Directories nest at most this deep below the one given (a dump is flat; a tree of dumps
/// has a level or two).
const MAX_DEPTH: usize = 8;

/// The files below `dir` (in subdirectories too, symbolic links not followed) that hold
/// module text of `stage`, in path order.
///
/// ```
/// use xlayout::hlo::{module_files, Stage};
/// let dir = std::env::temp_dir().join(format!("xlayout-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("b"))?;
/// for f in ["b/m.after_optimizations.txt", "a.after_optimizations.txt", "a.after_optimizations-buffer-assignment.txt", "a.before_optimizations.txt"] {
///     std::fs::write(dir.join(f), "")?;
/// }
/// let files = module_files(&dir, Stage::After)?;
/// let names: Vec<_> = files.iter().map(|f| f.strip_prefix(&dir).unwrap().to_str().unwrap()).collect();
/// assert_eq!(names, ["a.after_optimizations.txt", "b/m.after_optimizations.txt"]);
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn module_files(dir: &Path, stage: Stage) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    collect(dir, stage, 0, &mut files)?;
    files.sort();
    Ok(files)
}

fn collect(dir: &Path, stage: Stage, depth: usize, out: &mut Vec<PathBuf>) -> io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let path = entry.path();
        if kind.is_dir() && depth < MAX_DEPTH {
            collect(&path, stage, depth + 1, out)?;
        } else if kind.is_file() && entry.file_name().to_str().is_some_and(|n| stage.matches(n)) {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Stage;

    /// Every stage's name is its `Debug` text in lower case, the words the command printed
    /// before `as_str` existed (`no module text of stage after here`).
    #[test]
    fn every_stage_is_named_as_its_debug_text_in_lower_case() {
        let stages = [Stage::After, Stage::Before, Stage::All];
        let debug = stages.map(|s| format!("{s:?}").to_lowercase());
        assert_eq!(stages.map(Stage::as_str), debug.each_ref().map(String::as_str));
        assert_eq!(stages.map(|s| s.to_string()), debug);
    }
}
