//! `xlayout.relayout` on byte views: both buffers checked (one run each, the lengths, no
//! byte in common) before either is borrowed, the bytes moved with the GIL released.

use std::time::Instant;

use numpy::{PyArray1, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use xlayout::{ByteRange, RelayoutPlan};

use super::errors::error_without_text;
use super::shape::PyShape;

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

/// Adds this file's functions to the extension module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(relayout, m)?)?;
    m.add_function(wrap_pyfunction!(_time_rust_relayout, m)?)?;
    Ok(())
}
