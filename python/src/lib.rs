//! `xlayout._xlayout`: the extension module of the Python package `xlayout`.
//!
//! Bindings only: every answer comes from the `xlayout` library (and, for the console
//! script, the `xlayout` command's own `main_with_args`). This module converts types,
//! releases the GIL around long work, and maps the library's errors to `xlayout.Error`.
//! The Python side (`python/xlayout/*.py`) turns numpy arrays into byte views and back.
//!
//! Errors never end the interpreter: an [`xlayout::Error`] becomes `xlayout.Error`, a
//! failed allocation of a buffer, a message, a report or a picture Python's `MemoryError`
//! (made with the fallible constructors: PyO3's conversions panic on it), and a panic,
//! which the library promises never to raise, would reach Python as PyO3's
//! `PanicException`.

mod args;
mod buffers;
mod errors;
mod reports;
mod shape;

use pyo3::prelude::*;

use self::errors::Error;

/// Panics with `message`: the test that a Rust panic reaches Python as `PanicException`
/// and the interpreter goes on, so a build that stops unwinding (`panic = "abort"`) fails
/// a test instead of ending a user's notebook.
#[pyfunction]
fn _panic_for_tests(message: &str) {
    panic!("{message}");
}

/// The `xlayout` command on the process's standard input, output and error, with `args`
/// (the first is the program's name); returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| xlayout_cli::main_with_args(args))
}

/// A report type as JSON, as the command's `--format json` writes it.
fn json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    // The report types always serialize (the fuzz targets check it); a failure would be a
    // bug, reported rather than hidden.
    serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
fn _xlayout(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("IndexOutOfBounds", errors::index_out_of_bounds(py)?)?;
    m.add_class::<shape::PyShape>()?;
    buffers::add(m)?;
    reports::add(m)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    Ok(())
}
