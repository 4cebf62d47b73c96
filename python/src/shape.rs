//! `xlayout.Shape`: one shape, parsed and validated by layout-runtime, with its sizes, its
//! index map, its description and the layout questions of `xlayout bitcast`.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use xlayout::draw::{self, MapOptions};
use xlayout::{ArrayShape, Dim, Plan, Shape, TileDim};

use super::args;
use super::errors::{error, error_without_text, py_int, py_str, py_tuple, py_uint, Error};
use super::json;

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
pub struct PyShape {
    /// The text as given, for rendering errors under it.
    text: String,
    pub shape: Shape,
    /// The index plan of an array shape whose layout has one.
    plan: Option<Plan>,
}

impl PyShape {
    pub fn array(&self) -> PyResult<&ArrayShape> {
        self.shape.try_array().map_err(|e| error(&e, &self.text))
    }

    pub fn plan(&self) -> PyResult<&Plan> {
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
    fn py_new(text: &Bound<'_, PyAny>) -> PyResult<Self> {
        PyShape::new(&args::text(text, "Shape()", "text")?)
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
    fn byte_size<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_uint(py, self.array()?.byte_size().map_err(|e| error(&e, &self.text))?)
    }

    /// XLA's `ShapeUtil::ByteSizeOf`: the data at its natural width, without padding.
    #[getter]
    fn logical_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py_uint(py, self.array()?.byte_size_of().map_err(|e| error(&e, &self.text))?)
    }

    /// XLA's name of the element type (`"bf16"`), or `None` for a tuple or token.
    #[getter]
    fn element_type<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyString>>> {
        self.shape.as_array().map(|a| py_str(py, &a.element_type.to_string())).transpose()
    }

    /// The dimension sizes (a `<=` bound for a bounded dynamic one, `None` for `?`).
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let dims = self.array()?.dims.iter().map(|d| match d {
            Dim::Static(n) | Dim::Bounded(n) => py_uint(py, *n),
            Dim::Unbounded => Ok(py.None().into_bound(py)),
        });
        py_tuple(py, dims.collect::<PyResult<_>>()?)
    }

    /// The layout's order of dimensions, most minor first (XLA's default when none is
    /// written).
    #[getter]
    fn minor_to_major<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let layout = self.array()?.layout_or_default();
        py_tuple(py, layout.minor_to_major.iter().map(|d| py_int(py, *d)).collect::<PyResult<_>>()?)
    }

    /// The tile levels, first applied first; each a tuple of sizes, `"*"` for a combined
    /// dimension.
    #[getter]
    fn tiles<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let layout = self.array()?.layout_or_default();
        let tiles = layout.tiles.iter().map(|t| {
            let entries = t.dims.iter().map(|d| -> PyResult<Bound<'py, PyAny>> {
                Ok(match d {
                    TileDim::Size(n) => py_uint(py, *n)?,
                    TileDim::Combine => py_str(py, "*")?.into_any(),
                })
            });
            Ok(py_tuple(py, entries.collect::<PyResult<_>>()?)?.into_any())
        });
        py_tuple(py, tiles.collect::<PyResult<_>>()?)
    }

    /// The element offset of the logical `index` in memory (the tiled index map).
    ///
    /// >>> import xlayout
    /// >>> xlayout.Shape("f32[3,5]{1,0:T(2,2)}").offset((2, 3))   # Figure 1 of XLA's document
    /// 17
    fn offset<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let index = args::index(index, "Shape.offset", "index", "indices")?;
        let offset = self.plan()?.offset(&index).map_err(|e| error(&e, &self.text))?;
        // A `usize` is at most 64 bits on every target Python runs on.
        py_uint(py, offset as u64)
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
        offset: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let offset = args::offset(offset, "Shape.index_of")?;
        let plan = self.plan()?;
        if offset >= plan.grid_len() {
            let why = format!("offset {offset} is beyond the grid of {} elements", plan.grid_len());
            let e = xlayout::Error::new(xlayout::ErrorKind::IndexOutOfBounds, why);
            return Err(error(&e, &self.text));
        }
        // Each int as `py_uint` makes it (a `usize` is at most 64 bits on every target
        // Python runs on).
        let tuple = |index: Vec<usize>| {
            py_tuple(py, index.into_iter().map(|i| py_uint(py, i as u64)).collect::<PyResult<_>>()?)
        };
        plan.index_of(offset).map(tuple).transpose()
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
        transpose: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let (from, to, transpose) = self.pair(to, transpose, "Shape.is_bitcast")?;
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
        transpose: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (from, to, transpose) = self.pair(to, transpose, "Shape.bitcast")?;
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
        transpose: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<PyShape>> {
        let (from, to, transpose) = self.pair(to, transpose, "Shape.bitcast_layout")?;
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

impl PyShape {
    /// The arguments of the questions about a pair of shapes (`is_bitcast`, `bitcast`,
    /// `bitcast_layout` of `function`): this array, `to` (a `Shape` or its text) and
    /// `transpose` (XLA's dimensions, or `None` for a reshape).
    fn pair(
        &self,
        to: &Bound<'_, PyAny>,
        transpose: Option<&Bound<'_, PyAny>>,
        function: &str,
    ) -> PyResult<(&ArrayShape, ArrayShape, Option<Vec<usize>>)> {
        let transpose =
            transpose.map(|t| args::index(t, function, "transpose", "dimension numbers"));
        Ok((self.array()?, array_arg(to, function)?, transpose.transpose()?))
    }

    /// The shape of `text`, parsed and validated.
    pub fn new(text: &str) -> PyResult<Self> {
        let shape: Shape = text.parse().map_err(|e| error(&e, text))?;
        let plan = shape.as_array().and_then(|a| a.plan().ok());
        Ok(PyShape { text: text.to_owned(), shape, plan })
    }
}

/// An array shape argument `to` of `function`: a `Shape`, or text parsed as one (its errors
/// shown under it).
fn array_arg(arg: &Bound<'_, PyAny>, function: &str) -> PyResult<ArrayShape> {
    if let Ok(shape) = arg.cast::<PyShape>() {
        return shape.get().array().cloned();
    }
    let text = args::text(arg, function, "to")?;
    text.parse().map_err(|e| error(&e, &text))
}
