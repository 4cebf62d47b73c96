"""Calls the handlers of the ffi-kernels library (src/lib.rs) from JAX, under jax.jit, and
checks each against numpy to the bit.

    cargo build --release -p ffi-kernels
    python examples/ffi_kernels/call_from_jax.py [LIBRARY]

Without LIBRARY, cargo is asked where it built the library. Needs the xlayout Python
package (pip install ./python), jax and ml_dtypes.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jax
import ml_dtypes
import numpy as np

import xlayout.jax

HERE = Path(__file__).resolve().parent


def library() -> str:
    """The shared library ``cargo build --release -p ffi-kernels`` makes, as cargo reports
    it (wherever its target directory is)."""
    build = subprocess.run(
        ["cargo", "build", "--release", "-p", "ffi-kernels", "--message-format=json"],
        cwd=HERE,
        capture_output=True,
        text=True,
        check=True,
    )
    for line in build.stdout.splitlines():
        message = json.loads(line)
        target = message.get("target", {})
        if message.get("reason") == "compiler-artifact" and "cdylib" in target.get("kind", []):
            if target.get("name") == "ffi_kernels":
                return next(f for f in message["filenames"] if not f.endswith(".rlib"))
    raise RuntimeError("cargo built no cdylib named ffi_kernels")


def same_bits(a, b) -> bool:
    """Equal to the bit (a NaN equals the same NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def wide_bf16(rng: np.random.Generator, shape) -> np.ndarray:
    """bf16 values of magnitudes 2**-24 to 2**24: their f32 sums round differently in
    different orders (of values near 1, any order gives the same exact sum)."""
    scale = np.exp2(rng.integers(-24, 24, shape)).astype(np.float32)
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(ml_dtypes.bfloat16)


def row_sums_left_to_right(x: np.ndarray) -> np.ndarray:
    """Each row's sum in f32, added left to right (cumsum adds in order; np.sum pairwise)."""
    if x.shape[1] == 0:
        return np.zeros(x.shape[0], np.float32)
    return np.cumsum(x.astype(np.float32), axis=1, dtype=np.float32)[:, -1]


def main(path: str) -> None:
    k = xlayout.jax.load(path)
    rng = np.random.default_rng(33)

    x = rng.standard_normal((64, 32), dtype=np.float32)
    y = rng.standard_normal((64, 32), dtype=np.float32)
    out = jax.jit(k.transpose_add)(x, y)
    assert same_bits(out, x + y)
    print("transpose_add(x, y) == x + y:", k.transpose_add.__doc__)

    b = wide_bf16(rng, (8, 256))
    assert same_bits(jax.jit(k.row_sum)(b), row_sums_left_to_right(b))
    print("row_sum(b) == numpy's row sums in f32, left to right")

    for rows in (1, 13, 1000):
        b = wide_bf16(rng, (rows, 256))
        assert same_bits(jax.jit(k.row_sums)(b), row_sums_left_to_right(b))
    print("row_sums(b) for 1, 13 and 1000 rows: one handler, a dynamic batch")

    x = rng.standard_normal((5, 128), dtype=np.float32)
    assert same_bits(jax.jit(lambda v: k.scale(v, factor=0.1))(x), x * np.float32(0.1))
    print("scale(x, factor=0.1) == x * float32(0.1): the attribute converted to f32")

    try:
        jax.jit(k.transpose_add)(np.zeros((64, 32), np.int32), y)
    except jax.errors.JaxRuntimeError as e:
        print("a wrong call is an exception:", str(e).splitlines()[0])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else library())
