"""Real JAX programs on CPU through xlayout.jax.memory: what XLA:CPU allocates, predicted
from the compiled text, is ``compiled.memory_analysis()``'s, and the live-range peak is the
command's on the same text."""

import json

import jax
import jax.numpy as jnp
import pytest

import xlayout
import xlayout.jax
from conftest import run

jax.config.update("jax_platforms", "cpu")


def test_explanation_sizes_are_in_the_pages_units():
    # Not raw byte counts above a page in MiB: 2 x 256 x 128 f32 = 256.0KiB.
    m = xlayout.jax.memory(lambda x: jnp.sin(x) * 2, jnp.ones((256, 128)))
    first = m.explanation.splitlines()[0]
    assert first == (
        "allocated by XLA:CPU's buffer assignment, predicted from the module: 128.0KiB "
        "arguments + 128.0KiB outputs - 0B aliased + 0B temporaries = 256.0KiB (262144 bytes)"
    )
    assert "128.0KiB" in m._repr_html_().split("</p>")[0]


def mlp(x, w1, w2):
    return jnp.tanh(jax.nn.relu(x @ w1) @ w2).sum()


def train_step(w, x, y):
    loss = lambda w: ((x @ w - y) ** 2).mean()
    return w - 0.1 * jax.grad(loss)(w)


def scan_cumsum(x):
    return jax.lax.scan(lambda c, y: (c + y, c + y), jnp.zeros(x.shape[1]), x)[1]


def sort_and_cumsum(x):
    return jnp.sort(x * 2, axis=0)[::-1] + jnp.cumsum(x, axis=1)


PROGRAMS = [
    (mlp, (jnp.ones((128, 256)), jnp.ones((256, 512)), jnp.ones((512, 64)))),
    (train_step, (jnp.ones((256, 256)), jnp.ones((64, 256)), jnp.ones((64, 256)))),
    (scan_cumsum, (jnp.ones((64, 16)),)),
    (sort_and_cumsum, (jnp.ones((1000, 300)),)),
]


@pytest.mark.parametrize("fn, args", PROGRAMS, ids=[p[0].__name__ for p in PROGRAMS])
def test_allocation_is_memory_analysis_and_peak_is_the_commands(command, tmp_path, fn, args):
    m = xlayout.jax.memory(fn, *args)
    text = jax.jit(fn).lower(*args).compile().as_text()
    dump = tmp_path / "module.txt"
    dump.write_text(text)
    peak = json.loads(run([command, "peak", "--format", "json", dump]).stdout)
    peak = peak["files"][0]
    assert peak["scheduled"]
    assert (m.live_range_peak_step, m.live_range_peak_bytes) == (
        peak["live_range_peak_step"], peak["live_range_peak_bytes"]
    )
    assert (m.allocated_bytes, m.report.temp_bytes) == (
        peak["allocated_bytes"], peak["temp_bytes"]
    )
    assert m.report.rows == xlayout.hlo(dump).rows
    # The prediction is memory_analysis(), field by field, on this machine's jaxlib.
    s = m.memory_analysis
    assert m.agrees is True, m.explanation
    assert m.allocated_bytes == m.memory_analysis_bytes == (
        s["argument_size_in_bytes"] + s["output_size_in_bytes"]
        - s["alias_size_in_bytes"] + s["temp_size_in_bytes"]
    )
    # In the report's units (as the page under it prints them), totals exact beside them.
    iec = xlayout._xlayout.iec_bytes
    peak_bytes, allocated = m.live_range_peak_bytes, m.allocated_bytes
    assert f"{iec(peak_bytes)} ({peak_bytes} bytes) at step {m.live_range_peak_step}" in m.explanation
    assert f"{iec(m.report.argument_bytes)} arguments + " in m.explanation
    assert f"= {iec(allocated)} ({allocated} bytes)" in m.explanation
    assert f"= {iec(allocated)} ({allocated} bytes): the same" in m.explanation
    assert "allocated" in m._repr_html_()


def test_lowered_and_compiled_objects_are_sources():
    lowered = jax.jit(mlp).lower(*PROGRAMS[0][1])
    compiled = lowered.compile()
    assert xlayout.hlo(lowered).rows == xlayout.hlo(compiled).rows
    assert xlayout.hlo(compiled).allocated_bytes == xlayout.jax.memory(mlp, *PROGRAMS[0][1]).allocated_bytes


def test_an_unfusable_program_allocates_more_than_its_live_range_peak():
    # The sort's temporaries live at different steps: the assignment packs them, and its
    # total is above the live-range peak here; the explanation says which figure is which.
    m = xlayout.jax.memory(sort_and_cumsum, jnp.ones((1000, 300)))
    assert m.agrees is True
    assert m.allocated_bytes > m.live_range_peak_bytes
    assert "not what is allocated" in m.explanation
    # The old names of the live-range figures, kept for one release.
    assert (m.peak_bytes, m.peak_step) == (m.live_range_peak_bytes, m.live_range_peak_step)
