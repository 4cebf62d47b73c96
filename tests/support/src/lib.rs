//! What the tests of xlayout share, in one place: the root's integration tests
//! (`tests/tests.rs`, `tests/hostile.rs`), the command's (`xlayout-cli/tests/`), the fuzz
//! targets (`fuzz/`) and the example that writes the hostile inputs all depend on this crate,
//! so nothing is included by `#[path]` and nothing is written twice.
//!
//! - here: the repository's test data and XLA's conformance files, scratch folders, what a
//!   test does when a tool it needs is missing, and the one deliberate difference from XLA's
//!   parser ([`wraps_in_xla`]);
//! - [`checks`]: the properties every fuzz target checks, and the bounded test runs on every
//!   `cargo test`;
//! - [`hostile`]: the hostile inputs of the hostile-input rounds, at any size;
//! - `strategies` (feature `strategies`): property-test strategies for shapes and tiles;
//! - [`minifloats`]: XLA's narrow float types as `ml_dtypes` converts them;
//! - [`storage`]: checks of what a generated layout stores, by the storage trait it has;
//! - `drawing` (feature `drawing`): SVG maps read back.

use std::path::{Path, PathBuf};

use serde_json::Value;

pub mod checks;
#[cfg(feature = "drawing")]
pub mod drawing;
pub mod hostile;
pub mod minifloats;
pub mod storage;
#[cfg(feature = "strategies")]
pub mod strategies;

/// The repository's root, where `tests/data`, the README and `fuzz/` are.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The repository's `tests/data/`.
pub fn data_dir() -> PathBuf {
    root().join("tests/data")
}

/// The bytes of `tests/data/{path}`; a missing file fails the test with its path.
pub fn data(path: &str) -> Vec<u8> {
    let path = data_dir().join(path);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of `tests/data/{path}`.
pub fn data_text(path: &str) -> String {
    String::from_utf8(data(path)).unwrap_or_else(|e| panic!("tests/data/{path}: {e}"))
}

/// The `cases` array of a conformance file (`{"cases": [...]}`, as ../shared/conformance
/// writes them).
pub fn cases(json: &str) -> Vec<Value> {
    let doc: Value = serde_json::from_str(json).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

/// The programs of `tests/data/hlo/jax_cpu/manifest.json` (what generate.py compiled with
/// JAX, and XLA's own figures for each).
pub fn jax_programs() -> Vec<Value> {
    let manifest: Value = serde_json::from_slice(&data("hlo/jax_cpu/manifest.json")).unwrap();
    manifest["programs"].as_array().unwrap().clone()
}

/// The programs of `tests/data/hlo/jax_cpu_large/manifest.json` (generate_large.py: larger
/// programs, compiled on another machine, with `compiled.memory_analysis()` for each).
pub fn large_jax_programs() -> Vec<Value> {
    let manifest: Value = serde_json::from_slice(&data("hlo/jax_cpu_large/manifest.json")).unwrap();
    manifest["programs"].as_array().unwrap().clone()
}

/// Every JAX CPU program of the test data, small and large, each with its folder under
/// `tests/data/hlo` (`jax_cpu` or `jax_cpu_large`).
pub fn every_jax_program() -> Vec<(&'static str, Value)> {
    let small = jax_programs().into_iter().map(|p| ("jax_cpu", p));
    small.chain(large_jax_programs().into_iter().map(|p| ("jax_cpu_large", p))).collect()
}

/// The one deliberate difference from XLA's parser, in XLA's conformance data: a
/// non-negative literal ≥ 2⁶³, which XLA's lexer wraps to a negative number
/// (`T(9223372036854775808)` is XLA's `T(*)`) and this crate's parser rejects
/// (`ErrorKind::IntegerOutOfRange`).
pub fn wraps_in_xla(input: &str) -> bool {
    input.contains("9223372036854775808") && !input.contains("-9223372036854775808")
        || input.contains("18446744073709551615")
}

/// A fresh, empty folder for the files a test writes, named for the test, under the target
/// directory's `tmp` of the test that calls it (`CARGO_TARGET_TMPDIR`, which cargo sets for
/// integration tests only, so it is read where the macro is used).
#[macro_export]
macro_rules! scratch {
    ($name:expr) => {
        $crate::scratch_in(::std::path::Path::new(env!("CARGO_TARGET_TMPDIR")), $name)
    };
}

/// [`scratch!`] under `tmp`: the folder `tmp/name`, emptied.
pub fn scratch_in(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What a test whose tool (a shell, a browser) is missing does: on a developer's machine it
/// is skipped, saying why on standard error; under CI (`CI=true`, which `.ci/run` sets) it
/// fails, so a check cannot pass by not running.
pub fn missing_tool(why: &str) {
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "{why}: under CI every tool a test needs is installed");
    eprintln!("skipped: {why}");
}
