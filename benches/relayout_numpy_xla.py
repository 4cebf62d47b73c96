#!/usr/bin/env python3
"""The eight relayout cases of `benches/relayout.rs`, done by numpy and by XLA:CPU.

numpy: the pad-reshape-transpose recipe of each destination layout (what
`xlayout explain` prints), the transpose materialized with `np.copyto` into a
preallocated buffer (the padding and the sub-byte unpacking allocate their own).
XLA:CPU: the same recipe as a `jax.jit` function (all cores; XLA allocates its output on
every call: with glibc's allocator those are fresh pages, faulted in each time, which
dominates; run with `LD_PRELOAD=<libjemalloc.so.2> MALLOC_CONF=retain:true,dirty_decay_ms:-1`
to see the kernel alone). The sub-byte case has no numpy or XLA element type in memory, so both unpack
the nibbles to bytes, transpose, and pack them again: the same bytes in and out as xlayout.

Each is timed against numpy's copy of as many bytes as the relayout writes
(`np.copyto`), in this process, best of the rounds, alternating: the ratio is the copy's
time over the relayout's, as BENCHMARKS.md reports for xlayout.

Needs only `pip install jax numpy`. Run: `python3 benches/relayout_numpy_xla.py`
(`--rounds N`, default 9; `--case TEXT` keeps the cases whose name contains TEXT).
Each recipe is checked against the tiled index map on sample elements before timing.

`--numpy-only` leaves XLA out (and needs only numpy); `--json` prints one JSON object per
case instead of the table: what `cargo bench --bench relayout` runs to put numpy's recipe
beside xlayout in its own table; `--clock thread` times on this thread's CPU clock (with
`--numpy-only`: XLA's threads would not count).
"""

import argparse
import json
import time

import numpy as np


CLOCK = time.perf_counter


def best(f, rounds):
    times = []
    for _ in range(rounds):
        t = CLOCK()
        f()
        times.append(CLOCK() - t)
    return min(times)


# Each case: name, source array (numpy), the recipe (xp is numpy or jax.numpy; it ends
# with the transpose, whose contiguous copy is the destination), the logical shape, and
# for checking: the source element at a logical index, and the destination element
# offset of that index.


def tiled(r, c, tr, tc, cols):
    """Offset of (r, c) in a row-major 2-D array tiled by (tr, tc), `cols` padded columns."""
    return ((r // tr) * (cols // tc) + c // tc) * tr * tc + (r % tr) * tc + c % tc


def grouped(r, c, tr, tc, g, cols):
    """Offset of (r, c) under T(tr,tc)(g,1): groups of `g` rows interleaved in each tile."""
    tile = (r // tr) * (cols // tc) + c // tc
    return tile * tr * tc + ((r % tr) // g) * tc * g + (c % tc) * g + r % g


def nibble(buf, k):
    return (buf[k // 2] >> (4 * (k % 2))) & 15


def cases():
    rng = np.random.default_rng(7)
    n, m = 4096, 8192
    at = lambda x, r, c: x[r, c]

    f32 = rng.random((n, n), dtype=np.float32)

    def to_tiled(xp, x):
        return xp.transpose(x.reshape(512, 8, 32, 128), (0, 2, 1, 3))

    yield ("f32 4096x4096 -> T(8,128)", f32, to_tiled, (n, n), at,
           lambda r, c: tiled(r, c, 8, 128, n))

    f32_tiled = np.ascontiguousarray(to_tiled(np, f32)).reshape(-1)

    def from_tiled(xp, x):
        # Ends with the transpose: its contiguous copy is the row-major array.
        return xp.transpose(x.reshape(512, 32, 8, 128), (0, 2, 1, 3))

    yield ("f32 4096x4096 T(8,128) -> row-major", f32_tiled, from_tiled, (n, n),
           lambda x, r, c: x[tiled(r, c, 8, 128, n)], lambda r, c: r * n + c)

    edges = rng.random((4099, 4097), dtype=np.float32)

    def pad_tiled(xp, x):
        x = xp.pad(x, ((0, 4104 - 4099), (0, 4224 - 4097)))
        return xp.transpose(x.reshape(513, 8, 33, 128), (0, 2, 1, 3))

    yield ("f32 4099x4097 -> T(8,128) (edges)", edges, pad_tiled, edges.shape, at,
           lambda r, c: tiled(r, c, 8, 128, 4224))

    bf16 = rng.integers(0, 1 << 16, (m, m), dtype=np.uint16)  # the bytes of bf16 values

    def pairs(xp, x):
        # [tile row, tile column, row pair, column, row in the pair]
        return xp.transpose(x.reshape(1024, 4, 2, 64, 128), (0, 3, 1, 4, 2))

    yield ("bf16 8192x8192 -> T(8,128)(2,1)", bf16, pairs, (m, m), at,
           lambda r, c: grouped(r, c, 8, 128, 2, m))

    bf16_paired = np.ascontiguousarray(pairs(np, bf16)).reshape(-1)

    def unpairs(xp, x):
        return xp.transpose(x.reshape(1024, 64, 4, 128, 2), (0, 2, 4, 1, 3))

    yield ("bf16 8192x8192 T(8,128)(2,1) -> row-major", bf16_paired, unpairs, (m, m),
           lambda x, r, c: x[grouped(r, c, 8, 128, 2, m)], lambda r, c: r * m + c)

    s8 = rng.integers(-128, 128, (m, m), dtype=np.int8)

    def quads(xp, x):
        return xp.transpose(x.reshape(256, 8, 4, 64, 128), (0, 3, 1, 4, 2))

    yield ("s8 8192x8192 -> T(32,128)(4,1)", s8, quads, (m, m), at,
           lambda r, c: grouped(r, c, 32, 128, 4, m))

    cube = rng.random((64, 512, 512), dtype=np.float32)

    def swap(xp, x):
        return xp.transpose(x, (0, 2, 1))

    yield ("f32 64x512x512 {2,1,0} -> {1,2,0}", cube, swap, cube.shape,
           lambda x, p, i, j: x[p, i, j], lambda p, i, j: (p * 512 + j) * 512 + i)

    s4 = rng.integers(0, 256, m * m // 2, dtype=np.uint8)  # two s4 per byte, low first

    def nibbles(xp, x):
        e = xp.stack([x & 15, x >> 4], axis=-1).reshape(m, m)  # element (r, c)
        t = xp.transpose(e.reshape(128, 8, 8, 64, 128), (0, 3, 1, 4, 2)).reshape(-1, 2)
        return t[:, 0] | (t[:, 1] << 4)

    yield ("s4 8192x8192 E(4) -> T(64,128)(8,1)E(4)", s4, nibbles, (m, m),
           lambda x, r, c: nibble(x, r * m + c), lambda r, c: grouped(r, c, 64, 128, 8, m),
           "packed")


def check(case):
    """The recipe puts sample elements where the tiled index map says."""
    name, src, recipe, shape, read, offset = case[:6]
    out = np.ascontiguousarray(recipe(np, src)).reshape(-1)
    get = (lambda o: nibble(out, o)) if len(case) > 6 else (lambda o: out[o])
    rng = np.random.default_rng(1)
    for _ in range(500):
        index = tuple(int(rng.integers(0, d)) for d in shape)
        assert get(offset(*index)) == read(src, *index), (name, index)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--case", default="")
    ap.add_argument("--numpy-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--clock", choices=["wall", "thread"], default="wall")
    args = ap.parse_args()
    if args.clock == "thread":
        # This thread's CPU time: on a busy machine, time descheduled does not count (numpy
        # runs the recipe and the copy on this thread; XLA's own threads would not count).
        global CLOCK
        CLOCK = time.thread_time
    xla = not args.numpy_only
    if xla:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_platforms", "cpu")
    if not args.json:
        devices = f", jax {jax.__version__}, devices {jax.devices()}" if xla else ""
        print(f"numpy {np.__version__}{devices}")
        print()
        print(
            "| case | bytes written | numpy copy GB/s | numpy pad-reshape-transpose GB/s | "
            "÷ copy | XLA:CPU (jax.jit) GB/s | ÷ copy |"
        )
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for case in cases():
        name, src, recipe = case[:3]
        if args.case not in name:
            continue
        check(case)
        view = recipe(np, src)
        out = np.empty(view.shape, view.dtype)
        # The whole recipe is timed: padding and the sub-byte unpacking allocate and
        # compute before the copy that materializes the transpose.
        numpy_recipe = lambda: np.copyto(out, recipe(np, src))
        nbytes = out.nbytes
        copy_src = np.ones(nbytes, np.uint8)
        copy_dst = np.empty(nbytes, np.uint8)
        if xla:
            x = jnp.asarray(src)
            f = jax.jit(lambda a: recipe(jnp, a))
            f(x).block_until_ready()
            xla_out = np.asarray(f(x)).reshape(-1)
            assert np.array_equal(xla_out, np.ascontiguousarray(view).reshape(-1)), name
        np.copyto(out, view)
        np.copyto(copy_dst, copy_src)
        t_copy = t_np = t_xla = float("inf")
        for _ in range(args.rounds):
            t_copy = min(t_copy, best(lambda: np.copyto(copy_dst, copy_src), 1))
            t_np = min(t_np, best(numpy_recipe, 1))
            if xla:
                t_xla = min(t_xla, best(lambda: f(x).block_until_ready(), 1))
        gbs = lambda t: nbytes / t / 1e9
        if args.json:
            record = {"case": name, "bytes": nbytes, "copy_s": t_copy, "recipe_s": t_np}
            if xla:
                record["xla_s"] = t_xla
            print(json.dumps(record), flush=True)
            continue
        xla_cells = f"{gbs(t_xla):.2f} | {t_copy / t_xla:.2f}" if xla else "- | -"
        print(
            f"| {name} | {nbytes} | {gbs(t_copy):.2f} | {gbs(t_np):.2f} | {t_copy / t_np:.2f} "
            f"| {xla_cells} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
