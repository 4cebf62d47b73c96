//! What the tests share that is not about one subject: the committed test data, XLA's
//! conformance files, scratch folders, and a check that every test file is compiled.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The repository's `tests/data/`.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
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

/// A fresh, empty folder for the files a test writes, named for the test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The integration tests are one binary (`autotests = false`): a file under `tests/` that
/// is neither a module of `tests/tests.rs` nor a `[[test]]` of its own would silently never
/// run. Every `tests/*.rs` must be one or the other.
#[test]
fn every_test_file_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let main = std::fs::read_to_string(root.join("tests/tests.rs")).unwrap();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(root.join("tests")).unwrap() {
        let path = entry.unwrap().path();
        let (Some(stem), Some("rs")) =
            (path.file_stem().and_then(|s| s.to_str()), path.extension().and_then(|e| e.to_str()))
        else {
            continue;
        };
        let as_module = main.lines().any(|l| l.trim() == format!("mod {stem};"));
        let as_target = manifest.contains(&format!("path = \"tests/{stem}.rs\""));
        if !as_module && !as_target {
            missing.push(stem.to_owned());
        }
    }
    assert!(missing.is_empty(), "tests/*.rs compiled by nothing: {missing:?}");
}
