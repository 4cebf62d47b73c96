"""XLA FFI handlers written in Rust with ``xlayout::ffi::handler!``, loaded for JAX: each
handler's layouts are read from the library (its ``xlayout_ffi_manifest``), never written
again in Python, and become ``jax.ffi.ffi_call``'s result shapes, ``input_layouts`` and
``output_layouts``."""

from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._xlayout import Shape

# The manifest format this loader reads (`layout-macros/src/ffi/manifest.rs`).
_FORMAT = 1
# A library is never unloaded: XLA keeps its handlers' addresses for the process's life.
_LIBRARIES: List[ctypes.CDLL] = []
# The most handlers read from one manifest: a bound on what a broken library (whose manifest
# never ends) makes the loader read.
_MAX_HANDLERS = 1 << 16


class _Buffer:
    """One declared buffer: its name, its layout text and what ``ffi_call`` needs of it."""

    def __init__(self, name: str, text: str) -> None:
        from . import _numpy_type

        self.name = name
        self.text = text
        shape = Shape(text)
        self.rank = len(shape.dims)
        # `?` has no size; a bound `<=N` or a static size is the size Python uses when no
        # argument gives one.
        self.dims: Tuple[Optional[int], ...] = tuple(shape.dims)
        self.dtype = _numpy_type(str(shape.element_type))
        # ffi_call takes each layout major-to-minor: XLA's minor_to_major reversed.
        self.major_to_minor = tuple(reversed(shape.minor_to_major))


class Library:
    """A loaded handler library: one callable per handler, as an attribute of its name
    (``library.transpose_add``), each usable inside ``jax.jit``. ``handlers`` maps the
    names to the callables; ``path`` is the file loaded."""

    def __init__(self, path: str, handlers: Dict[str, Callable[..., Any]]) -> None:
        self.path = path
        self.handlers = handlers

    def __getattr__(self, name: str) -> Callable[..., Any]:
        handlers = self.__dict__.get("handlers", {})
        if name in handlers:
            return handlers[name]
        raise AttributeError(
            f"{self.__dict__.get('path')} has no handler {name!r} "
            f"(it has: {', '.join(handlers) or 'none'})"
        )

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self.handlers))

    def __repr__(self) -> str:
        return f"<xlayout.jax.Library {self.path}: {', '.join(self.handlers)}>"


def _manifests(lib: ctypes.CDLL, path: str) -> List[Dict[str, Any]]:
    try:
        manifest = lib.xlayout_ffi_manifest
    except AttributeError:
        raise ValueError(
            f"{path} exports no xlayout_ffi_manifest: declare its handlers with "
            "xlayout::ffi::handler! and list them in xlayout::ffi::export!"
        ) from None
    manifest.restype = ctypes.c_char_p
    manifest.argtypes = [ctypes.c_size_t]
    found = []
    for index in range(_MAX_HANDLERS):
        text = manifest(index)
        if text is None:
            return found
        entry = json.loads(text.decode("utf-8"))
        if entry.get("format") != _FORMAT:
            raise ValueError(
                f"{path}: handler manifest format {entry.get('format')!r}, this xlayout "
                f"reads {_FORMAT}: build the library with the same xlayout release"
            )
        found.append(entry)
    raise ValueError(f"{path}: more than {_MAX_HANDLERS} handlers in its manifest")


def _callable(entry: Dict[str, Any]) -> Callable[..., Any]:
    """The Python function of one handler: ``ffi_call`` with the declared layouts."""
    import jax
    import numpy as np

    name = entry["name"]
    args = [_Buffer(a["name"], a["shape"]) for a in entry["args"]]
    results = [_Buffer(r["name"], r["shape"]) for r in entry["results"]]
    attr_types = {a["name"]: _attribute_type(a["type"]) for a in entry["attrs"]}
    arg_index = {a.name: i for i, a in enumerate(args)}
    result_index = {r.name: i for i, r in enumerate(results)}
    # Each result dimension given by an argument's: (result, dim) -> (argument, dim).
    given: Dict[Tuple[int, int], Tuple[int, int]] = {}
    for left, ldim, right, rdim in entry["equal_dims"]:
        for (a, ad), (b, bd) in (((left, ldim), (right, rdim)), ((right, rdim), (left, ldim))):
            if a in result_index and b in arg_index:
                given.setdefault((result_index[a], ad), (arg_index[b], bd))
    signature = (
        f"{name}({', '.join(f'{a.name}: {a.text}' for a in args)}"
        + "".join(f", {k}: {t.__name__}" for k, t in attr_types.items())
        + f") -> ({', '.join(f'{r.name}: {r.text}' for r in results)})"
    )

    def call(*arrays: Any, **attributes: Any) -> Any:
        if len(arrays) != len(args):
            raise TypeError(
                f"{name} takes {len(args)} array(s) ({', '.join(a.name for a in args)}), "
                f"got {len(arrays)}: {signature}"
            )
        shapes = [tuple(np.shape(x)) for x in arrays]
        for buffer, shape in zip(args, shapes):
            if len(shape) != buffer.rank:
                raise TypeError(
                    f"{name}: argument `{buffer.name}` has shape {shape} (rank {len(shape)}), "
                    f"the handler takes {buffer.text} (rank {buffer.rank})"
                )
        out = []
        for j, r in enumerate(results):
            dims = []
            for d, size in enumerate(r.dims):
                if (j, d) in given:
                    a, ad = given[(j, d)]
                    size = shapes[a][ad]
                dims.append(size)
            out.append(jax.ShapeDtypeStruct(tuple(dims), r.dtype))
        converted = {
            k: attr_types[k](v) if k in attr_types else v for k, v in attributes.items()
        }
        target = jax.ffi.ffi_call(
            name,
            out,
            input_layouts=[a.major_to_minor for a in args],
            output_layouts=[r.major_to_minor for r in results],
        )
        values = target(*arrays, **converted)
        if len(results) == 1:
            return values[0]
        return tuple(values)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"The XLA FFI handler {signature}, through jax.ffi.ffi_call."
    return call


def _attribute_type(xla: str) -> Callable[[Any], Any]:
    """The numpy scalar type of a declared attribute (``f32`` -> ``np.float32``)."""
    from . import _numpy_type

    return _numpy_type(xla).type


def load(path: "os.PathLike[str] | str") -> Library:
    """Loads a library of XLA FFI handlers written with ``xlayout::ffi::handler!`` (a Rust
    ``cdylib``), registers each handler with XLA's CPU backend, and returns a ``Library``
    with one callable per handler, usable inside ``jax.jit``.

    Each callable takes the arrays in the declared order and the attributes as keywords
    (converted to the declared scalar types), and returns the result (a tuple for several).
    The layouts come from the library: the handler checks every call's buffers against the
    same declaration, and a mismatch or a panic in the handler raises
    ``jax.errors.JaxRuntimeError`` naming it. No differentiation rule is given:
    ``jax.grad`` of a handler raises JAX's error for ``ffi_call``.
    """
    import jax

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(
            f"load: `path` is a library's path (a str or os.PathLike), not {type(path).__name__}"
        )
    path = os.fspath(path)
    lib = ctypes.CDLL(path)
    entries = _manifests(lib, path)
    # The CPU backend first: a registration it refuses then raises here, where a queued one
    # would break the backend's start (and every later JAX operation) instead.
    jax.devices("cpu")
    handlers: Dict[str, Callable[..., Any]] = {}
    for entry in entries:
        capsule = jax.ffi.pycapsule(getattr(lib, entry["name"]))
        # The one function answers every stage: instantiate checks the attributes when the
        # program is compiled, execute runs the kernel.
        jax.ffi.register_ffi_target(
            entry["name"], {"instantiate": capsule, "execute": capsule}, platform="cpu"
        )
        handlers[entry["name"]] = _callable(entry)
    _LIBRARIES.append(lib)
    return Library(path, handlers)
