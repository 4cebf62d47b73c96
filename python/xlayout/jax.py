"""A JAX function's memory: its compiled module through ``xlayout.hlo``, beside what
``compiled.memory_analysis()`` says. JAX is imported here only, when it is called; it is
not a dependency of the package."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from . import _xlayout
from ._ffi import Library, load
from ._reports import HloReport, hlo


def _size(n: int) -> str:
    """``n`` bytes as the report beside the text prints them (``256.0KiB``)."""
    return _xlayout.iec_bytes(n)


def _total(n: int) -> str:
    """A total: in the report's units, and exact."""
    return f"{_size(n)} ({n} bytes)"

# The fields of JAX's CompiledMemoryStats that describe device memory.
_STATS = (
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
    "generated_code_size_in_bytes",
    "peak_memory_in_bytes",
)


class Memory:
    """What ``memory`` found: ``report`` (the ``xlayout.hlo`` report of the compiled
    module), ``memory_analysis`` (JAX's figures, a dict), and ``explanation`` (how they
    relate, in sentences). ``allocated_bytes`` is what XLA:CPU allocates, predicted from the
    module's text; ``memory_analysis_bytes`` the same total by ``memory_analysis()``."""

    def __init__(self, report: HloReport, stats: Dict[str, int]) -> None:
        self.report = report
        self.memory_analysis = stats

    @property
    def allocated_bytes(self) -> Optional[int]:
        """What XLA:CPU's buffer assignment allocates, predicted from the compiled module's
        text: arguments + outputs - aliased + temporaries."""
        return self.report.allocated_bytes

    @property
    def memory_analysis_bytes(self) -> Optional[int]:
        """The same total by ``compiled.memory_analysis()``: arguments + outputs - aliased +
        temporaries."""
        s = self.memory_analysis
        keys = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes")
        if not all(k in s for k in keys):
            return None
        return sum(s[k] for k in keys) - s.get("alias_size_in_bytes", 0)

    @property
    def agrees(self) -> Optional[bool]:
        """Whether the prediction is ``memory_analysis()``'s, field by field (``None`` when
        either is missing)."""
        s = self.memory_analysis
        r = self.report
        if r.allocated_bytes is None or self.memory_analysis_bytes is None:
            return None
        return (r.argument_bytes, r.output_bytes, r.alias_bytes, r.temp_bytes) == (
            s["argument_size_in_bytes"], s["output_size_in_bytes"],
            s.get("alias_size_in_bytes", 0), s["temp_size_in_bytes"],
        )

    @property
    def live_range_peak_bytes(self) -> Optional[int]:
        """XLA's live-range peak (``HloLiveRange``), in bytes: not what is allocated."""
        return self.report.live_range_peak_bytes

    @property
    def live_range_peak_step(self) -> Optional[int]:
        """The step of that peak in the module's flattened sequence."""
        return self.report.live_range_peak_step

    @property
    def peak_bytes(self) -> Optional[int]:
        """The old name of ``live_range_peak_bytes``, kept for one release."""
        return self.live_range_peak_bytes

    @property
    def peak_step(self) -> Optional[int]:
        """The old name of ``live_range_peak_step``, kept for one release."""
        return self.live_range_peak_step

    @property
    def explanation(self) -> str:
        """What is allocated (predicted and by ``memory_analysis()``) and XLA's live-range
        peak, side by side, and why the peak is another figure."""
        r = self.report
        lines = []
        allocated = self.allocated_bytes
        if allocated is None:
            lines.append("the compiled module is not scheduled: there is no allocation yet")
        else:
            exact = "" if r.allocation_exact else " (not every rule it needs is modelled)"
            lines.append(
                "allocated by XLA:CPU's buffer assignment, predicted from the module: "
                f"{_size(r.argument_bytes)} arguments + {_size(r.output_bytes)} outputs - "
                f"{_size(r.alias_bytes)} aliased + {_size(r.temp_bytes)} temporaries = "
                f"{_total(allocated)}{exact}"
            )
        s = self.memory_analysis
        if self.memory_analysis_bytes is not None:
            verdict = {True: "the same", False: "NOT the same", None: "nothing to compare"}
            lines.append(
                "memory_analysis(): "
                f"{_size(s['argument_size_in_bytes'])} + {_size(s['output_size_in_bytes'])} - "
                f"{_size(s.get('alias_size_in_bytes', 0))} + {_size(s['temp_size_in_bytes'])} = "
                f"{_total(self.memory_analysis_bytes)}: {verdict[self.agrees]}"
            )
        peak = self.live_range_peak_bytes
        if peak is not None:
            at = r.peak.get("live_range_peak_instruction")
            lines.append(
                f"XLA's live-range peak (HloLiveRange): {_total(peak)} at step "
                f"{self.live_range_peak_step} ({at}), which counts each value while it is live: "
                "values that share memory (a loop's carried buffers, in-place updates) each "
                "count, and temporaries packed at the same offsets count apart, so it is not "
                "what is allocated"
            )
        if "peak_memory_in_bytes" in s:
            lines.append(
                f"memory_analysis' peak_memory_in_bytes: {_total(s['peak_memory_in_bytes'])} "
                "(PJRT's figure, from the buffer assignment's heap-simulator traces; xlayout "
                "does not recompute it)"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        note = "<br>".join(escape(line) for line in self.explanation.splitlines())
        return f"<p class='xlayout-jax'>{note}</p>\n{self.report._repr_html_()}"

    def __repr__(self) -> str:
        return (
            f"<xlayout.jax.Memory allocated {self.allocated_bytes} bytes, "
            f"memory_analysis {self.memory_analysis_bytes}>"
        )


def memory(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Memory:
    """Lowers and compiles ``fn`` for these arguments with JAX (``jax.jit(fn)`` unless it is
    jitted already), analyses the compiled module with ``xlayout.hlo``, and sets beside
    it what ``compiled.memory_analysis()`` says.

    >>> import jax.numpy as jnp, xlayout.jax
    >>> m = xlayout.jax.memory(lambda x: jnp.sin(x) * 2, jnp.ones((256, 128)))
    >>> m.allocated_bytes == 2 * 256 * 128 * 4 == m.memory_analysis_bytes   # the argument and the result
    True
    """
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    compiled = jitted.lower(*args, **kwargs).compile()
    analysis = compiled.memory_analysis()
    stats = {}
    if analysis is not None:
        for k in _STATS:
            v = getattr(analysis, k, None)
            if isinstance(v, int):
                stats[k] = v
    return Memory(hlo(compiled), stats)
