"""XLA's array shapes, tiled layouts and the memory of HLO modules, exactly as XLA has them.

The bindings of the Rust library ``xlayout``: every figure, message and picture is the
library's (and the ``xlayout`` command's, which this package installs too).

>>> import xlayout
>>> s = xlayout.Shape("bf16[8,300]{1,0:T(8,128)(2,1)}")
>>> s.byte_size, s.logical_bytes
(6144, 4800)
>>> s.offset((1, 0)), s.index_of(256)      # rows interleave in pairs: (2,1)
(1, (2, 0))
>>> try:
...     xlayout.Shape("f32[3,5]{1,0:T(0,2)}")
... except xlayout.Error as e:
...     print(e.kind, e.span)
InvalidTileDimension (15, 16)
"""

from __future__ import annotations

import re
from typing import Any, Optional, Union

import numpy as np

from . import _args, _xlayout
from ._reports import HloModules, HloReport, OomReport, Relayouts, hlo, oom, relayouts
from ._xlayout import Error, IndexOutOfBounds, Shape

__all__ = [
    "Error",
    "HloModules",
    "HloReport",
    "IndexOutOfBounds",
    "OomReport",
    "Relayouts",
    "Shape",
    "hlo",
    "oom",
    "relayout",
    "relayouts",
    "tile",
    "untile",
]

ShapeLike = Union[Shape, str]


def _little_endian(array: np.ndarray) -> np.ndarray:
    """``array`` with its values in XLA's byte order, little-endian: itself when they are in
    it (or have one byte), else a converted copy; never its bytes reinterpreted."""
    little = array.dtype.newbyteorder("<")
    return array if array.dtype == little else array.astype(little)


def _byte_view(data: Any, function: str = "relayout") -> np.ndarray:
    """``data``'s bytes in XLA's byte order as a 1-D ``uint8`` array: without a copy, unless
    its values have more than one byte each in another order (big-endian numpy arrays, a
    ``memoryview`` of one), which are converted first."""
    if isinstance(data, np.ndarray):
        array = data
    else:
        try:
            view = memoryview(data)
        except TypeError:
            raise TypeError(
                f"{function}: the data is a buffer (a numpy array, bytes, bytearray, "
                f"memoryview), not {_args.type_name(data)}"
            ) from None
        try:
            # Typed by the buffer's format, so that its byte order is known; no copy.
            array = np.asarray(view)
        except (TypeError, ValueError, NotImplementedError):
            raise TypeError(
                f"the buffer's format {view.format!r} is not one numpy reads, so its byte "
                "order is unknown: pass its bytes in XLA's order (little-endian) as bytes "
                "or a uint8 array"
            ) from None
    if not array.flags.c_contiguous:
        raise ValueError(
            "the buffer is not C-contiguous: its bytes are not one run "
            "(np.ascontiguousarray makes a copy that is)"
        )
    return _little_endian(array).reshape(-1).view(np.uint8)


def relayout(
    data: Any, src: ShapeLike, dst: ShapeLike, *, out: Optional[np.ndarray] = None
) -> np.ndarray:
    """``data`` (any buffer: a numpy array, ``bytes``, ``memoryview``) holding ``src``'s
    bytes, converted to ``dst``'s: a new ``uint8`` array of ``dst``'s byte length (or
    ``out``, a C-contiguous ``uint8`` array of that length), every element where ``dst``'s
    index map puts it and every padding bit zero.

    The input is read in place (no copy) and the GIL is released while the bytes move;
    do not write to ``data`` from another thread meanwhile. ``out`` may not share a byte of
    memory with ``data``, whatever objects provide the two (views, ``memoryview``, one
    ``bytearray`` behind both): ``xlayout.Error`` of kind ``BufferOverlap``. Shapes are
    ``Shape`` objects or text; the two must have the same element type and dimensions.

    >>> import numpy as np, xlayout
    >>> x = np.arange(15, dtype=np.float32)                   # f32[3,5], row-major
    >>> tiled = xlayout.relayout(x, "f32[3,5]", "f32[3,5]{1,0:T(2,2)}")
    >>> tiled.nbytes, float(tiled.view(np.float32)[17])       # Figure 1: (2,3) at 17
    (96, 13.0)
    >>> float(tiled.view(np.float32)[9])                      # padding
    0.0
    """
    return _relayout(data, src, dst, out, "relayout")


def _relayout(
    data: Any, src: ShapeLike, dst: ShapeLike, out: Optional[np.ndarray], function: str
) -> np.ndarray:
    """``relayout`` for ``function`` (``relayout``, ``tile``, ``untile``), which its
    messages name."""
    src, dst = _args.shape(src, function, "src"), _args.shape(dst, function, "dst")
    if out is not None and not (
        isinstance(out, np.ndarray) and out.dtype == np.uint8 and out.ndim == 1
    ):
        got = (
            f"a {out.ndim}-D {out.dtype} array"
            if isinstance(out, np.ndarray)
            else _args.type_name(out)
        )
        raise TypeError(f"{function}: `out` is a 1-D uint8 numpy array, not {got}")
    return _xlayout.relayout(_byte_view(data, function), src, dst, out)


# numpy's names for XLA's element types (ml_dtypes' for the narrow floats and integers).
_NUMPY_NAMES = {"pred": "bool", "bf16": "bfloat16"}
_XLA_NAMES = {v: k for k, v in _NUMPY_NAMES.items()}
_NUMPY_WIDTHS = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "f32", "f64"}
_NUMPY_WIDTHS |= {"c64", "c128"}


def _xla_type(dtype: np.dtype) -> str:
    """XLA's name of numpy's ``dtype``: ``float32`` is ``f32``, ``float8_e4m3fn``
    ``f8e4m3fn``, ``int4`` ``s4``."""
    name = np.dtype(dtype).name
    if name in _XLA_NAMES:
        return _XLA_NAMES[name]
    m = re.fullmatch(r"(uint|int|float|complex)(\d+)(?:_(\w+))?", name)
    if m is None:
        raise TypeError(f"numpy dtype {name} has no XLA element type")
    kind = {"uint": "u", "int": "s", "float": "f", "complex": "c"}[m[1]]
    return f"{kind}{m[2]}{m[3] or ''}"


def _numpy_type(element_type: str) -> np.dtype:
    """numpy's dtype of XLA's ``element_type`` (ml_dtypes' for ``bf16``, ``f8*``, ``s4``...)."""
    name = _NUMPY_NAMES.get(element_type)
    if name is None:
        m = re.fullmatch(r"([usfc])(\d+)(\w*)", element_type)
        if m is None:
            raise TypeError(f"XLA element type {element_type} has no numpy dtype")
        kind = {"u": "uint", "s": "int", "f": "float", "c": "complex"}[m[1]]
        name = f"{kind}{m[2]}" + (f"_{m[3]}" if m[3] else "")
        # numpy's own widths (by name: numpy reads "float8" as float64, "int4" as int32).
        if m[3] == "" and f"{m[1]}{m[2]}" in _NUMPY_WIDTHS:
            return np.dtype(name)
    if name == "bool":
        return np.dtype(name)
    try:
        import ml_dtypes
    except ImportError:
        raise TypeError(f"numpy knows {element_type} through ml_dtypes: pip install ml_dtypes")
    if not hasattr(ml_dtypes, name):
        raise TypeError(f"XLA element type {element_type} has no numpy dtype")
    return np.dtype(getattr(ml_dtypes, name))


def tile(array: Any, layout: ShapeLike) -> np.ndarray:
    """The logical numpy ``array`` in the tiled ``layout``: a ``uint8`` array of the
    layout's bytes (padding zero).

    ``layout`` is a layout (``"{1,0:T(8,128)}"``), a whole shape, or a ``Shape``; the element
    type is the array's dtype (``bfloat16``, ``float8_*``, ``int4`` from ml_dtypes too).
    An array that is not C-contiguous but whose axes are a permutation of contiguous
    memory (``x.T``) is read in place through the matching ``minor_to_major``; others are
    copied first, as are values in another byte order than XLA's, little-endian (``'>f4'``):
    converted, never reinterpreted.

    >>> import numpy as np, xlayout
    >>> x = np.arange(15, dtype=np.float32).reshape(3, 5)
    >>> xlayout.tile(x, "{1,0:T(2,2)}").view(np.float32)[16:20]
    array([12., 13.,  0.,  0.], dtype=float32)
    """
    if not isinstance(layout, (Shape, str)):
        raise TypeError(
            "tile: `layout` is a layout (a str: '{1,0:T(8,128)}'), a shape's text or a "
            f"Shape, not {_args.type_name(layout)}"
        )
    # XLA's buffers are little-endian: values in another byte order are converted.
    array = _little_endian(np.asarray(array))
    try:
        element_type = _xla_type(array.dtype)
    except TypeError as e:
        raise TypeError(f"tile: the array's {e}") from None
    dims = ",".join(str(d) for d in array.shape)
    # Axes major to minor, by stride: a permuted view of contiguous memory keeps its bytes.
    order = sorted(range(array.ndim), key=lambda a: -array.strides[a])
    physical = array.transpose(order)
    if not physical.flags.c_contiguous:
        order, physical = list(range(array.ndim)), np.ascontiguousarray(array)
    # Row-major is the default layout (and a scalar's is written without braces).
    minor_to_major = ",".join(str(a) for a in reversed(order))
    layout_of_src = "" if order == sorted(order) else f"{{{minor_to_major}}}"
    src = Shape(f"{element_type}[{dims}]{layout_of_src}")
    if isinstance(layout, str) and layout.lstrip().startswith("{"):
        layout = f"{element_type}[{dims}]{layout.strip()}"
    dst = _args.shape(layout, "tile", "layout")
    _same_array(array, element_type, dst)
    return _relayout(physical, src, dst, None, "tile")


def _same_array(array: np.ndarray, element_type: str, shape: Shape) -> None:
    """Raises ``xlayout.Error`` when ``tile``'s ``array`` (of XLA's ``element_type``) is not
    an array of ``shape``: its dtype and the layout's element type, or its shape and the
    layout's dimensions, named."""
    if shape.element_type is None:
        return  # a tuple: the extension says it is not an array, with the rule's name
    if shape.element_type != element_type:
        try:
            hint = f" to {_numpy_type(shape.element_type).name}"
        except TypeError:
            hint = ""
        raise _args.error(
            "ElementType",
            f"tile: the array is {array.dtype} (XLA's {element_type}) and the layout's shape "
            f"{shape} holds {shape.element_type}: convert the array{hint}, or give a layout "
            f"of {element_type}",
        )
    if tuple(shape.dims) != tuple(array.shape):
        raise _args.error(
            "ShapeMismatch",
            f"tile: the array's shape is {tuple(array.shape)} and the layout's shape {shape} "
            f"has dimensions {tuple(shape.dims)}",
        )


def untile(buffer: Any, shape: ShapeLike) -> np.ndarray:
    """The logical numpy array that ``buffer`` (any buffer holding ``shape``'s bytes)
    stores: C-ordered, of ``shape``'s dimensions and element type's dtype (little-endian, as
    XLA's buffers are). The inverse of ``tile``. A ``buffer`` of multi-byte values in
    another byte order (a ``'>f4'`` array) is converted to XLA's first.

    >>> import numpy as np, xlayout
    >>> x = np.arange(15, dtype=np.float32).reshape(3, 5)
    >>> s = "f32[3,5]{1,0:T(2,2)}"
    >>> bool((xlayout.untile(xlayout.tile(x, s), s) == x).all())
    True
    """
    shape = _args.shape(shape, "untile", "shape")
    dims = shape.dims  # an error for a tuple
    element_type = str(shape.element_type)
    # The buffer holds XLA's bytes, little-endian (numpy's native order on x86 and ARM).
    dtype = _numpy_type(element_type).newbyteorder("<")
    # `?` (unbounded) has no index space: relayout says so, with the rule's name.
    sizes = ",".join("?" if d is None else str(d) for d in dims)
    row_major = Shape(f"{element_type}[{sizes}]")
    return _relayout(buffer, shape, row_major, None, "untile").view(dtype).reshape(dims)


__version__: str
try:
    from importlib.metadata import version as _version

    __version__ = _version("xlayout")
except Exception:  # pragma: no cover - an uninstalled tree
    __version__ = "unknown"
