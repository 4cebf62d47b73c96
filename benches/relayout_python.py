#!/usr/bin/env python3
"""`xlayout.relayout` from Python against numpy's recipe and the Rust call, one process.

The case of BENCHMARKS.md's Python section: a 64 MiB f32 array (4096 x 4096, row-major)
to `T(8,128)`. Timed, alternating, in rounds:

- numpy: the pad-reshape-transpose recipe (`benches/relayout_numpy_xla.py`), its
  transpose materialized with `np.copyto` into a preallocated buffer;
- xlayout: `xlayout.relayout(x, src, dst, out=buf)` into a preallocated buffer (the
  Python call: argument conversion, the plan, the GIL released around the run);
- Rust: `xlayout::relayout` (plan and run) on the same buffers, timed inside the
  extension (`_xlayout._time_rust_relayout`): the Rust call without Python around it;
- and the two that allocate their output on every call: `xlayout.relayout(x, src, dst)`
  (zeroed pages from calloc, faulted in by the writes) against numpy's
  `np.ascontiguousarray` of the transposed view.

Each figure is the median of the rounds (and the best), in ms, with the ratios.
Needs the package installed (`pip install ./python`). Run: `python3 benches/relayout_python.py`
(`--rounds N`, default 21).
"""

import argparse
import statistics
import time

import numpy as np

import xlayout
from xlayout import _xlayout


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21)
    rounds = parser.parse_args().rounds

    n = 4096
    x = np.random.default_rng(7).random((n, n), dtype=np.float32)
    src = xlayout.Shape(f"f32[{n},{n}]{{1,0}}")
    dst = xlayout.Shape(f"f32[{n},{n}]{{1,0:T(8,128)}}")
    buf = np.zeros(dst.byte_size, np.uint8)
    recipe_out = np.zeros((n // 8, n // 128, 8, 128), np.float32)

    def recipe():
        np.copyto(recipe_out, x.reshape(n // 8, 8, n // 128, 128).transpose(0, 2, 1, 3))

    def recipe_fresh():
        np.ascontiguousarray(x.reshape(n // 8, 8, n // 128, 128).transpose(0, 2, 1, 3))

    def python():
        xlayout.relayout(x, src, dst, out=buf)

    def python_fresh():
        xlayout.relayout(x, src, dst)

    # The answers agree before anything is timed.
    recipe()
    python()
    assert buf.tobytes() == recipe_out.tobytes()
    assert xlayout.relayout(x, src, dst).tobytes() == recipe_out.tobytes()
    view = x.reshape(-1).view(np.uint8)

    times = {k: [] for k in ("numpy", "xlayout", "rust", "numpy fresh", "xlayout fresh")}
    for _ in range(rounds):
        times["numpy"].append(timed(recipe))
        times["xlayout"].append(timed(python))
        times["rust"].append(_xlayout._time_rust_relayout(view, src, dst, buf))
        times["numpy fresh"].append(timed(recipe_fresh))
        times["xlayout fresh"].append(timed(python_fresh))

    med = {k: statistics.median(v) for k, v in times.items()}
    best = {k: min(v) for k, v in times.items()}
    gbs = lambda s: buf.nbytes / s / 1e9
    print(f"f32 {n}x{n} -> T(8,128), {buf.nbytes >> 20} MiB, {rounds} rounds")
    for k in times:
        print(f"  {k:14} median {med[k] * 1e3:7.2f} ms ({gbs(med[k]):5.2f} GB/s)"
              f"  best {best[k] * 1e3:7.2f} ms")
    print(f"  xlayout / rust (median):         {med['xlayout'] / med['rust']:.3f}")
    print(f"  numpy / xlayout (median):        {med['numpy'] / med['xlayout']:.2f}x")
    print(f"  numpy fresh / xlayout fresh:     {med['numpy fresh'] / med['xlayout fresh']:.2f}x")


if __name__ == "__main__":
    main()
