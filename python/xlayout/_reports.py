"""``xlayout.hlo`` and ``xlayout.oom``: the library's reports, as the command's JSON.

Each report crosses from Rust as the JSON that ``xlayout hlo --format json`` (``xlayout peak``)
and ``xlayout oom --format json`` print for one file (the library's ``Serialize``, one
path): the records here are the command's, key for key, and follow it when it changes.
"""

from __future__ import annotations

import json
import os
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple, Union

from . import _xlayout

PathLike = Union[str, "os.PathLike[str]"]


def _module_source(source: Any) -> Tuple[bytes, str]:
    """The bytes of HLO module text that ``source`` stands for, and a name for them."""
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
                    f"{path}: {len(files)} module texts after optimizations "
                    f"({', '.join(files) or 'none'}); pass one of them"
                )
            path = files[0]
        with open(path, "rb") as f:
            return f.read(), path
    raise TypeError(
        "hlo() takes a path, a dump directory, module text (str with a line end, or bytes), "
        f"or a JAX Compiled or Lowered object, not {type(source).__name__}"
    )


class HloReport:
    """Where the memory of one HLO module goes, and its peak: what ``xlayout hlo`` (and
    ``xlayout peak``) says of it.

    ``rows`` are the command's JSON records of every instruction (``instructions``), as
    dicts; ``totals``, ``top`` and ``diagnostics`` its other keys; ``peak`` the object of
    ``xlayout peak --format json``. In a notebook it shows as the command's HTML report
    (its peak, the timeline of live bytes, the buffers live at the peak).
    """

    def __init__(self, bytes_: bytes, name: str, top: int, min_bytes: int = 0) -> None:
        report, peak, head = _xlayout.hlo_report(bytes_, top, min_bytes)
        self._report_json = report
        # The page is made when it is shown (several times the size of what it shows).
        self._page_of = (bytes_, name, top, min_bytes)
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
        return _xlayout.hlo_html(*self._page_of)

    def __repr__(self) -> str:
        if self.allocated_bytes is None:
            what = "unscheduled"
        else:
            exact = "" if self.allocation_exact else " (not every rule modelled)"
            what = f"allocated {self.allocated_bytes} bytes{exact}"
        return f"<xlayout.HloReport {self.module or self.source}: {what}>"


def hlo(source: Any, *, top: int = 20, min_bytes: int = 0) -> HloReport:
    """The report of one HLO module, as ``xlayout hlo`` and ``xlayout peak`` give it.

    ``source`` is a path (``str`` or ``os.PathLike``), a dump directory (its one module
    text after optimizations), module text (a ``str`` with a line end, or ``bytes``), or
    a JAX ``Compiled`` or ``Lowered`` object (its optimized HLO). ``top`` bounds the top
    lists and the peak's live list, as ``--top`` does; ``min_bytes`` leaves smaller values
    out of the peak's live list, as ``xlayout peak --min-bytes`` does.

    >>> import xlayout
    >>> r = xlayout.hlo("HloModule m, is_scheduled=true\\n\\nENTRY %e {\\n"
    ...                 "  %p = f32[10]{0:T(8)} parameter(0)\\n"
    ...                 "  ROOT %n = f32[10]{0:T(8)} negate(%p)\\n}\\n")
    >>> r.live_range_peak_step, r.live_range_peak_bytes, [row["array_bytes"] for row in r.rows]
    (1, 80, [64, 64])
    """
    data, name = _module_source(source)
    if top < 0 or min_bytes < 0:
        raise ValueError(f"top and min_bytes are counts, not {top} and {min_bytes}")
    return HloReport(data, name, top, min_bytes)


class OomReport:
    """An out-of-memory report read and recomputed, as ``xlayout oom`` says it.

    ``entries`` are the command's JSON records, one flat dict per listed allocation whose
    keys are the command's TSV columns (``size_bytes``, ``logical_bytes``, ``expansion``,
    ``inferred_tiling``, ...), ``None`` where the command prints ``-``; the header's
    figures (``used``, ``capacity``, ...) are keys of ``data``.
    """

    def __init__(self, data: bytes) -> None:
        #: The whole JSON object of ``xlayout oom --format json`` for this report.
        self.data: Dict[str, Any] = json.loads(_xlayout.oom_report(data))

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

    def __repr__(self) -> str:
        space = f" {self.data['memory_space']}" if self.data.get("memory_space") else ""
        return f"<xlayout.OomReport {self.data['kind']}{space}: {len(self.entries)} entries>"


def oom(source: Any) -> OomReport:
    """An out-of-memory report explained: ``source`` is its text, a path to it, or the
    exception JAX raised (its message).

    >>> import xlayout
    >>> r = xlayout.oom("Ran out of memory in memory space vmem. Used 20.00M of 16.00M vmem.\\n"
    ...                 "  Largest program allocations in vmem:\\n  1. Size: 5.00M\\n"
    ...                 "     Shape: bf16[16,1280,40]{2,1,0}\\n     Unpadded size: 1.56M\\n")
    >>> e = r.entries[0]
    >>> e["recomputed_shape"], e["size_bytes"], e["logical_bytes"], e["expansion"]
    ('bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}', 5242880, 1638400, 3.2)
    """
    if isinstance(source, BaseException):
        data = str(source).encode()
    elif isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source):
        with open(os.fspath(source), "rb") as f:
            data = f.read()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    elif isinstance(source, str):
        data = source.encode()
    else:
        raise TypeError(f"oom() takes text, a path or an exception, not {type(source).__name__}")
    return OomReport(data)


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
        self.data: Dict[str, Any] = json.loads(_xlayout.relayouts_report(data))
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
    data, name = _module_source(source)
    return Relayouts(data, name)
