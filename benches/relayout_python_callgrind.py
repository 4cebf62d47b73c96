#!/usr/bin/env python3
"""The Python call's overhead in instructions: `xlayout.relayout` from Python, the Rust call
(`_xlayout._time_rust_relayout`) and numpy's recipe, K times each on the case of
`benches/relayout_python.py` (64 MiB f32 to T(8,128), into a faulted-in destination).

Run under callgrind at K=1 and K=3; per call = (count(K=3) - count(K=1)) / 2:
`valgrind --tool=callgrind --callgrind-out-file=/dev/null python3 benches/relayout_python_callgrind.py python 3`
(MODE: python, rust or numpy).
"""
import sys
import numpy as np
import xlayout
from xlayout import _xlayout
n = 4096
x = np.random.default_rng(7).random((n, n), dtype=np.float32)
src = xlayout.Shape(f"f32[{n},{n}]{{1,0}}")
dst = xlayout.Shape(f"f32[{n},{n}]{{1,0:T(8,128)}}")
buf = np.zeros(dst.byte_size, np.uint8)
buf[:] = 1  # fault the pages in before counting
view = x.reshape(-1).view(np.uint8)
mode, k = sys.argv[1], int(sys.argv[2])
for _ in range(k):
    if mode == "python":
        xlayout.relayout(x, src, dst, out=buf)
    elif mode == "rust":
        _xlayout._time_rust_relayout(view, src, dst, buf)
    elif mode == "numpy":
        np.copyto(buf.view(np.float32).reshape(n // 8, n // 128, 8, 128),
                  x.reshape(n // 8, 8, n // 128, 128).transpose(0, 2, 1, 3))
