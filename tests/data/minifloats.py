#!/usr/bin/env python3
"""Writes tests/data/minifloats.txt: XLA's narrow float types as ml_dtypes converts them.

For each type (XLA name, then the ml_dtypes dtype):

- `to_f32`: the f32 bits ml_dtypes gives for every encoding. 8-bit types: all 256 bytes;
  6- and 4-bit types: the 64 / 16 canonical bytes (high bits zero, as XLA stores them one per
  byte; ml_dtypes reads a byte with high bits set inconsistently, so those are not recorded).
- `from_f32`: ml_dtypes's conversion of every one of the 2^32 f32 bit patterns, as runs: each
  line `START BYTE` says that the patterns from START (inclusive) up to the next line's START
  convert to BYTE. The scan is exhaustive (every pattern is converted), so the runs are the
  whole function, rounding, overflow, NaN and signed zeros included.

Needs `pip install ml_dtypes numpy`; takes a few minutes per type. Run from the repository root:
`python3 tests/data/minifloats.py > tests/data/minifloats.txt`.
"""
import sys

import ml_dtypes
import numpy as np

TYPES = [
    ("f8e5m2", "float8_e5m2"),
    ("f8e4m3", "float8_e4m3"),
    ("f8e4m3fn", "float8_e4m3fn"),
    ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"),
    ("f8e3m4", "float8_e3m4"),
    ("f8e5m2fnuz", "float8_e5m2fnuz"),
    ("f8e4m3fnuz", "float8_e4m3fnuz"),
    ("f8e8m0fnu", "float8_e8m0fnu"),
    ("f6e3m2fn", "float6_e3m2fn"),
    ("f6e2m3fn", "float6_e2m3fn"),
    ("f4e2m1fn", "float4_e2m1fn"),
]

CHUNK = 1 << 24


def runs(dtype):
    """(start, byte) for every maximal run of f32 patterns converting to the same byte."""
    out = []
    last = None
    for base in range(0, 1 << 32, CHUNK):
        x = np.arange(base, base + CHUNK, dtype=np.uint64).astype(np.uint32)
        with np.errstate(invalid="ignore", over="ignore"):
            y = x.view(np.float32).astype(dtype).view(np.uint8)
        change = np.flatnonzero(y[1:] != y[:-1]) + 1
        if last is None or y[0] != last:
            out.append((base, int(y[0])))
        for i in change:
            out.append((base + int(i), int(y[i])))
        last = y[-1]
    return out


def main():
    w = sys.stdout.write
    w("# XLA's narrow float types as ml_dtypes %s (numpy %s) converts them;\n"
      % (ml_dtypes.__version__, np.__version__))
    w("# written by tests/data/minifloats.py, which says what each section means.\n")
    for name, attr in TYPES:
        dtype = getattr(ml_dtypes, attr)
        bits = ml_dtypes.finfo(dtype).bits
        codes = np.arange(1 << bits, dtype=np.uint8)
        f = codes.view(dtype).astype(np.float32).view(np.uint32)
        w("type %s %d\n" % (name, bits))
        w("to_f32 %s\n" % " ".join("%08x" % v for v in f))
        r = runs(dtype)
        w("from_f32 %d\n" % len(r))
        for start, byte in r:
            w("%08x %02x\n" % (start, byte))
        sys.stderr.write("%s: %d runs\n" % (name, len(r)))


if __name__ == "__main__":
    main()
