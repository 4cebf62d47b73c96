//! Which Chromium the browser tests run, decided once, when the package is built: the
//! package's build script (build.rs) includes this file and turns the answer into what the
//! tests are compiled with. A test harness cannot mark a test ignored once it runs, so a
//! machine without a browser must be known before the tests are compiled, for `cargo test`
//! to report them `ignored` with the reason instead of `ok`. tests/browser.rs checks the rules.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The names a Chromium goes by on `PATH`, in the order they are tried.
pub const NAMES: [&str; 4] =
    ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/// What the build found.
#[derive(Debug, PartialEq, Eq)]
pub enum Chromium {
    /// The browser to run: `XLAYOUT_CHROMIUM` when set, else the first of [`NAMES`] that is a
    /// file in a directory of `PATH`.
    Found(PathBuf),
    /// None, on a developer's machine: the tests that need one are ignored, saying why.
    Ignore,
    /// None, under CI (`CI=true` or `CI=1`, which `.ci/run` sets and where it installs
    /// Chromium): the tests run and fail, so a check cannot pass by not running.
    Fail,
}

/// Looks for Chromium with the environment variable reader `var` and the file test `is_file`
/// (the real ones in the build script, made-up ones in the tests).
pub fn find(var: impl Fn(&str) -> Option<OsString>, is_file: impl Fn(&Path) -> bool) -> Chromium {
    if let Some(path) = var("XLAYOUT_CHROMIUM").filter(|p| !p.is_empty()) {
        return Chromium::Found(PathBuf::from(path));
    }
    let on_path = var("PATH").and_then(|dirs| {
        std::env::split_paths(&dirs)
            .flat_map(|dir| NAMES.iter().map(move |n| dir.join(n)))
            .find(|p| is_file(p))
    });
    match on_path {
        Some(path) => Chromium::Found(path),
        None if var("CI").is_some_and(|v| v == "true" || v == "1") => Chromium::Fail,
        None => Chromium::Ignore,
    }
}
