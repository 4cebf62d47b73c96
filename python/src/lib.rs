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

use std::time::Instant;

use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use pyo3::{create_exception, intern};
use xlayout::draw::{self, HtmlOptions, MapOptions};
use xlayout::hlo::{
    decode, Analysis, ComputationNames, Module, Peak, PeakOptions, Report, ReportOptions,
    ReportWithPeak,
};
use xlayout::oom::OomReport;
use xlayout::{ArrayShape, ByteRange, Dim, Plan, RelayoutPlan, Shape, TileDim};

create_exception!(
    xlayout,
    Error,
    PyValueError,
    "A shape, layout or buffer that xlayout rejects: `kind` is the rule's name (the Rust \
     `ErrorKind`), `span` the `(start, end)` byte range of the text it is about or `None`, \
     and the message is the command's, with carets under that range."
);

/// `xlayout.Error` for `error`, rendered under `text` (the text that was parsed) as the
/// command shows it; Python's `MemoryError` if it cannot be made.
fn error(error: &xlayout::Error, text: &str) -> PyErr {
    Python::attach(|py| exception(py, error, text).unwrap_or_else(|e| e))
}

/// The `xlayout.Error` object of [`error`], made eagerly so that a failed allocation is an
/// `Err` here (PyO3 makes a lazy exception's message when it raises it, and panics there).
fn exception(py: Python<'_>, error: &xlayout::Error, text: &str) -> PyResult<PyErr> {
    let message = py_str(py, &error.render(text).to_string())?;
    let value = py.get_type::<Error>().call1((message,))?;
    // Names interned once (PyO3 makes a `&str` name into a `str` each time, and panics when
    // it cannot).
    value.setattr(intern!(py, "kind"), py_str(py, &format!("{:?}", error.kind()))?)?;
    value.setattr(intern!(py, "span"), error.span().map(|s| (s.start, s.end)))?;
    Ok(PyErr::from_value(value))
}

/// `s` as a Python `str`, or Python's `MemoryError` when Python cannot allocate it (PyO3's
/// conversion of a `String` panics then, and a report or a picture can be large).
fn py_str<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
    PyString::from_bytes(py, s.as_bytes())
}

/// `items` as a Python tuple, or Python's `MemoryError` when Python cannot allocate it: PyO3's
/// `PyTuple::new` panics then ("Python API call failed"), and a binding must not.
fn py_tuple<'py, const N: usize>(
    py: Python<'py>,
    items: [Bound<'py, PyAny>; N],
) -> PyResult<Bound<'py, PyTuple>> {
    // N is a small constant of this file (the parts of a report).
    let len = pyo3::ffi::Py_ssize_t::try_from(N).expect("a tuple of a few items");
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

/// `xlayout.Error` for `error` when the text it is about is not at hand: the message alone,
/// without a span that would point into nothing.
fn error_without_text(error: &xlayout::Error) -> PyErr {
    self::error(&xlayout::Error::new(error.kind(), error.message()), "")
}

/// An XLA shape, parsed and validated as XLA does (layout-runtime's one parser and
/// validator); `str()` is XLA's canonical text. Tuples, `token[]` and buffers parse too;
/// the array properties raise `xlayout.Error` (kind `NotStaticArray`) for them.
///
/// >>> import xlayout
/// >>> s = xlayout.Shape("bf16[8,300]{1,0:T(8,128)(2,1)}")
/// >>> str(s), s.element_type, s.dims, s.minor_to_major, s.tiles
/// ('bf16[8,300]{1,0:T(8,128)(2,1)}', 'bf16', (8, 300), (1, 0), ((8, 128), (2, 1)))
/// >>> s.byte_size, s.logical_bytes        # XLA's ArraySize, and the data at natural width
/// (6144, 4800)
/// >>> str(xlayout.Shape("f32[3,5]{1,0:L(1)E(0)}"))
/// 'f32[3,5]{1,0}'
#[pyclass(module = "xlayout", name = "Shape", frozen)]
struct PyShape {
    /// The text as given, for rendering errors under it.
    text: String,
    shape: Shape,
    /// The index plan of an array shape whose layout has one.
    plan: Option<Plan>,
}

impl PyShape {
    fn array(&self) -> PyResult<&ArrayShape> {
        self.shape.try_array().map_err(|e| error(&e, &self.text))
    }

    fn plan(&self) -> PyResult<&Plan> {
        match &self.plan {
            Some(plan) => Ok(plan),
            // Plan again only to get the error: the plan was not kept because it failed.
            None => Err(match self.array()?.plan() {
                Err(e) => error(&e, &self.text),
                Ok(_) => Error::new_err("error: the shape has no index plan"),
            }),
        }
    }
}

#[pymethods]
impl PyShape {
    #[new]
    fn new(text: &str) -> PyResult<Self> {
        let shape: Shape = text.parse().map_err(|e| error(&e, text))?;
        let plan = shape.as_array().and_then(|a| a.plan().ok());
        Ok(PyShape { text: text.to_owned(), shape, plan })
    }

    fn __str__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        py_str(py, &self.shape.to_string())
    }

    fn __repr__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        // Canonical text never holds a quote: this is Python's repr of the string too.
        py_str(py, &format!("Shape('{}')", self.shape))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyShape>().is_ok_and(|o| o.get().shape == self.shape)
    }

    fn __hash__(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.shape.to_string().hash(&mut h);
        h.finish()
    }

    /// XLA's `ShapeUtil::ArraySize`: the bytes the layout allocates, padding included.
    #[getter]
    fn byte_size(&self) -> PyResult<u64> {
        self.array()?.byte_size().map_err(|e| error(&e, &self.text))
    }

    /// XLA's `ShapeUtil::ByteSizeOf`: the data at its natural width, without padding.
    #[getter]
    fn logical_bytes(&self) -> PyResult<u64> {
        self.array()?.byte_size_of().map_err(|e| error(&e, &self.text))
    }

    /// XLA's name of the element type (`"bf16"`), or `None` for a tuple or token.
    #[getter]
    fn element_type(&self) -> Option<String> {
        self.shape.as_array().map(|a| a.element_type.to_string())
    }

    /// The dimension sizes (a `<=` bound for a bounded dynamic one, `None` for `?`).
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let dims = self.array()?.dims.iter().map(|d| match d {
            Dim::Static(n) | Dim::Bounded(n) => Some(*n),
            Dim::Unbounded => None,
        });
        PyTuple::new(py, dims)
    }

    /// The layout's order of dimensions, most minor first (XLA's default when none is
    /// written).
    #[getter]
    fn minor_to_major<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.array()?.layout_or_default().minor_to_major.iter())
    }

    /// The tile levels, first applied first; each a tuple of sizes, `"*"` for a combined
    /// dimension.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let layout = self.array()?.layout_or_default();
        let tiles = layout.tiles.iter().map(|t| {
            let entries = t.dims.iter().map(|d| -> PyResult<Bound<'py, PyAny>> {
                Ok(match d {
                    TileDim::Size(n) => n.into_pyobject(py)?.into_any(),
                    TileDim::Combine => "*".into_pyobject(py)?.into_any(),
                })
            });
            PyTuple::new(py, entries.collect::<PyResult<Vec<_>>>()?)
        });
        PyTuple::new(py, tiles.collect::<PyResult<Vec<_>>>()?)
    }

    /// The element offset of the logical `index` in memory (the tiled index map).
    ///
    /// >>> import xlayout
    /// >>> xlayout.Shape("f32[3,5]{1,0:T(2,2)}").offset((2, 3))   # Figure 1 of XLA's document
    /// 17
    fn offset(&self, index: Vec<usize>) -> PyResult<usize> {
        self.plan()?.offset(&index).map_err(|e| error(&e, &self.text))
    }

    /// The logical index stored at element `offset`, or `None` for padding.
    ///
    /// >>> import xlayout
    /// >>> s = xlayout.Shape("f32[3,5]{1,0:T(2,2)}")
    /// >>> s.index_of(17), s.index_of(9)
    /// ((2, 3), None)
    fn index_of<'py>(
        &self,
        py: Python<'py>,
        offset: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let plan = self.plan()?;
        if offset >= plan.grid_len() {
            let why = format!("offset {offset} is beyond the grid of {} elements", plan.grid_len());
            let e = xlayout::Error::new(xlayout::ErrorKind::IndexOutOfBounds, why);
            return Err(error(&e, &self.text));
        }
        plan.index_of(offset).map(|index| PyTuple::new(py, index)).transpose()
    }

    /// The shape described for a person, as `xlayout explain` prints it.
    ///
    /// >>> import xlayout
    /// >>> print(xlayout.Shape("f32[3,5]{1,0:T(2,2)}").explain().splitlines()[5])
    /// index space  [d0/2:2, d1/2:3, d0%2:2, d1%2:2]  (offset = row-major position)
    fn explain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyString>> {
        let text = xlayout::explain::explain(&self.shape).map_err(|e| error(&e, &self.text))?;
        py_str(py, &text)
    }

    /// Whether a reshape to `to` (a `Shape` or its text) keeps every element where it is,
    /// tiles included; with `transpose`, a transpose with XLA's dimensions (result
    /// dimension `i` is this shape's `transpose[i]`). `xlayout bitcast`'s answer.
    ///
    /// >>> import xlayout
    /// >>> x = xlayout.Shape("f32[4,128]{1,0:T(8,128)}")
    /// >>> x.is_bitcast("f32[1,4,128]{2,1,0:T(8,128)}"), x.is_bitcast("f32[4,1,128]{2,1,0:T(8,128)}")
    /// (True, False)
    /// >>> x.is_bitcast("f32[128,4]{0,1:T(8,128)}", transpose=(1, 0))   # the same physical order
    /// True
    /// >>> x.is_bitcast("f32[128,4]{1,0:T(8,128)}", transpose=(1, 0))
    /// False
    #[pyo3(signature = (to, transpose=None))]
    fn is_bitcast(
        &self,
        py: Python<'_>,
        to: &Bound<'_, PyAny>,
        transpose: Option<Vec<usize>>,
    ) -> PyResult<bool> {
        let (from, to) = (self.array()?, array_arg(to)?);
        let answer = py.detach(|| match &transpose {
            Some(d) => xlayout::algebra::transpose_is_bitcast(from, &to, d, false),
            None => xlayout::algebra::reshape_is_bitcast(from, &to, false),
        });
        answer.map_err(|e| error_without_text(&e))
    }

    /// `xlayout bitcast --format json`'s object (without `version`) for a reshape to `to`, or
    /// with `transpose` a transpose: `bitcast`, `bitcast_layout` (the text of `to`'s
    /// dimensions under a layout that keeps every element in place, `to`'s tiles kept, or
    /// `None`), `reason`, the first element that moves (`moved_position`,
    /// `moved_from_index`, `moved_to_index`, `moved_from_offset`, `moved_to_offset`), the
    /// bytes a copy would read and write, and `xla_open_source` (XLA's tile-blind answer).
    ///
    /// >>> import xlayout
    /// >>> a = xlayout.Shape("f32[4,128]{1,0:T(8,128)}").bitcast("f32[4,1,128]{2,1,0:T(8,128)}")
    /// >>> a["bitcast"], a["bitcast_layout"], a["xla_open_source"]
    /// (False, 'f32[4,1,128]{2,0,1:T(8,128)}', True)
    /// >>> a["moved_to_index"], a["moved_from_offset"], a["moved_to_offset"]
    /// ([1, 0, 0], 128, 1024)
    #[pyo3(signature = (to, transpose=None))]
    fn bitcast<'py>(
        &self,
        py: Python<'py>,
        to: &Bound<'py, PyAny>,
        transpose: Option<Vec<usize>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (from, to) = (self.array()?, array_arg(to)?);
        let answer = py.detach(|| xlayout::bitcast::Answer::new(from, &to, transpose));
        let answer = answer.map_err(|e| error_without_text(&e))?;
        py.import("json")?.call_method1("loads", (json(&answer)?,))
    }

    /// `to`'s dimensions under a layout that makes the reshape (or with `transpose`, the
    /// transpose) a bitcast: `to`'s tiles and other fields kept, only `minor_to_major`
    /// chosen; `to` itself when it is one already; `None` when no order of its dimensions
    /// is.
    ///
    /// >>> import xlayout
    /// >>> x = xlayout.Shape("f32[4,128]{1,0:T(8,128)}")
    /// >>> x.bitcast_layout("f32[4,1,128]{2,1,0:T(8,128)}")
    /// Shape('f32[4,1,128]{2,0,1:T(8,128)}')
    #[pyo3(signature = (to, transpose=None))]
    fn bitcast_layout(
        &self,
        py: Python<'_>,
        to: &Bound<'_, PyAny>,
        transpose: Option<Vec<usize>>,
    ) -> PyResult<Option<PyShape>> {
        let (from, to) = (self.array()?, array_arg(to)?);
        let found = py.detach(|| match &transpose {
            Some(d) => xlayout::algebra::transpose_bitcast_layout(from, &to, d),
            None => xlayout::algebra::reshape_bitcast_layout(from, &to),
        });
        let found = found.map_err(|e| error_without_text(&e))?;
        found.map(|s| PyShape::new(&s.to_string())).transpose()
    }

    /// The map of `xlayout map --svg`: a notebook shows the shape as this picture.
    fn _repr_svg_<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        // A shape without a picture (a tuple, no index space) shows as its repr instead.
        let Some(array) = self.shape.as_array() else { return Ok(None) };
        draw::map_svg(array, &MapOptions::default()).ok().map(|svg| py_str(py, &svg)).transpose()
    }
}

/// An array shape argument: a `Shape`, or text parsed as one (its errors shown under it).
fn array_arg(arg: &Bound<'_, PyAny>) -> PyResult<ArrayShape> {
    if let Ok(shape) = arg.cast::<PyShape>() {
        return shape.get().array().cloned();
    }
    let text: String = arg.extract()?;
    text.parse().map_err(|e| error(&e, &text))
}

/// Where the 1-D byte array `array` (`what`, for messages) lies in memory, after checking
/// that it is one run of bytes (and, for a destination, writeable): what
/// [`RelayoutPlan::check_buffers`] compares before any slice of it is made. Its element type
/// (`uint8`: no byte order) was checked when it was converted to `PyArray1<u8>`. A buffer
/// that is not one writeable run is a `ValueError` of Python's, as numpy raises for it (no
/// Rust buffer can be one, so the library has no rule for it).
fn byte_range(array: &Bound<'_, PyArray1<u8>>, what: &str, write: bool) -> PyResult<ByteRange> {
    // 1-D: contiguous is a stride of one byte (any stride, for 0 or 1 element).
    if !array.is_contiguous() {
        return Err(PyValueError::new_err(format!("{what} is not one contiguous run of bytes")));
    }
    let py = array.py();
    if write
        && !array.getattr(intern!(py, "flags"))?.getattr(intern!(py, "writeable"))?.is_truthy()?
    {
        return Err(PyValueError::new_err(format!("{what} is read-only")));
    }
    Ok(ByteRange { start: array.data() as usize, len: array.len() })
}

/// The checked relayout of `data`'s bytes into `out` (both byte views), the GIL released
/// while it runs. Both buffers are checked (one run of bytes each, the lengths, no byte in
/// common, by address: whatever Python objects provide them) before either is borrowed, so
/// the `&[u8]` and the `&mut [u8]` given to the plan never alias.
fn run_relayout(
    py: Python<'_>,
    plan: &RelayoutPlan,
    data: &Bound<'_, PyArray1<u8>>,
    out: &Bound<'_, PyArray1<u8>>,
    run: impl FnOnce(&[u8], &mut [u8]) -> Result<(), xlayout::Error> + Send,
) -> PyResult<()> {
    let src = byte_range(data, "the source buffer", false)?;
    let dst = byte_range(out, "the destination buffer `out`", true)?;
    plan.check_buffers(src, dst).map_err(|e| error_without_text(&e))?;
    // numpy's own borrow flags on top: no other Rust borrow of these arrays meanwhile.
    let input = data.try_readonly()?;
    let mut output = out.try_readwrite()?;
    let (input, output) = (input.as_slice()?, output.as_slice_mut()?);
    py.detach(|| run(input, output)).map_err(|e| error_without_text(&e))
}

fn relayout_plan(src: &PyShape, dst: &PyShape) -> PyResult<RelayoutPlan> {
    // Each shape's own plan first: its errors are shown under its own text.
    src.plan()?;
    dst.plan()?;
    RelayoutPlan::new(src.array()?, dst.array()?).map_err(|e| error_without_text(&e))
}

/// A new zeroed byte array of `len` bytes, by `numpy.zeros` (calloc: fresh pages cost nothing
/// until written), so that an allocation that fails is Python's `MemoryError` (numpy's
/// `PyArray1::zeros` panics on it instead).
fn zeros(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyArray1<u8>>> {
    let numpy = py.import(intern!(py, "numpy"))?;
    let uint8 = numpy.getattr(intern!(py, "uint8"))?;
    let array = numpy.getattr(intern!(py, "zeros"))?.call1((len, uint8))?;
    Ok(array.cast_into::<PyArray1<u8>>()?)
}

/// `relayout(data, src, dst, out=None)` on byte views: a new zeroed buffer of `dst`'s
/// length, or `out`, filled with `dst`'s bytes.
#[pyfunction]
#[pyo3(signature = (data, src, dst, out=None))]
fn relayout<'py>(
    py: Python<'py>,
    data: Bound<'py, PyArray1<u8>>,
    src: &PyShape,
    dst: &PyShape,
    out: Option<Bound<'py, PyArray1<u8>>>,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    let plan = relayout_plan(src, dst)?;
    let out = match out {
        Some(out) => out,
        None => {
            // Checked before a destination is allocated: a wrong input costs nothing.
            let src = byte_range(&data, "the source buffer", false)?;
            plan.check_source(src).map_err(|e| error_without_text(&e))?;
            zeros(py, plan.dst_len())?
        }
    };
    run_relayout(py, &plan, &data, &out, |i, o| plan.run(i, o))?;
    Ok(out)
}

/// Panics with `message`: the test that a Rust panic reaches Python as `PanicException`
/// and the interpreter goes on, so a build that stops unwinding (`panic = "abort"`) fails
/// a test instead of ending a user's notebook.
#[pyfunction]
fn _panic_for_tests(message: &str) {
    panic!("{message}");
}

/// Seconds the Rust call `xlayout::relayout` (plan and run) takes on these byte views, timed
/// inside the extension: the baseline of the Python benchmark, measured in its run.
#[pyfunction]
fn _time_rust_relayout(
    py: Python<'_>,
    data: Bound<'_, PyArray1<u8>>,
    src: &PyShape,
    dst: &PyShape,
    out: Bound<'_, PyArray1<u8>>,
) -> PyResult<f64> {
    // The plan only to check the buffers as `relayout` does; the time is `xlayout::relayout`'s
    // own (which plans again), as a Rust caller would call it.
    let plan = relayout_plan(src, dst)?;
    let mut seconds = 0.0;
    run_relayout(py, &plan, &data, &out, |input, output| {
        let start = Instant::now();
        xlayout::relayout(input, &src.shape, output, &dst.shape)?;
        seconds = start.elapsed().as_secs_f64();
        Ok(())
    })?;
    Ok(seconds)
}

/// The `xlayout` command on the process's standard input, output and error, with `args`
/// (the first is the program's name); returns the exit status.
#[pyfunction]
fn main(py: Python<'_>, args: Vec<String>) -> u8 {
    py.detach(|| xlayout_cli::main_with_args(args))
}

/// One module read and analysed, with its report and peak, for `work`: what
/// [`hlo_report`] and [`hlo_html`] both start from.
fn with_report<T>(
    bytes: &[u8],
    top: usize,
    work: impl FnOnce(&Module<'_>, &Report<'_, '_>, &Peak) -> T,
) -> T {
    let (text, problems) = decode(bytes);
    let mut module = Module::parse(&text);
    module.add_diagnostics(problems);
    let analysis = Analysis::new(&module);
    let report = Report::new(&analysis, ReportOptions { top, ..ReportOptions::default() });
    let peak = Peak::new(&analysis);
    work(&module, &report, &peak)
}

/// What `xlayout.hlo` needs of one module, as the command's JSON: the report (`xlayout hlo
/// --format json`'s object per file, without `file` and XLA's buffer assignment), the peak
/// (`xlayout peak`'s, without `file`, `module`, `scheduled` and XLA's dumps) with its live
/// list cut at `top`, and the report's small keys (`module`, `is_scheduled`, `totals`) on
/// their own, so that reading them does not parse every instruction's row. The HTML page
/// is [`hlo_html`]'s, made only when a notebook shows it.
#[pyfunction]
fn hlo_report<'py>(
    py: Python<'py>,
    // Borrowed from the `bytes` object: a 100 MB dump is not copied element by element.
    bytes: &[u8],
    top: usize,
    min_bytes: u64,
) -> PyResult<Bound<'py, PyTuple>> {
    let texts = py.detach(|| {
        with_report(bytes, top, |module, report, peak| -> PyResult<[String; 3]> {
            let summary = peak.summary(module, &PeakOptions { top, min_bytes });
            let head = serde_json::json!({
                "module": module.name,
                "is_scheduled": module.is_scheduled,
                "totals": report.totals,
            });
            let with_peak = ReportWithPeak::new(report, module.is_scheduled.then_some(peak));
            Ok([json(&with_peak)?, json(&summary)?, json(&head)?])
        })
    })?;
    let [a, b, c] = texts;
    py_tuple(
        py,
        [py_str(py, &a)?.into_any(), py_str(py, &b)?.into_any(), py_str(py, &c)?.into_any()],
    )
}

/// The HTML page of one module (`xlayout hlo --html`'s) titled `name`, for a notebook to
/// show: made when it is shown, not with the report (a page is several times the size of
/// what it shows).
#[pyfunction]
fn hlo_html<'py>(
    py: Python<'py>,
    bytes: &[u8],
    name: String,
    top: usize,
    min_bytes: u64,
) -> PyResult<Bound<'py, PyString>> {
    let html = py.detach(|| {
        with_report(bytes, top, |module, report, peak| {
            let mut page = draw::HtmlPage::default();
            let peak_options = PeakOptions { top, min_bytes };
            let options = HtmlOptions { source: name, peak: peak_options, ..Default::default() };
            page.add_with_peak(report, module.is_scheduled.then_some(peak), &options);
            page.finish()
        })
    });
    py_str(py, &html)
}

/// What `xlayout.relayouts` needs of one module, as JSON: its name and [`Relayouts`]
/// (`rows`, as `xlayout relayouts --format json` has them, `free`, `moved_bytes`, and the
/// names of the computations that the rows give by number).
///
/// [`Relayouts`]: xlayout::hlo::Relayouts
#[pyfunction]
fn relayouts_report(py: Python<'_>, bytes: &[u8]) -> PyResult<String> {
    py.detach(|| {
        let (text, problems) = decode(bytes);
        let mut module = Module::parse(&text);
        module.add_diagnostics(problems);
        let r = xlayout::hlo::Relayouts::new(&module);
        json(&serde_json::json!({
            "module": module.name,
            "instructions": r.rows.len(),
            "free": r.free,
            "moved_bytes": r.moved_bytes,
            "rows": r.rows,
            "computations": ComputationNames(&module),
        }))
    })
}

/// The out-of-memory report in `bytes`, as the command's JSON (`xlayout oom --format json`'s
/// object per report, without `file` and `hlo`); bytes that are not UTF-8 are read as the
/// command reads them.
#[pyfunction]
fn oom_report<'py>(py: Python<'py>, bytes: &[u8]) -> PyResult<Bound<'py, PyString>> {
    let text = py.detach(|| json(&OomReport::from_bytes(bytes)))?;
    py_str(py, &text)
}

/// The module texts after optimizations in the dump directory `dir`, as `xlayout hlo DIR`
/// reads them.
#[pyfunction]
fn module_files(dir: std::path::PathBuf) -> PyResult<Vec<std::path::PathBuf>> {
    Ok(xlayout::hlo::module_files(&dir, xlayout::hlo::Stage::After)?)
}

/// A report type as JSON, as the command's `--format json` writes it.
fn json<T: serde::Serialize>(value: &T) -> PyResult<String> {
    // The report types always serialize (the fuzz targets check it); a failure would be a
    // bug, reported rather than hidden.
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

#[pymodule]
fn _xlayout(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_class::<PyShape>()?;
    m.add_function(wrap_pyfunction!(relayout, m)?)?;
    m.add_function(wrap_pyfunction!(_time_rust_relayout, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add_function(wrap_pyfunction!(hlo_report, m)?)?;
    m.add_function(wrap_pyfunction!(hlo_html, m)?)?;
    m.add_function(wrap_pyfunction!(oom_report, m)?)?;
    m.add_function(wrap_pyfunction!(relayouts_report, m)?)?;
    m.add_function(wrap_pyfunction!(module_files, m)?)?;
    Ok(())
}
