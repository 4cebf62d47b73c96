"""A JAX function's memory: its compiled module through ``xlayout.hlo``, beside what
``compiled.memory_analysis()`` says. JAX is imported here only, when it is called; it is
not a dependency of the package."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from ._ffi import Library, load
from ._reports import HloReport, hlo

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
    module), ``memory_analysis`` (JAX's figures, a dict), and ``explanation`` (how the two
    relate, in sentences). ``peak_bytes`` and ``peak_step`` are the report's."""

    def __init__(self, report: HloReport, stats: Dict[str, int]) -> None:
        self.report = report
        self.memory_analysis = stats

    @property
    def peak_bytes(self) -> Optional[int]:
        """XLA's peak of live values (``HloLiveRange``), in bytes."""
        return self.report.peak_bytes

    @property
    def peak_step(self) -> Optional[int]:
        """The step of that peak in the module's flattened sequence."""
        return self.report.peak_step

    @property
    def allocated_bytes(self) -> Optional[int]:
        """What XLA's buffer assignment allocates in all, by ``memory_analysis()``:
        arguments + outputs - aliased + temporaries."""
        s = self.memory_analysis
        keys = ("argument_size_in_bytes", "output_size_in_bytes", "temp_size_in_bytes")
        if not all(k in s for k in keys):
            return None
        return sum(s[k] for k in keys) - s.get("alias_size_in_bytes", 0)

    @property
    def explanation(self) -> str:
        """The peak and ``memory_analysis()``'s figures side by side, and why they differ."""
        s = self.memory_analysis
        lines = []
        peak = self.peak_bytes
        if peak is None:
            lines.append("the compiled module is not scheduled: it has no peak by XLA's rule")
        else:
            at = self.report.peak.get("peak_instruction")
            lines.append(
                f"peak of live values (XLA's HloLiveRange): {peak} bytes at step "
                f"{self.peak_step} ({at})"
            )
        allocated = self.allocated_bytes
        if allocated is not None:
            lines.append(
                "allocated by XLA's buffer assignment (memory_analysis): "
                f"{s['argument_size_in_bytes']} arguments + {s['output_size_in_bytes']} "
                f"outputs - {s.get('alias_size_in_bytes', 0)} aliased + "
                f"{s['temp_size_in_bytes']} temporaries = {allocated} bytes"
            )
        if peak is not None and allocated is not None:
            if allocated == peak:
                lines.append("the same: every allocation is live at the peak")
            elif allocated > peak:
                lines.append(
                    f"{allocated - peak} bytes more allocated than live at the peak: the "
                    "buffer assignment sizes each allocation for every value it ever holds "
                    "(values live at different steps, arguments and outputs for the whole "
                    "run), so its total is at least what is live at any one step"
                )
            else:
                lines.append(
                    f"{peak - allocated} bytes more live at the peak than allocated: values "
                    "that share one allocation (a loop's carried buffers, in-place updates, "
                    "a tuple and its elements) are each counted in the live list, as XLA's "
                    "own list counts them"
                )
        if "peak_memory_in_bytes" in s and peak is not None:
            lines.append(
                f"memory_analysis' peak_memory_in_bytes: {s['peak_memory_in_bytes']} bytes "
                "(PJRT's figure: the peak XProf's memory viewer draws, computed by XLA's "
                "ComputePeakMemorySizes from the buffer assignment's heap-simulator traces, "
                "not from the live ranges; xlayout does not recompute it)"
            )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        note = "<br>".join(escape(line) for line in self.explanation.splitlines())
        return f"<p class='xlayout-jax'>{note}</p>\n{self.report._repr_html_()}"

    def __repr__(self) -> str:
        return f"<xlayout.jax.Memory peak {self.peak_bytes} bytes, allocated {self.allocated_bytes}>"


def memory(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Memory:
    """Lowers and compiles ``fn`` for these arguments with JAX (``jax.jit(fn)`` unless it is
    jitted already), analyses the compiled module with ``xlayout.hlo``, and sets beside
    it what ``compiled.memory_analysis()`` says.

    >>> import jax.numpy as jnp, xlayout.jax
    >>> m = xlayout.jax.memory(lambda x: jnp.sin(x) * 2, jnp.ones((256, 128)))
    >>> m.peak_bytes == 2 * 256 * 128 * 4 == m.allocated_bytes   # the argument and the result
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
