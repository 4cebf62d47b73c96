//! The exceptions the package raises: `xlayout.Error` for what the library rejects (its
//! message rendered as the command renders it), `xlayout.IndexOutOfBounds` (an
//! `xlayout.Error` and an `IndexError`) for indices and offsets outside a shape, and Python's
//! `MemoryError` when a message cannot be allocated.

use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple, PyType};
use pyo3::{create_exception, intern};
use xlayout::ErrorKind;

create_exception!(
    xlayout,
    Error,
    PyValueError,
    "A shape, layout, buffer or input that xlayout rejects: `kind` is the rule's name (the \
     Rust `ErrorKind`, or for a whole input with nothing to read in it `NotHlo`, MLIR given \
     where HLO module text is read, and `NoOomReport`, text without an out-of-memory \
     report), `span` the `(start, end)` byte range of the text it is about or `None`, and \
     the message is the command's, with carets under that range."
);

/// `xlayout.IndexOutOfBounds`, made at module initialisation (a class with two bases, which
/// PyO3's `create_exception!` cannot make).
static INDEX_OUT_OF_BOUNDS: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Makes `xlayout.IndexOutOfBounds`, a subclass of `xlayout.Error` and `IndexError` (as
/// numpy's `AxisError` is a `ValueError` and an `IndexError`): `except IndexError` catches
/// an index outside a shape as it catches one outside a list.
pub fn index_out_of_bounds(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    let class = INDEX_OUT_OF_BOUNDS.get_or_try_init(py, || -> PyResult<Py<PyType>> {
        let bases = PyTuple::new(
            py,
            [py.get_type::<Error>().into_any(), py.get_type::<PyIndexError>().into_any()],
        )?;
        let namespace = PyDict::new(py);
        namespace.set_item("__module__", "xlayout")?;
        namespace.set_item(
            "__doc__",
            "An index or offset outside the shape (negative, too large, or of another rank): \
             an `xlayout.Error` of kind `IndexOutOfBounds`, and an `IndexError`.",
        )?;
        let made = py.get_type::<PyType>().call1(("IndexOutOfBounds", bases, namespace))?;
        Ok(made.cast_into::<PyType>()?.unbind())
    })?;
    Ok(class.bind(py))
}

/// `xlayout.Error` for `error`, rendered under `text` (the text that was parsed) as the
/// command shows it; Python's `MemoryError` if it cannot be made.
pub fn error(error: &xlayout::Error, text: &str) -> PyErr {
    Python::attach(|py| exception(py, error, text).unwrap_or_else(|e| e))
}

/// `xlayout.Error` for `error` when the text it is about is not at hand: the message alone,
/// without a span that would point into nothing.
pub fn error_without_text(error: &xlayout::Error) -> PyErr {
    self::error(&xlayout::Error::new(error.kind(), error.message()), "")
}

/// The `xlayout.Error` object of [`error`], made eagerly so that a failed allocation is an
/// `Err` here (PyO3 makes a lazy exception's message when it raises it, and panics there).
fn exception(py: Python<'_>, error: &xlayout::Error, text: &str) -> PyResult<PyErr> {
    let message = py_str(py, &error.render(text).to_string())?;
    let class = match error.kind() {
        ErrorKind::IndexOutOfBounds => index_out_of_bounds(py)?.clone(),
        _ => py.get_type::<Error>(),
    };
    let value = class.call1((message,))?;
    let kind = py_str(py, error.kind().as_str())?;
    let span = error.span().map(|s| (s.start, s.end));
    made(value, kind, span)
}

/// `xlayout.Error` of `kind` about a whole input (`name: message`, as the command says it
/// on standard error), for the kinds that are no `ErrorKind` of a shape: `NotHlo`,
/// `NoOomReport`.
pub fn input_error(py: Python<'_>, kind: &str, message: &str) -> PyErr {
    let made = || -> PyResult<PyErr> {
        let value = py.get_type::<Error>().call1((py_str(py, message)?,))?;
        self::made(value, py_str(py, kind)?, None)
    };
    made().unwrap_or_else(|e| e)
}

/// The exception `value` with its `kind` and `span`.
fn made(
    value: Bound<'_, PyAny>,
    kind: Bound<'_, PyString>,
    span: Option<(usize, usize)>,
) -> PyResult<PyErr> {
    let py = value.py();
    // Names interned once (PyO3 makes a `&str` name into a `str` each time, and panics when
    // it cannot).
    value.setattr(intern!(py, "kind"), kind)?;
    value.setattr(intern!(py, "span"), span)?;
    Ok(PyErr::from_value(value))
}

/// `s` as a Python `str`, or Python's `MemoryError` when Python cannot allocate it (PyO3's
/// conversion of a `String` panics then, and a report or a picture can be large).
pub fn py_str<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
    PyString::from_bytes(py, s.as_bytes())
}

/// `items` as a Python tuple, or Python's `MemoryError` when Python cannot allocate it: PyO3's
/// `PyTuple::new` panics then ("Python API call failed"), and a binding must not.
pub fn py_tuple<'py>(
    py: Python<'py>,
    items: Vec<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    // A Vec holds at most isize::MAX bytes, so its length fits a Py_ssize_t.
    let len = pyo3::ffi::Py_ssize_t::try_from(items.len())
        .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("tuple too long"))?;
    // SAFETY: the GIL is held (`py`); PyTuple_New returns a new reference or null with
    // Python's error set, which `from_owned_ptr_or_err` takes as that error.
    let tuple = unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyTuple_New(len))? };
    for (i, item) in (0..len).zip(items) {
        // SAFETY: `tuple` is the new tuple of `len` slots made above, not yet seen by any
        // other code, and `i < len`; PyTuple_SetItem steals the reference `into_ptr` gives
        // up, also when it fails (then it returns -1 with Python's error set).
        if unsafe { pyo3::ffi::PyTuple_SetItem(tuple.as_ptr(), i, item.into_ptr()) } != 0 {
            return Err(PyErr::fetch(py));
        }
    }
    // SAFETY: the object was made by PyTuple_New: it is a tuple.
    Ok(unsafe { tuple.cast_into_unchecked() })
}

/// `n` as a Python `int`, or Python's `MemoryError` when Python cannot allocate it: PyO3's
/// conversion of a `u64` panics then, and an int past CPython's cached small ones (-5 to
/// 256) is allocated.
pub fn py_uint(py: Python<'_>, n: u64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: the GIL is held (`py`); PyLong_FromUnsignedLongLong (a `c_ulonglong`, which is
    // `u64`) returns a new reference or null with Python's error set, which
    // `from_owned_ptr_or_err` takes as that error.
    unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyLong_FromUnsignedLongLong(n)) }
}

/// `n` as a Python `int`, or Python's `MemoryError` (as [`py_uint`], for a signed `n`).
pub fn py_int(py: Python<'_>, n: i64) -> PyResult<Bound<'_, PyAny>> {
    // SAFETY: as in `py_uint`; PyLong_FromLongLong takes a `c_longlong`, which is `i64`.
    unsafe { Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyLong_FromLongLong(n)) }
}

/// `texts` as a tuple of Python `str`s, or Python's `MemoryError` (see [`py_tuple`]).
pub fn py_strs<'py>(py: Python<'py>, texts: &[String]) -> PyResult<Bound<'py, PyTuple>> {
    let items = texts.iter().map(|t| Ok(py_str(py, t)?.into_any())).collect::<PyResult<_>>()?;
    py_tuple(py, items)
}

/// `path` as a Python `str` (the file system's encoding, bytes it cannot decode kept as
/// Python keeps them, as `os.fsdecode`), or Python's `MemoryError`: PyO3's conversion of a
/// path panics when Python cannot allocate the string.
pub fn py_path<'py>(py: Python<'py>, path: &std::path::Path) -> PyResult<Bound<'py, PyAny>> {
    #[cfg(unix)]
    {
        let bytes = std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str());
        let len = pyo3::ffi::Py_ssize_t::try_from(bytes.len())
            .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("path too long"))?;
        // SAFETY: the GIL is held (`py`); `bytes` is valid for `len` bytes for the call;
        // PyUnicode_DecodeFSDefaultAndSize returns a new reference or null with Python's
        // error set, which `from_owned_ptr_or_err` takes as that error.
        unsafe {
            Bound::from_owned_ptr_or_err(
                py,
                pyo3::ffi::PyUnicode_DecodeFSDefaultAndSize(bytes.as_ptr().cast(), len),
            )
        }
    }
    #[cfg(not(unix))]
    {
        Ok(py_str(py, &path.to_string_lossy())?.into_any())
    }
}
