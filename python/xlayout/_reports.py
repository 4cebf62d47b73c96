"""``xlayout.hlo`` and ``xlayout.oom``: the library's reports, as the command's JSON.

Each report crosses from Rust as the JSON that ``xlayout hlo --format json`` (``xlayout peak``)
and ``xlayout oom --format json`` print for one file (the library's ``Serialize``, one
path): the records here are the command's, key for key, and follow it when it changes.
"""

from __future__ import annotations

import errno
import json
import os
from functools import cached_property, partial
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple, Union

from . import _args, _xlayout

PathLike = Union[str, "os.PathLike[str]"]


def _is_text(source: Any) -> bool:
    """Whether ``source`` is module text rather than a path: bytes, or a ``str`` with a line
    end (no file name has one)."""
    return isinstance(source, (bytes, bytearray, memoryview)) or (
        isinstance(source, str) and "\n" in source
    )


def _module_source(source: Any, function: str) -> Tuple[bytes, str]:
    """The bytes of HLO module text that ``source`` stands for, and a name for them: a JAX
    ``Compiled`` or ``Lowered`` (its compiled module), module text, or a file's path. A dump
    directory is ``hlo``'s to read (each of its modules)."""
    if hasattr(source, "as_text") and hasattr(source, "compile"):
        # A JAX `Lowered`: its text is StableHLO; the optimized HLO is the compiled one's.
        source = source.compile()
    if hasattr(source, "as_text") and not isinstance(source, (str, bytes, os.PathLike)):
        # A JAX `Compiled`: the optimized, scheduled module XLA runs.
        return source.as_text().encode(), "the compiled module"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "module text"
    if isinstance(source, str) and "\n" in source:
        return source.encode(), "module text"
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path):
            files = [os.fspath(f) for f in _xlayout.module_files(path)]
            if len(files) != 1:
                raise ValueError(
                    f"{function}: {path} holds {len(files)} module texts after optimizations "
                    f"({', '.join(files) or 'none'}); pass one of them"
                )
            path = files[0]
        with open(path, "rb") as f:
            return f.read(), path
    raise TypeError(
        f"{function}() takes a path, a dump directory, module text (str with a line end, or "
        f"bytes), or a JAX Compiled or Lowered object, not {_args.type_name(source)}"
    )


class HloReport:
    """Where the memory of one HLO module goes, and its peak: what ``xlayout hlo`` (and
    ``xlayout peak``) says of it.

    ``rows`` are the command's JSON records of every instruction (``instructions``), as
    dicts; ``totals``, ``top`` and ``diagnostics`` its other keys; ``peak`` the object of
    ``xlayout peak --format json``. In a notebook it shows as the command's HTML report
    (its peak, the timeline of live bytes, the buffers live at the peak).
    """

    def __init__(self, texts: Tuple[str, str, str], name: str, page: Callable[[], str]) -> None:
        report, peak, head = texts
        self._report_json = report
        # The page is made when it is shown (several times the size of what it shows).
        self._page = page
        # `module`, `is_scheduled` and `totals`, without parsing every row.
        self._head: Dict[str, Any] = json.loads(head)
        self.source: str = name
        #: The ``xlayout peak`` object: what XLA:CPU allocates (predicted, with its
        #: allocations), XLA's live-range peak step and bytes, the values live there (the
        #: first ``top``, none under ``min_bytes``), the high-water marks, and the rules not
        #: modelled.
        self.peak: Dict[str, Any] = json.loads(peak)

    @cached_property
    def _report(self) -> Dict[str, Any]:
        return json.loads(self._report_json)

    @property
    def module(self) -> Optional[str]:
        """The module's name (``HloModule NAME``), or ``None``."""
        return self._head["module"]

    @property
    def size_bytes(self) -> int:
        """What orders a dump directory's modules largest first: ``allocated_bytes`` for a
        scheduled module, the sum of every buffer it owns for one that is not."""
        return self._head["size_bytes"]

    @property
    def is_scheduled(self) -> bool:
        """Whether the module is marked ``is_scheduled=true`` (a peak needs a schedule)."""
        return self._head["is_scheduled"]

    def _allocation(self, key: str) -> Optional[int]:
        return self.peak[key] if self.is_scheduled else None

    @property
    def allocated_bytes(self) -> Optional[int]:
        """What XLA:CPU's buffer assignment allocates for the module, predicted from its
        text: ``compiled.memory_analysis()``'s arguments + outputs - aliased + temporaries.
        ``None`` when the module is not scheduled. Where a rule it needs is not modelled
        (``allocation_exact`` is false), ``peak["allocation_bounds"]`` says where it lies."""
        return self._allocation("allocated_bytes")

    @property
    def argument_bytes(self) -> Optional[int]:
        """The arguments' allocations (``argument_size_in_bytes``)."""
        return self._allocation("argument_bytes")

    @property
    def output_bytes(self) -> Optional[int]:
        """The outputs' allocations (``output_size_in_bytes``)."""
        return self._allocation("output_bytes")

    @property
    def alias_bytes(self) -> Optional[int]:
        """Donated parameters an output is written over (``alias_size_in_bytes``)."""
        return self._allocation("alias_bytes")

    @property
    def temp_bytes(self) -> Optional[int]:
        """The temporaries (``temp_size_in_bytes``)."""
        return self._allocation("temp_bytes")

    @property
    def allocation_exact(self) -> Optional[bool]:
        """Whether every rule the prediction needs is modelled."""
        return self.peak["allocation_exact"] if self.is_scheduled else None

    @property
    def live_range_peak_bytes(self) -> Optional[int]:
        """XLA's live-range peak (``HloLiveRange``): the bytes (``ByteSizeOf``) of the values
        live at its peak step, values that share memory each counted; ``None`` when the
        module is not scheduled. Not what is allocated: see ``allocated_bytes``."""
        return self.peak["live_range_peak_bytes"] if self.is_scheduled else None

    @property
    def live_range_peak_step(self) -> Optional[int]:
        """That peak's step in the flattened sequence; ``None`` when not scheduled."""
        return self.peak["live_range_peak_step"] if self.is_scheduled else None

    @property
    def peak_bytes(self) -> Optional[int]:
        """The old name of ``live_range_peak_bytes`` (XLA's live-range rule, not what is
        allocated), kept for one release."""
        return self.live_range_peak_bytes

    @property
    def peak_step(self) -> Optional[int]:
        """The old name of ``live_range_peak_step``, kept for one release."""
        return self.live_range_peak_step

    @property
    def rows(self) -> List[Dict[str, Any]]:
        """One dict per instruction, in file order: the command's JSON records. A row's
        ``computation`` and ``source_file`` are numbers: indexes in ``computations`` and
        ``source_files``, where each name is written once."""
        return self._report["instructions"]

    @property
    def computations(self) -> List[str]:
        """The module's computations' names in text order: a row's ``computation`` indexes
        them."""
        return self._report["computations"]

    @property
    def source_files(self) -> List[str]:
        """The source files the instructions come from, each once: a row's ``source_file``
        indexes them (``source_line`` is the line)."""
        return self._report["source_files"]

    @property
    def totals(self) -> Dict[str, Any]:
        """Owned memory in all, per memory space and per computation."""
        return self._head["totals"]

    @property
    def top(self) -> Dict[str, List[Dict[str, Any]]]:
        """The top lists: ``allocated``, ``padding``, ``expansion`` (rows as in ``rows``)."""
        return self._report["top"]

    @property
    def diagnostics(self) -> List[Dict[str, Any]]:
        """The lines the reader could not understand, with their line numbers."""
        return self._report["diagnostics"]

    def to_pandas(self) -> Any:
        """``rows`` as a ``pandas.DataFrame`` (pandas is needed for this only)."""
        import pandas

        return pandas.DataFrame(self.rows)

    def _repr_html_(self) -> str:
        return self._page()

    def __repr__(self) -> str:
        if self.allocated_bytes is None:
            what = "unscheduled"
        else:
            exact = "" if self.allocation_exact else " (not every rule modelled)"
            what = f"allocated {self.allocated_bytes} bytes{exact}"
        return f"<xlayout.HloReport {self.module or self.source}: {what}>"


def _key(path: str, file: str, name: Optional[str], shared: bool) -> str:
    """A dump directory's module by name: its module name, or where two modules share one (a
    function compiled twice) the start of its file's name up to the module name, as XLA
    numbers them (``module_0014.jit_stage``); the file's path within the directory for a
    module without a name."""
    base = os.path.basename(file)
    if name and not shared:
        return name
    if name:
        at = base.find(f".{name}.")
        if at >= 0:
            return base[: at + len(name) + 1]
    return os.path.relpath(file, path)


class HloModules(Mapping[str, HloReport]):
    """The reports of a dump directory's modules (``XLA_FLAGS=--xla_dump_to=DIR``: a JAX
    program compiles its step and helpers such as ``jit__threefry_seed`` or
    ``jit_broadcast_in_dim``), as ``xlayout hlo DIR`` reports each: a mapping from module
    name to ``HloReport``, the largest first (``HloReport.size_bytes``: what XLA:CPU
    allocates for each). In a notebook it shows them on one page, the largest open and the
    small ones folded.
    """

    def __init__(
        self, path: str, reports: List[Tuple[str, HloReport]], page: Callable[[], str]
    ) -> None:
        #: The dump directory.
        self.path = path
        self._reports: Dict[str, HloReport] = dict(reports)
        # The page is made when it is shown, from the directory read again.
        self._page = page

    def __getitem__(self, key: str) -> HloReport:
        return self._reports[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._reports)

    def __len__(self) -> int:
        return len(self._reports)

    @property
    def largest(self) -> HloReport:
        """The largest module's report (the first)."""
        return next(iter(self._reports.values()))

    def _repr_html_(self) -> str:
        return self._page()

    def __getattr__(self, name: str) -> Any:
        # A report's attribute asked of the directory: say how to pick a module.
        if not name.startswith("_") and hasattr(HloReport, name):
            first = next(iter(self._reports), None)
            raise AttributeError(
                f"{name!r} is a module's: {self.path} holds {len(self)} modules ({', '.join(self)}); "
                f"pick one, reports[{first!r}] (the largest), or xlayout.hlo(DIR, module=NAME)"
            )
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        if not self._reports:
            return f"<xlayout.HloModules {self.path}: no modules>"
        return (
            f"<xlayout.HloModules {self.path}: {len(self)} modules, the largest "
            f"{next(iter(self))} ({self.largest.size_bytes} bytes)>"
        )


def _file_page(file: str, top: int, min_bytes: int) -> str:
    """The page of the module in ``file`` (a dump directory's), read when it is shown."""
    with open(file, "rb") as f:
        return _xlayout.hlo_html(f.read(), file, top, min_bytes)


def _dump(path: str, top: int, min_bytes: int, module: Optional[str]) -> Any:
    """``hlo`` of the dump directory ``path``: every module, or the one named ``module``."""
    modules = _xlayout.hlo_dump(path, top, min_bytes, module)

    def report(texts: Tuple[str, str, str], file: str) -> HloReport:
        return HloReport(texts, file, partial(_file_page, file, top, min_bytes))
    if not modules:
        # As the command says of it, with exit status 1.
        raise FileNotFoundError(
            errno.ENOENT, "no module text after optimizations (*after_optimizations.txt) here", path
        )
    if module is None:
        names = [name for _, name, _ in modules]
        keyed = [
            (_key(path, file, name, names.count(name) > 1), report(texts, file))
            for file, name, texts in modules
        ]
        return HloModules(path, keyed, partial(_xlayout.hlo_dump_html, path, top, min_bytes))
    chosen = [(file, texts) for file, _, texts in modules if texts is not None]
    if len(chosen) == 1:
        file, texts = chosen[0]
        return report(texts, file)
    if not chosen:
        names = ", ".join(sorted({name or "(unnamed)" for _, name, _ in modules})) or "none"
        raise KeyError(f"hlo: {path} has no module named {module!r}; its modules: {names}")
    files = ", ".join(file for file, _ in chosen)
    raise ValueError(
        f"hlo: {path} has {len(chosen)} modules named {module!r} ({files}): pass the file "
        "of the one you mean"
    )


def hlo(
    source: Any, *, top: int = 20, min_bytes: int = 0, module: Optional[str] = None
) -> Union[HloReport, HloModules]:
    """The report of an HLO module, as ``xlayout hlo`` and ``xlayout peak`` give it.

    ``source`` is a path (``str`` or ``os.PathLike``), module text (a ``str`` with a line
    end, or ``bytes``), or a JAX ``Compiled`` or ``Lowered`` object (its optimized HLO):
    one ``HloReport``. A dump directory (``XLA_FLAGS=--xla_dump_to=DIR``) gives the
    reports of each of its modules after optimizations, as ``xlayout hlo DIR`` does: an
    ``HloModules``, a mapping from module name to report, largest first; or with
    ``module``, the report of the module of that name. ``top`` bounds the top lists and
    the peak's live list, as ``--top`` does; ``min_bytes`` leaves smaller buffers out of
    them, as ``--min-bytes`` does. StableHLO (``lower(...).as_text()``) is not HLO module
    text: ``xlayout.Error`` of kind ``NotHlo`` says what to give instead.

    >>> import xlayout
    >>> r = xlayout.hlo("HloModule m, is_scheduled=true\\n\\nENTRY %e {\\n"
    ...                 "  %p = f32[10]{0:T(8)} parameter(0)\\n"
    ...                 "  ROOT %n = f32[10]{0:T(8)} negate(%p)\\n}\\n")
    >>> r.live_range_peak_step, r.live_range_peak_bytes, [row["array_bytes"] for row in r.rows]
    (1, 80, [64, 64])
    """
    top = _args.count(top, "hlo", "top")
    min_bytes = _args.byte_count(min_bytes, "hlo", "min_bytes")
    module = _args.optional_str(module, "hlo", "module")
    if isinstance(source, (str, os.PathLike)) and not _is_text(source):
        path = os.fspath(source)
        if os.path.isdir(path):
            return _dump(path, top, min_bytes, module)
    if module is not None:
        raise ValueError(
            "hlo: `module` picks a module of a dump directory, and this source is one module"
        )
    data, name = _module_source(source, "hlo")
    page = partial(_xlayout.hlo_html, data, name, top, min_bytes)
    return HloReport(_xlayout.hlo_report(data, name, top, min_bytes), name, page)


class OomReport:
    """An out-of-memory report read and recomputed, as ``xlayout oom`` says it.

    ``entries`` are the command's JSON records, one flat dict per listed allocation whose
    keys are the command's TSV columns (``size_bytes``, ``logical_bytes``, ``expansion``,
    ``inferred_tiling``, ...), ``None`` where the command prints ``-``; the header's
    figures (``used``, ``capacity``, ``allocating``, ...) are keys of ``data``. In a
    notebook it shows as a page: the header, the entries added up, the entries as a table.
    """

    def __init__(self, texts: Tuple[str, str], name: str) -> None:
        report, html = texts
        #: The whole JSON object of ``xlayout oom --format json`` for this report.
        self.data: Dict[str, Any] = json.loads(report)
        #: What the report was read from: its path, ``text``, or the exception.
        self.source: str = name
        self._html = html

    @property
    def entries(self) -> List[Dict[str, Any]]:
        """The allocations listed, in order."""
        return self.data["entries"]

    @property
    def totals(self) -> Dict[str, Any]:
        """Entries, bytes recomputed, padding and its share."""
        return self.data["totals"]

    @property
    def problems(self) -> List[Dict[str, Any]]:
        """What could not be read, with lines and entry numbers."""
        return self.data["problems"]

    def _repr_html_(self) -> str:
        return self._html

    def __repr__(self) -> str:
        space = f" {self.data['memory_space']}" if self.data.get("memory_space") else ""
        return f"<xlayout.OomReport {self.data['kind']}{space}: {len(self.entries)} entries>"


def _oom_source(source: Any) -> Tuple[bytes, str]:
    """The bytes of the report ``source`` stands for, and a name for them."""
    if isinstance(source, BaseException):
        return str(source).encode(), f"the {type(source).__name__}"
    if isinstance(source, os.PathLike) or (
        # A str that names a file is a path; any other str is the report's text.
        isinstance(source, str) and "\n" not in source and os.path.isfile(source)
    ):
        path = os.fspath(source)
        with open(path, "rb") as f:
            return f.read(), path
    if isinstance(source, str):
        if "\n" in source:
            return source.encode(), "text"
        shown = source if len(source) <= 60 else source[:59] + "\u2026"
        return source.encode(), f"text {shown!r} (no file has that name)"
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), "text"
    raise TypeError(
        f"oom() takes a report's text, a path to it (os.PathLike, or a str naming a file), "
        f"or the exception JAX raised, not {_args.type_name(source)}"
    )


def oom(source: Any) -> OomReport:
    """An out-of-memory report explained: ``source`` is its text (``str`` or ``bytes``), a
    path to it (``os.PathLike``, or a ``str`` that names a file), or the exception JAX
    raised (its message). XLA:CPU's one line (``Out of memory allocating N bytes.``) is
    read too: the size it asked for. Text with no report in it raises ``xlayout.Error`` of
    kind ``NoOomReport``, as the command exits 1 for it.

    >>> import xlayout
    >>> r = xlayout.oom("Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.\\n"
    ...                 "  Largest program allocations in vmem:\\n  1. Size: 5.00M\\n"
    ...                 "     Shape: bf16[16,1280,40]{2,1,0}\\n     Unpadded size: 1.56M\\n")
    >>> e = r.entries[0]
    >>> e["recomputed_shape"], e["size_bytes"], e["logical_bytes"], e["expansion"]
    ('bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}', 5242880, 1638400, 3.2)
    >>> xlayout.oom("RESOURCE_EXHAUSTED: Out of memory allocating 549755813888 bytes.").data["allocating"]
    {'text': '549755813888', 'bytes': 549755813888, 'rounded': False}
    """
    data, name = _oom_source(source)
    return OomReport(_xlayout.oom_report(data, name), name)


class Relayouts:
    """Where one HLO module moves bytes to change layouts, as ``xlayout relayouts`` says it.

    ``rows`` are the command's JSON records, one dict per instruction that only moves
    elements (``copy``, ``transpose``, ``reshape``, ``bitcast``, ``copy-start``; fusion
    bodies included), the most bytes moved first: its ``from`` and ``to`` shapes, whether
    it keeps every element where it was (``bitcast``, tiles included), the bytes it reads
    and writes when it does not, and ``bitcast_layout``, the result layout that would make
    it free.
    """

    def __init__(self, data: bytes, name: str) -> None:
        #: The object of ``xlayout relayouts --format json`` for this module, without ``file``.
        self.data: Dict[str, Any] = json.loads(_xlayout.relayouts_report(data, name))
        self.source: str = name

    @property
    def module(self) -> Optional[str]:
        """The module's name (``HloModule NAME``), or ``None``."""
        return self.data["module"]

    @property
    def rows(self) -> List[Dict[str, Any]]:
        """One dict per instruction that only moves elements, the most bytes moved first."""
        return self.data["rows"]

    @property
    def free(self) -> int:
        """How many of them keep every element where it was."""
        return self.data["free"]

    @property
    def moved_bytes(self) -> int:
        """The bytes moved to change layouts, in all (read and written)."""
        return self.data["moved_bytes"]

    def to_pandas(self) -> Any:
        """``rows`` as a ``pandas.DataFrame`` (pandas is needed for this only)."""
        import pandas

        return pandas.DataFrame(self.rows)

    def __repr__(self) -> str:
        return (
            f"<xlayout.Relayouts {self.module or self.source}: {len(self.rows)} instructions, "
            f"{self.free} free, {self.moved_bytes} bytes moved>"
        )


def relayouts(source: Any) -> Relayouts:
    """Every instruction of one HLO module that only moves elements, as ``xlayout
    relayouts`` lists it; ``source`` as for ``hlo()`` (a path, a dump directory, module
    text, a JAX ``Compiled`` or ``Lowered`` object).

    >>> import xlayout
    >>> r = xlayout.relayouts("HloModule m\\n\\nENTRY %e {\\n"
    ...                       "  %p = f32[4,128]{1,0:T(8,128)} parameter(0)\\n"
    ...                       "  ROOT %r = f32[4,1,128]{2,1,0:T(8,128)} reshape(%p)\\n}\\n")
    >>> row = r.rows[0]
    >>> row["bitcast"], row["moved_bytes"], row["bitcast_layout"]
    (False, 20480, 'f32[4,1,128]{2,0,1:T(8,128)}')
    """
    data, name = _module_source(source, "relayouts")
    return Relayouts(data, name)
