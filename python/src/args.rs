//! Arguments from Python, converted with messages that name the function, the argument,
//! what it must be and what it was: PyO3's own conversions would say `can't convert
//! negative int to unsigned` (an `OverflowError`) or `'NoneType' object cannot be cast as
//! 'str'`, which name neither. A wrong type is a `TypeError`; an index or offset that
//! cannot be one of the shape (negative, beyond every dimension, too many entries) is
//! `xlayout.IndexOutOfBounds`, an `xlayout.Error` and an `IndexError`.

use std::path::PathBuf;

use pyo3::exceptions::{PyAttributeError, PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyInt, PyString};
use xlayout::limits::MAX_RANK;
use xlayout::{Error, ErrorKind};

use super::errors::error_without_text;

/// A path argument (`str`, `bytes` or `os.PathLike`), read as PyO3's `PathBuf` reads one
/// (`os.fspath`, then the file system's encoding), but with Python's `MemoryError` where
/// that conversion panics (it takes the encoded bytes without checking that Python made
/// them).
pub fn path(value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let py = value.py();
        // SAFETY: the GIL is held (`py`); PyOS_FSPath returns a new reference (a `str` or
        // `bytes`) or null with Python's error set (a `TypeError` for any other object).
        let fspath =
            unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyOS_FSPath(value.as_ptr()))? };
        let bytes = match fspath.cast::<PyString>() {
            // SAFETY: as above; PyUnicode_EncodeFSDefault returns new `bytes` or null with
            // Python's error set (a `MemoryError`, or the encoding's error).
            Ok(s) => unsafe {
                Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyUnicode_EncodeFSDefault(s.as_ptr()))?
            },
            Err(_) => fspath,
        };
        let bytes = bytes.cast_into::<PyBytes>()?;
        let bytes = std::ffi::OsStr::from_bytes(bytes.as_bytes());
        Ok(PathBuf::from(bytes))
    }
    #[cfg(not(unix))]
    {
        value.extract()
    }
}

/// The name of `value`'s type, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map_or_else(|_| String::from("?"), |n| n.to_string())
}

/// The `str` `value`, or a `TypeError` that says `function` takes `what` (a str) for
/// `name`.
pub fn text<'py>(value: &Bound<'py, PyAny>, function: &str, name: &str) -> PyResult<String> {
    match value.cast::<PyString>() {
        Ok(s) => Ok(s.to_cow()?.into_owned()),
        Err(_) => Err(PyTypeError::new_err(format!(
            "{function}: `{name}` is XLA's text of a shape (a str), not {}",
            type_name(value)
        ))),
    }
}

/// An integer argument as Python has it (anything with `__index__`: `int`, numpy's
/// integers, `bool`), or a `TypeError` naming it.
fn integer<'py>(
    value: &Bound<'py, PyAny>,
    message: impl Fn() -> String,
) -> PyResult<Bound<'py, PyInt>> {
    // Python's own `operator.index`: floats, strings and None are refused, as a list index
    // refuses them.
    if let Ok(i) = value.cast::<PyInt>() {
        return Ok(i.clone());
    }
    let refused = || PyTypeError::new_err(message());
    // `str`, `bytes` and `bytearray` have no `__index__`; numpy's integers do.
    if value.is_instance_of::<PyString>() || value.is_instance_of::<PyBytes>() {
        return Err(refused());
    }
    let py = value.py();
    // Only the errors that say "no integer" are ours to word; any other (a failed
    // allocation's MemoryError) goes on as it is.
    let index = value.call_method0(pyo3::intern!(py, "__index__")).map_err(|e| {
        if e.is_instance_of::<PyAttributeError>(py) || e.is_instance_of::<PyTypeError>(py) {
            refused()
        } else {
            e
        }
    })?;
    index.cast_into::<PyInt>().map_err(|_| refused())
}

/// What an integer is against the `u64` range: its value, or below 0, or above (shown as
/// text: a Python integer can have any number of digits).
enum Range {
    In(u64),
    Negative(String),
    Huge(String),
}

fn range(i: &Bound<'_, PyInt>) -> PyResult<Range> {
    match i.extract::<u64>() {
        Ok(n) => Ok(Range::In(n)),
        Err(e) if e.is_instance_of::<PyOverflowError>(i.py()) => {
            let negative = i.lt(0)?;
            // Not `str(i)`: Python refuses to print integers of more than 4300 digits.
            let shown = match i.extract::<i128>() {
                Ok(n) => n.to_string(),
                Err(_) if negative => String::from("below -2^127"),
                Err(_) => String::from("above 2^127"),
            };
            Ok(if negative { Range::Negative(shown) } else { Range::Huge(shown) })
        }
        Err(e) => Err(e),
    }
}

fn out_of_bounds(why: String) -> PyErr {
    error_without_text(&Error::new(ErrorKind::IndexOutOfBounds, why))
}

/// An element offset of a shape: a non-negative integer, or `xlayout.IndexOutOfBounds`
/// (`TypeError` for what is no integer).
pub fn offset(value: &Bound<'_, PyAny>, function: &str) -> PyResult<usize> {
    let i = integer(value, || {
        format!("{function}: an offset is an integer, not {}", type_name(value))
    })?;
    match range(&i)? {
        Range::In(n) => usize::try_from(n)
            .map_err(|_| out_of_bounds(format!("offset {n} is beyond any grid of this machine"))),
        Range::Negative(n) => Err(out_of_bounds(format!("offset {n}: offsets are non-negative"))),
        Range::Huge(n) => Err(out_of_bounds(format!("offset {n} is beyond any grid"))),
    }
}

/// A logical index (a sequence of integers, one per dimension; not a `str`), or
/// `xlayout.IndexOutOfBounds` for an entry that no shape has (negative, or beyond every
/// dimension) and for more entries than a shape has dimensions (`TypeError` for what is no
/// sequence of integers). Reads at most [`MAX_RANK`] + 1 entries of any iterable.
///
/// `what` names the entries for the message (`indices`, `dimension numbers`).
pub fn index(
    value: &Bound<'_, PyAny>,
    function: &str,
    name: &str,
    what: &str,
) -> PyResult<Vec<usize>> {
    let not_a_sequence = || {
        PyTypeError::new_err(format!(
            "{function}: `{name}` is a sequence of integers, one per dimension (a tuple), not {}",
            type_name(value)
        ))
    };
    if value.is_instance_of::<PyString>()
        || value.is_instance_of::<PyBytes>()
        || value.is_instance_of::<PyByteArray>()
    {
        return Err(not_a_sequence());
    }
    let py = value.py();
    let entries = value.try_iter().map_err(|e| {
        if e.is_instance_of::<PyTypeError>(py) {
            not_a_sequence()
        } else {
            e
        }
    })?;
    let mut index = Vec::new();
    let mut shown = Vec::new();
    // The first entry that no shape has, and why.
    let mut problem = None;
    for (k, entry) in entries.enumerate() {
        if k == MAX_RANK {
            return Err(out_of_bounds(format!(
                "`{name}` has more than {MAX_RANK} entries; no shape has more dimensions"
            )));
        }
        let entry = entry?;
        let i = integer(&entry, || {
            format!("{function}: entry {k} of `{name}` is {}, not an integer", type_name(&entry))
        })?;
        // An entry out of every range is shown as Python has it, and the first one said.
        let (n, negative) = match range(&i)? {
            Range::In(n) => match usize::try_from(n) {
                Ok(u) => {
                    shown.push(u.to_string());
                    index.push(u);
                    continue;
                }
                Err(_) => (n.to_string(), false),
            },
            Range::Negative(n) => (n, true),
            Range::Huge(n) => (n, false),
        };
        let why = if negative {
            format!("{what} are non-negative")
        } else {
            String::from("beyond any dimension")
        };
        shown.push(n.clone());
        problem.get_or_insert((k, n, why));
        index.push(0);
    }
    match problem {
        None => Ok(index),
        Some((k, n, why)) => {
            Err(out_of_bounds(format!("{name} [{}]: entry {k} is {n}; {why}", shown.join(", "))))
        }
    }
}
