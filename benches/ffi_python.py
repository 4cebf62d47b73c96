#!/usr/bin/env python3
"""Handlers of `xlayout::ffi` called from JAX: what a call costs, and a kernel beside XLA's.

Two comparisons, each timed in one process, alternating, in rounds:

- per call: `jax.jit` of the `empty` handler of examples/ffi_kernels (f32[] in, f32[] out:
  the FFI boundary, the frame's checks and a copy of one scalar) beside `jax.jit` of a
  no-op (`lambda x: x`) and of one XLA operation on the same scalar (`lambda x: -x`);
  each timed over `--calls` calls with `block_until_ready` on each result;
- a large input: `row_sums` (bf16[65536,256] -> f32[65536], each row added left to right)
  beside `jax.jit(lambda b: jnp.sum(b, axis=1, dtype=jnp.float32))` of the same array
  (XLA's reduction, in its own order), each call timed by the wall clock and by the
  process's CPU time (all threads).

Each figure is the median of the rounds (and the best), with the ratios. Needs the package
installed (`pip install ./python`), jax and ml_dtypes, and the library built
(`cargo build --release -p ffi-kernels`). Run: `python3 benches/ffi_python.py`
(`--rounds N`, default 15; `--calls N`, default 2000; `--library PATH`, default what cargo
reports).
"""

import argparse
import importlib.util
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import xlayout.jax

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ffi_kernels" / "call_from_jax.py"


def example():
    spec = importlib.util.spec_from_file_location("call_from_jax", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def per_call(f, x, calls):
    """Seconds per call of `f(x)`, each waited for."""
    t = time.perf_counter()
    for _ in range(calls):
        f(x).block_until_ready()
    return (time.perf_counter() - t) / calls


def once(f, x):
    """Seconds of one call of `f(x)`: (wall clock, this process's CPU time in all threads).
    The CPU time is the steadier figure on a machine other processes keep busy."""
    t, c = time.perf_counter(), time.process_time()
    f(x).block_until_ready()
    return time.perf_counter() - t, time.process_time() - c


def report(title, unit, scale, times, baseline):
    print(title)
    base = statistics.median(times[baseline])
    for name, ts in times.items():
        median, best = statistics.median(ts), min(ts)
        print(
            f"  {name:<34} median {median * scale:9.2f} {unit}  best {best * scale:9.2f} {unit}"
            f"  x{median / base:5.2f} of {baseline}"
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--library")
    args = parser.parse_args()
    jax.config.update("jax_platforms", "cpu")
    ex = example()
    k = xlayout.jax.load(args.library or ex.library())

    scalar = jax.device_put(np.float32(1.5))
    calls = {
        "jit(lambda x: x)": jax.jit(lambda x: x),
        "jit(lambda x: -x)": jax.jit(lambda x: -x),
        "jit(empty) (the Rust handler)": jax.jit(k.empty),
    }
    for f in calls.values():
        per_call(f, scalar, 100)  # compiled and warm
    times = {name: [] for name in calls}
    for _ in range(args.rounds):
        for name, f in calls.items():
            times[name].append(per_call(f, scalar, args.calls))
    report(
        f"per call, f32[] in and out ({args.calls} calls a round, {args.rounds} rounds):",
        "us", 1e6, times, "jit(lambda x: -x)",
    )

    rows = 65536
    b = jax.device_put(ex.wide_bf16(np.random.default_rng(33), (rows, 256)))
    kernels = {
        "jnp.sum(b, axis=1, dtype=f32)": jax.jit(lambda v: jnp.sum(v, axis=1, dtype=jnp.float32)),
        "row_sums(b) (the Rust handler)": jax.jit(k.row_sums),
    }
    expected = ex.row_sums_left_to_right(np.asarray(b))
    assert ex.same_bits(kernels["row_sums(b) (the Rust handler)"](b), expected)
    for f in kernels.values():
        once(f, b)
    wall = {name: [] for name in kernels}
    cpu = {name: [] for name in kernels}
    for _ in range(args.rounds):
        for name, f in kernels.items():
            w, c = once(f, b)
            wall[name].append(w)
            cpu[name].append(c)
    size = f"bf16[{rows},256] -> f32[{rows}] ({rows * 256 * 2 >> 20} MiB in, {args.rounds} rounds)"
    report(f"{size}, wall clock:", "ms", 1e3, wall, "jnp.sum(b, axis=1, dtype=f32)")
    report(f"{size}, CPU time:", "ms", 1e3, cpu, "jnp.sum(b, axis=1, dtype=f32)")


if __name__ == "__main__":
    main()
