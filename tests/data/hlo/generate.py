#!/usr/bin/env python3
"""Regenerate the XLA test data under tests/data/hlo/ (the Rust tests never run this).

How to run, from the repository root (the path matters: see "Paths" below):

    pip install jax==0.10.2        # CPU jaxlib 0.10.2, numpy, ml_dtypes
    python3 tests/data/hlo/generate.py

Versions used for the committed data: jax 0.10.2, jaxlib 0.10.2 (jaxlib git
990e6a0b84138346e6a38785412f36356e0e5dc3), Python 3.11.7, numpy 2.4.6, ml_dtypes 0.6.0,
x86_64 Linux, AMD EPYC (Zen 3, AVX2). The script refuses other jax/jaxlib versions unless
`--any-version` is given (XLA's dump formats and its optimizations change between releases).

What it writes (README.md beside this file explains every field):

* `jax_cpu/<program>/`: for each small JAX program, jit-compiled on CPU with
  `XLA_FLAGS="--xla_dump_to=DIR --xla_dump_hlo_as_text --xla_dump_buffer_assignment_analysis=true"`,
  the files XLA dumped, renamed to stable names:
    before_optimizations.txt       <- module_NNNN.jit_<program>.before_optimizations.txt
    after_optimizations.txt        <- module_NNNN.jit_<program>.cpu_after_optimizations.txt
    buffer_assignment.txt          <- ...cpu_after_optimizations-buffer-assignment.txt
    buffer_assignment_values.txt   <- ...cpu_after_optimizations-buffer-assignment-values.txt
    live_range.txt                 <- ...cpu_after_optimizations-live-range.txt
    memory_usage_report.txt        <- ...cpu_after_optimizations-memory-usage-report.txt
* `jax_cpu/manifest.json`: per program its description, the original file names, XLA's
  figures read from those files (peak step, peak bytes, live buffers at the peak, allocations
  and their values) and `compiled.memory_analysis()`.
* `xla_sizes.json`: XLA's own `ShapeUtil::ArraySize` and `ShapeUtil::ByteSizeOf` for shapes
  with layouts (tiled, sub-byte, dynamic, memory spaces), called in jaxlib's
  libjax_common.so through ctypes (the Python API does not expose them).

Paths: JAX records the caller's source file in each module's `FileNames` table. The compile
step (a child process, see COMPILE_BOOTSTRAP) compiles this file's text under the name
`tests/data/hlo/generate.py`, so the dumps are the same wherever the repository lives (the
bootstrap's own frame shows as `<string>`). Every edit of this file moves the line numbers in
the dumps' metadata: regenerate and commit the data with it.

The compile step runs in a child process: XLA may finish writing dump files asynchronously,
and every file is on disk once that process has exited.
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SCRIPT_REL = "tests/data/hlo/generate.py"
OUT_DIR = os.path.join(HERE, "jax_cpu")
SIZES_FILE = os.path.join(HERE, "xla_sizes.json")
CONFORMANCE_BYTE_SIZE = os.path.join(REPO, "tests", "data", "byte_size.json")

EXPECTED_VERSIONS = {"jax": "0.10.2", "jaxlib": "0.10.2"}
XLA_FLAGS = [
    "--xla_dump_hlo_as_text",
    # Writes -buffer-assignment-values.txt and -live-range.txt next to -buffer-assignment.txt
    # (xla/service/dump.cc, DumpHloModuleImpl). It is on by default in jaxlib 0.10.2; it is
    # spelled out so that the data does not depend on that default.
    "--xla_dump_buffer_assignment_analysis=true",
]

# XLA's file suffix (after "module_NNNN.jit_<program>.") -> the name kept in the repository.
KEPT_FILES = [
    ("before_optimizations", "before_optimizations.txt", "before_optimizations.txt"),
    ("after_optimizations", "cpu_after_optimizations.txt", "after_optimizations.txt"),
    ("buffer_assignment", "cpu_after_optimizations-buffer-assignment.txt",
     "buffer_assignment.txt"),
    ("buffer_assignment_values", "cpu_after_optimizations-buffer-assignment-values.txt",
     "buffer_assignment_values.txt"),
    ("live_range", "cpu_after_optimizations-live-range.txt", "live_range.txt"),
    ("memory_usage_report", "cpu_after_optimizations-memory-usage-report.txt",
     "memory_usage_report.txt"),
]


# --------------------------------------------------------------------------------------------
# The programs. Each returns (function, argument specs, jit keyword arguments).
# Everything is traced from jax.ShapeDtypeStruct, so nothing runs eagerly and the only modules
# XLA compiles (and dumps) are these programs.
# --------------------------------------------------------------------------------------------

PROGRAMS = []


def program(description, covers):
    """Registers a program builder; the program's name is the builder's name."""

    def register(builder):
        PROGRAMS.append((builder.__name__, description, covers, builder))
        return builder

    return register


def define_programs():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def spec(dtype, *shape):
        return jax.ShapeDtypeStruct(shape, dtype)

    def f32(*shape):
        return spec(jnp.float32, *shape)

    def i32(*shape):
        return spec(jnp.int32, *shape)

    def mlp(params, x):
        for w, b in params[:-1]:
            x = jax.nn.relu(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    def mlp_params(sizes):
        return [(f32(m, n), f32(n)) for m, n in zip(sizes[:-1], sizes[1:])]

    def xent(params, x, labels):
        logits = mlp(params, x)
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    def rnn(w, u, h0, xs, emit):
        def cell(h, x):
            h = jnp.tanh(h @ w + x @ u)
            return h, emit(h)

        return lax.scan(cell, h0, xs)

    rnn_args = (f32(32, 32), f32(8, 32), f32(4, 32), f32(20, 4, 8))

    def attention(q, k, v, mask=None):
        s = jnp.einsum("...qd,...kd->...qk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
        if mask is not None:
            s = jnp.where(mask, s, -1e9)
        return jnp.einsum("...qk,...kd->...qd", jax.nn.softmax(s, axis=-1), v)

    # ---- MLPs and their gradients -----------------------------------------------------------
    @program("two-layer MLP forward, relu, f32[32,64] -> f32[32,10]", ["mlp"])
    def mlp_forward():
        return (lambda p, x: mlp(p, x)), (mlp_params([64, 128, 10]), f32(32, 64)), {}

    @program("gradient of a two-layer MLP's cross-entropy w.r.t. its parameters (jax.grad)",
             ["mlp", "grad", "tuple_output"])
    def mlp_grad():
        return jax.grad(xent), (mlp_params([64, 128, 10]), f32(32, 64), i32(32)), {}

    @program("value_and_grad of a two-layer MLP: the loss and four gradients",
             ["mlp", "grad", "tuple_output"])
    def mlp_value_and_grad():
        return jax.value_and_grad(xent), (mlp_params([64, 128, 10]), f32(32, 64), i32(32)), {}

    @program("SGD step of a three-layer MLP with the parameters donated (input_output_alias)",
             ["mlp", "grad", "donation", "tuple_output"])
    def mlp_sgd_step_donated():
        def step(p, x, y):
            g = jax.grad(xent)(p, x, y)
            return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)

        return step, (mlp_params([64, 96, 96, 10]), f32(16, 64), i32(16)), {"donate_argnums": 0}

    @program("gradient of a four-layer tanh MLP with 256-wide layers (one of the larger programs)",
             ["mlp", "grad", "larger"])
    def deep_mlp_grad():
        def loss(p, x):
            for w, b in p:
                x = jnp.tanh(x @ w + b)
            return jnp.sum(x * x)

        return jax.grad(loss), (mlp_params([128, 256, 256, 256, 64]), f32(64, 128)), {}

    @program("gradient of an MLP whose layers are rematerialized (jax.checkpoint)",
             ["mlp", "grad", "remat"])
    def remat_mlp_grad():
        def loss(p, x):
            for w, b in p:
                x = jax.checkpoint(lambda x, w, b: jnp.sin(x @ w + b))(x, w, b)
            return jnp.sum(x)

        return jax.grad(loss), (mlp_params([32, 64, 64, 32]), f32(16, 32)), {}

    @program("per-example matrix-vector products through jax.vmap", ["vmap", "mlp"])
    def vmap_matvec():
        return jax.vmap(lambda w, x: jnp.tanh(w @ x)), (f32(8, 32, 16), f32(8, 16)), {}

    # ---- scans, loops, dynamic-update-slice ---------------------------------------------------
    @program("lax.scan cumulative sum over 64 rows of f32[16], carry and stacked outputs",
             ["scan", "while", "tuple_output"])
    def scan_cumsum():
        def f(xs):
            return lax.scan(lambda c, x: (c + x, c + x), jnp.zeros(16, jnp.float32), xs)

        return f, (f32(64, 16),), {}

    @program("Elman RNN as lax.scan: hidden-state carry, weights closed over, stacked outputs",
             ["scan", "while", "mlp"])
    def scan_rnn():
        return (lambda *a: rnn(*a, emit=lambda h: h)), rnn_args, {}

    @program("gradient of an RNN loss through lax.scan (forward and reverse loops)",
             ["scan", "while", "grad"])
    def scan_rnn_grad():
        def loss(*a):
            h, ys = rnn(*a, emit=jnp.sum)
            return jnp.sum(ys) + jnp.sum(h)

        return jax.grad(loss, argnums=(0, 1)), rnn_args, {}

    @program("lax.fori_loop with carried state (vector, accumulator, counter-dependent scale)",
             ["while", "loop_carry"])
    def fori_loop_carry():
        def f(w, x):
            def body(i, c):
                x, acc = c
                x = jnp.tanh(w @ x) * (1.0 + i.astype(jnp.float32))
                return x, acc + x

            return lax.fori_loop(0, 10, body, (x, jnp.zeros_like(x)))

        return f, (f32(64, 64), f32(64)), {}

    @program("lax.while_loop with a data-dependent stop (Newton iterations for sqrt)",
             ["while", "loop_carry", "tuple_output"])
    def while_newton_sqrt():
        def f(a):
            def cond(c):
                i, x, err = c
                return (i < 50) & (err > 1e-6)

            def body(c):
                i, x, _ = c
                nx = 0.5 * (x + a / x)
                return i + 1, nx, jnp.max(jnp.abs(nx - x))

            return lax.while_loop(cond, body, (0, a, jnp.float32(1.0)))

        return f, (f32(128),), {}

    @program("dynamic_update_slice in a fori_loop: rows written one by one into f32[32,64]",
             ["while", "dynamic_update_slice", "loop_carry"])
    def dus_fori_rows():
        def f(rows):
            def body(i, buf):
                row = jnp.sin(rows[i] * i.astype(jnp.float32))
                return lax.dynamic_update_slice(buf, row[None, :], (i, 0))

            return lax.fori_loop(0, 32, body, jnp.zeros((32, 64), jnp.float32))

        return f, (f32(32, 64),), {}

    @program("scan that writes a block per step into a carried buffer (dynamic_update_slice) "
             "and also stacks outputs", ["scan", "while", "dynamic_update_slice"])
    def dus_scan_blocks():
        def f(buf, xs):
            def body(c, x):
                i, b = c
                b = lax.dynamic_update_slice(b, jnp.cos(x)[None], (i * 1, 0, 0))
                return (i + 1, b), jnp.sum(x)

            (_, b), s = lax.scan(body, (jnp.int32(0), buf), xs)
            return b, s

        return f, (f32(16, 8, 8), f32(16, 8, 8)), {"donate_argnums": 0}

    @program("nested loops: a fori_loop inside a lax.scan", ["scan", "while", "nested_loops"])
    def nested_scan_fori():
        def f(xs, w):
            def outer(c, x):
                def inner(i, y):
                    return jnp.tanh(y @ w) + x

                y = lax.fori_loop(0, 3, inner, c)
                return y, jnp.sum(y)

            return lax.scan(outer, jnp.zeros((16,), jnp.float32), xs)

        return f, (f32(12, 16), f32(16, 16)), {}

    # ---- convolutions -----------------------------------------------------------------------
    @program("2-D convolution NHWC x HWIO, SAME padding, f32[2,16,16,8] * f32[3,3,8,16]",
             ["convolution"])
    def conv2d_nhwc():
        def f(x, k):
            return lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                            dimension_numbers=("NHWC", "HWIO", "NHWC"))

        return f, (f32(2, 16, 16, 8), f32(3, 3, 8, 16)), {}

    @program("gradients of a conv + relu + sum loss w.r.t. input and kernel",
             ["convolution", "grad", "tuple_output"])
    def conv2d_grad():
        def loss(x, k):
            y = lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return jnp.sum(jax.nn.relu(y))

        return jax.grad(loss, argnums=(0, 1)), (f32(2, 12, 12, 4), f32(3, 3, 4, 8)), {}

    @program("1-D convolution with stride 2 and rhs dilation 2 (NCW layout)", ["convolution"])
    def conv1d_strided_dilated():
        def f(x, k):
            return lax.conv_general_dilated(x, k, (2,), "VALID", rhs_dilation=(2,))

        return f, (f32(4, 6, 64), f32(10, 6, 5)), {}

    @program("depthwise 2-D convolution (feature_group_count = channels) then bias and relu",
             ["convolution"])
    def conv2d_depthwise():
        def f(x, k, b):
            y = lax.conv_general_dilated(x, k, (1, 1), "SAME", feature_group_count=8,
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))
            return jax.nn.relu(y + b)

        return f, (f32(1, 20, 20, 8), f32(3, 3, 1, 8), f32(8)), {}

    # ---- reductions ---------------------------------------------------------------------------
    @program("sum, mean, max and min over different axes, returned as a tuple",
             ["reduction", "tuple_output"])
    def reductions():
        def f(x):
            return jnp.sum(x, 0), jnp.mean(x, 1), jnp.max(x, (0, 2)), jnp.min(x)

        return f, (f32(8, 16, 32),), {}

    @program("argmax and max along an axis (variadic reduce with two outputs)",
             ["reduction", "tuple_output"])
    def reduce_argmax():
        return (lambda x: (jnp.argmax(x, axis=1), jnp.max(x, axis=1))), (f32(64, 100),), {}

    @program("2x2 max pooling and 3x3 average pooling with lax.reduce_window", ["reduction"])
    def reduce_window_pool():
        def f(x):
            m = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
            a = lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0
            return m, a

        return f, (f32(2, 16, 16, 4),), {}

    @program("jnp.cumsum and jnp.cumprod along the last axis", ["reduction", "scan_op"])
    def cumulative():
        return (lambda x: (jnp.cumsum(x, -1), jnp.cumprod(x, 0))), (f32(16, 64),), {}

    @program("softmax and logsumexp of f32[32,128]", ["reduction", "softmax"])
    def softmax_logsumexp():
        return (lambda x: (jax.nn.softmax(x), jax.nn.logsumexp(x, axis=-1))), (f32(32, 128),), {}

    @program("layer normalization with scale and bias", ["reduction"])
    def layernorm():
        def f(x, g, b):
            mu = jnp.mean(x, -1, keepdims=True)
            var = jnp.var(x, -1, keepdims=True)
            return (x - mu) * lax.rsqrt(var + 1e-5) * g + b

        return f, (f32(64, 256), f32(256), f32(256)), {}

    # ---- attention ------------------------------------------------------------------------------
    @program("single-head attention softmax(QK^T/sqrt(d))V, f32[64,32]", ["attention", "softmax"])
    def attention_single_head():
        return attention, (f32(64, 32), f32(64, 32), f32(64, 32)), {}

    @program("multi-head causal attention f32[2,4,32,16] with a lower-triangular mask",
             ["attention", "softmax", "pred"])
    def attention_causal_multihead():
        def f(q, k, v):
            mask = jnp.tril(jnp.ones((32, 32), jnp.bool_))
            return attention(q, k, v, mask)

        return f, (f32(2, 4, 32, 16), f32(2, 4, 32, 16), f32(2, 4, 32, 16)), {}

    @program("gradient of single-head attention w.r.t. Q, K and V",
             ["attention", "grad", "tuple_output"])
    def attention_grad():
        def loss(q, k, v):
            return jnp.sum(attention(q, k, v) ** 2)

        return jax.grad(loss, argnums=(0, 1, 2)), (f32(32, 16), f32(32, 16), f32(32, 16)), {}

    @program("a transformer block: layernorm, projections, 2-head attention, MLP, residuals "
             "(one of the larger programs)", ["attention", "mlp", "larger"])
    def transformer_block():
        def f(x, wqkv, wo, w1, w2):
            h = (x - jnp.mean(x, -1, keepdims=True)) * lax.rsqrt(jnp.var(x, -1, keepdims=True) + 1e-5)
            q, k, v = jnp.split(h @ wqkv, 3, axis=-1)
            heads = lambda t: t.reshape(64, 2, 32).transpose(1, 0, 2)
            a = attention(heads(q), heads(k), heads(v)).transpose(1, 0, 2).reshape(64, 64)
            x = x + a @ wo
            return x + jax.nn.gelu(x @ w1) @ w2

        return f, (f32(64, 64), f32(64, 192), f32(64, 64), f32(64, 256), f32(256, 64)), {}

    # ---- sorts, gathers, scatters ---------------------------------------------------------------
    @program("jnp.sort of f32[256]", ["sort"])
    def sort_1d():
        return jnp.sort, (f32(256),), {}

    @program("lax.sort of keys with two value arrays (three operands, three outputs) and "
             "argsort", ["sort", "tuple_output"])
    def sort_key_values():
        def f(k, a, b):
            return lax.sort((k, a, b), num_keys=1), jnp.argsort(a)

        return f, (f32(8, 64), i32(8, 64), f32(8, 64)), {}

    @program("lax.top_k(k=5) over the last axis of f32[16,128]", ["sort", "tuple_output"])
    def top_k():
        return (lambda x: lax.top_k(x, 5)), (f32(16, 128),), {}

    @program("embedding lookup: jnp.take of 32 rows from f32[100,16]", ["gather"])
    def gather_take_rows():
        return (lambda t, i: jnp.take(t, i, axis=0)), (f32(100, 16), i32(32)), {}

    @program("point gather x[rows, cols] from f32[64,64] with two index vectors", ["gather"])
    def gather_points():
        return (lambda x, r, c: x[r, c]), (f32(64, 64), i32(50), i32(50)), {}

    @program("scatter-add of 40 row updates into zeros f32[64,8] (x.at[idx].add)", ["scatter"])
    def scatter_add_rows():
        return (lambda u, i: jnp.zeros((64, 8), jnp.float32).at[i].add(u)), (f32(40, 8),
                                                                             i32(40)), {}

    @program("scatter-set into a donated operand (x.at[idx].set, input_output_alias)",
             ["scatter", "donation"])
    def scatter_set_donated():
        return (lambda x, u, i: x.at[i].set(u)), (f32(128, 4), f32(10, 4), i32(10)), {
            "donate_argnums": 0}

    @program("jax.ops.segment_sum of 200 values into 16 segments", ["scatter"])
    def segment_sum():
        return (lambda d, s: jax.ops.segment_sum(d, s, num_segments=16)), (f32(200, 4),
                                                                           i32(200)), {}

    # ---- outputs, donation, control flow --------------------------------------------------------
    @program("several results: an input passed through, a duplicated result, a scalar and a "
             "reshape (bitcast)", ["tuple_output", "aliasing"])
    def multi_output():
        def f(x, y):
            s = x + y
            return x, s, s, jnp.sum(s), s.reshape(16, 8)

        return f, (f32(8, 16), f32(8, 16)), {}

    @program("donated argument updated in place: x * 2 + 1 with donate_argnums=0",
             ["donation", "aliasing"])
    def donated_inplace():
        return (lambda x: x * 2.0 + 1.0), (f32(256, 16),), {"donate_argnums": 0}

    @program("two of three arguments donated; three results, two of them aliasable",
             ["donation", "aliasing", "tuple_output"])
    def donated_partial():
        def f(a, b, c):
            return a + c, b * c, jnp.sum(c)

        return f, (f32(32, 32), f32(32, 32), f32(32, 32)), {"donate_argnums": (0, 1)}

    @program("lax.cond choosing between a matmul branch and an elementwise branch",
             ["conditional"])
    def cond_branches():
        def f(p, x, w):
            return lax.cond(p, lambda x: jnp.tanh(x @ w), lambda x: x * 3.0 - 1.0, x)

        return f, (spec(jnp.bool_), f32(16, 16), f32(16, 16)), {}

    @program("lax.switch over three branches with tuple operands and results",
             ["conditional", "tuple_output"])
    def switch_three_way():
        def f(i, x, y):
            branches = [lambda a, b: (a + b, a * b),
                        lambda a, b: (jnp.sin(a), b @ b),
                        lambda a, b: (a, jnp.cumsum(b, 0))]
            return lax.switch(i, branches, x, y)

        return f, (i32(), f32(24, 24), f32(24, 24)), {}

    @program("lax.cond inside a fori_loop body", ["conditional", "while", "nested_loops"])
    def cond_in_loop():
        def f(x):
            def body(i, x):
                return lax.cond(i % 2 == 0, lambda x: x * 0.5, lambda x: jnp.sqrt(x + 1.0), x)

            return lax.fori_loop(0, 6, body, x)

        return f, (f32(40, 40),), {}

    # ---- element types ------------------------------------------------------------------------
    @program("int8 x int8 matmul accumulated in int32 (preferred_element_type)", ["int8"])
    def int8_matmul():
        def f(a, b):
            return lax.dot(a, b, preferred_element_type=jnp.int32)

        return f, (spec(jnp.int8, 32, 64), spec(jnp.int8, 64, 48)), {}

    @program("bfloat16 MLP layer with gelu, bf16 in and out", ["bf16", "mlp"])
    def bf16_mlp():
        def f(x, w1, w2):
            return jax.nn.gelu(x @ w1) @ w2

        bf = jnp.bfloat16
        return f, (spec(bf, 32, 64), spec(bf, 64, 128), spec(bf, 128, 64)), {}

    @program("float16 softmax and layernorm-style statistics", ["f16", "reduction"])
    def f16_ops():
        def f(x):
            return jax.nn.softmax(x, axis=-1), jnp.mean(x, 0), jnp.var(x, 0)

        return f, (spec(jnp.float16, 48, 96),), {}

    @program("boolean masks: comparisons, logical ops, select, any/all, pred outputs",
             ["pred", "reduction", "tuple_output"])
    def pred_masks():
        def f(x, y):
            m = (x > 0) & ~(y < 1.0)
            return m, jnp.where(m, x, y), jnp.any(m, 0), jnp.all(m)

        return f, (f32(32, 32), f32(32, 32)), {}

    @program("int4 (s4, packed E(4)) weights dequantized and multiplied", ["s4", "sub_byte"])
    def int4_dequant_matmul():
        def f(w, scale, x):
            return x @ (w.astype(jnp.float32) * scale)

        return f, (spec(jnp.int4, 64, 32), f32(32), f32(8, 64)), {}

    @program("uint8 image to float, u32 bit operations and population count",
             ["u8", "u32", "bit_ops"])
    def unsigned_bits():
        def f(img, bits):
            return img.astype(jnp.float32) / 255.0, lax.population_count(bits ^ (bits >> 3))

        return f, (spec(jnp.uint8, 3, 32, 32), spec(jnp.uint32, 256)), {}

    @program("complex64 FFT of f32 input and magnitude", ["c64", "fft"])
    def fft_c64():
        return (lambda x: jnp.abs(jnp.fft.fft(x.astype(jnp.complex64)))), (f32(8, 64),), {}

    @program("shapes with a zero-size dimension: f32[0,8] reduced, concatenated and returned",
             ["zero_size", "tuple_output"])
    def zero_size_dim():
        def f(x, y):
            return jnp.sum(x, 0), jnp.concatenate([x, y], 0), x * 2.0

        return f, (f32(0, 8), f32(4, 8)), {}

    # ---- data movement and misc ---------------------------------------------------------------
    @program("concatenate, pad, slice and reverse", ["data_movement"])
    def concat_pad_slice():
        def f(a, b):
            c = jnp.concatenate([a, b], axis=1)
            p = jnp.pad(c, ((1, 2), (3, 0)))
            return p[2:10, ::2], jnp.flip(c, 0)

        return f, (f32(16, 24), f32(16, 8)), {}

    @program("transposes and reshapes that need a physical copy", ["data_movement", "copy"])
    def transpose_reshape():
        def f(x):
            t = jnp.transpose(x, (2, 0, 1))
            return t.reshape(32, 48) + 1.0, jnp.swapaxes(x, 0, 1)

        return f, (f32(6, 8, 32),), {}

    @program("batched matmul via einsum bij,bjk->bik", ["dot"])
    def einsum_batched():
        return (lambda a, b: jnp.einsum("bij,bjk->bik", a, b)), (f32(8, 32, 16),
                                                                 f32(8, 16, 24)), {}

    @program("f32[256,256] matmul chain (one of the larger programs: 256 KiB buffers)",
             ["dot", "larger"])
    def large_matmul_chain():
        def f(a, b, c):
            return jnp.tanh(a @ b) @ c

        return f, (f32(256, 256), f32(256, 256), f32(256, 256)), {}

    @program("threefry random normal and uniform from a raw uint32[2] key", ["rng", "u32"])
    def random_normal():
        def f(key_data):
            k = jax.random.wrap_key_data(key_data, impl="threefry2x32")
            k1, k2 = jax.random.split(k)
            return jax.random.normal(k1, (16, 16)), jax.random.uniform(k2, (64,))

        return f, (spec(jnp.uint32, 2),), {}

    @program("Cholesky factorization and triangular solve (LAPACK custom calls on CPU)",
             ["custom_call", "linalg"])
    def cholesky_solve():
        def f(a, b):
            s = a @ a.T + 16.0 * jnp.eye(16, dtype=jnp.float32)
            l = jnp.linalg.cholesky(s)
            return lax.linalg.triangular_solve(l, b, left_side=True, lower=True)

        return f, (f32(16, 16), f32(16, 4)), {}

    @program("an embedded f32[64,64] constant table used twice", ["constant"])
    def constant_table():
        import numpy as np

        table = np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 4096.0
        return (lambda x: (x @ table, x + table)), (f32(64, 64),), {}

    @program("identity: the output is the parameter itself", ["aliasing", "trivial"])
    def identity():
        return (lambda x: x), (f32(10, 10),), {}


# --------------------------------------------------------------------------------------------
# Compile step (child process, XLA_FLAGS set before jax is imported).
# --------------------------------------------------------------------------------------------

# Python makes a script's own file name absolute, and JAX records that name in every module's
# FileNames table. The child process therefore compiles this file's text under its path
# relative to the repository root, so that the dumps do not depend on where the repository is.
COMPILE_BOOTSTRAP = (
    "import os, sys; path, out = sys.argv[1:]; "
    "ns = {'__name__': 'generate', '__file__': os.path.abspath(path)}; "
    "exec(compile(open(path).read(), path, 'exec'), ns); ns['compile_into'](out)"
)


def compile_into(dump_dir):
    os.environ["XLA_FLAGS"] = " ".join([f"--xla_dump_to={dump_dir}"] + XLA_FLAGS)
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax

    define_programs()
    stats = {}
    for name, _description, _covers, builder in PROGRAMS:
        fn, args, jit_kwargs = builder()

        # JAX names the module jit_<function name>: name the function after the program.
        def named(*a, _fn=fn):
            return _fn(*a)

        named.__name__ = named.__qualname__ = name
        compiled = jax.jit(named, **jit_kwargs).lower(*args).compile()
        m = compiled.memory_analysis()
        stats[name] = {
            field: int(getattr(m, field))
            for field in [
                "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
                "temp_size_in_bytes", "generated_code_size_in_bytes", "peak_memory_in_bytes",
                "host_argument_size_in_bytes", "host_output_size_in_bytes",
                "host_alias_size_in_bytes", "host_temp_size_in_bytes",
                "host_generated_code_size_in_bytes",
            ]
        }
    with open(os.path.join(dump_dir, "memory_analysis.json"), "w") as f:
        json.dump(stats, f)


# --------------------------------------------------------------------------------------------
# Calling XLA's ShapeUtil through ctypes.
# --------------------------------------------------------------------------------------------

class XlaShapeUtil:
    """XLA's own xla::ParseShape, ShapeUtil::ArraySize, ShapeUtil::ByteSizeOf and
    ShapeUtil::HumanStringWithLayout, called in jaxlib's libjax_common.so.

    The functions are local symbols (in .symtab, not exported), so their addresses are read
    with `nm` and added to the library's load address. Itanium/SysV ABI: a returned class
    (absl::StatusOr<Shape>, std::string) goes through a hidden pointer in the first argument
    register; std::string_view is {size, pointer} in two registers. absl::StatusOr<T> stores
    its absl::Status (one word, 1 when OK) before the T.
    """

    SYMBOLS = {
        "parse": "_ZN3xla10ParseShapeESt17basic_string_viewIcSt11char_traitsIcEE",
        "array_size": "_ZN3xla9ShapeUtil9ArraySizeERKNS_5ShapeE",
        "byte_size_of": "_ZN3xla9ShapeUtil10ByteSizeOfERKNS_5ShapeEl",
        "human_string": "_ZN3xla9ShapeUtil21HumanStringWithLayoutB5cxx11ERKNS_5ShapeE",
    }

    def __init__(self):
        import jax._src.lib
        import jaxlib.version

        assert jax._src.lib.xla_client  # importing it loaded libjax_common.so into the process
        self.jaxlib_git = jaxlib.version._git_hash
        lib = os.path.realpath(os.path.join(os.path.dirname(jaxlib.version.__file__),
                                            "libjax_common.so"))
        wanted = {v: k for k, v in self.SYMBOLS.items()}
        nm = subprocess.run(["nm", "--defined-only", lib], capture_output=True, text=True,
                            check=True).stdout
        offsets = {}
        for line in nm.splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[2] in wanted:
                offsets[wanted[parts[2]]] = int(parts[0], 16)
        missing = set(self.SYMBOLS) - set(offsets)
        if missing:
            raise SystemExit(f"libjax_common.so lacks {sorted(missing)}: cannot ask XLA")
        base = None
        with open("/proc/self/maps") as maps:
            for line in maps:
                f = line.split()
                if len(f) >= 6 and int(f[2], 16) == 0 and os.path.realpath(f[5]) == lib:
                    base = int(f[0].split("-")[0], 16)
                    break
        if base is None:
            raise SystemExit("libjax_common.so is not mapped: cannot ask XLA")
        vp, i64 = ctypes.c_void_p, ctypes.c_int64
        self._parse = ctypes.CFUNCTYPE(None, vp, ctypes.c_size_t, ctypes.c_char_p)(
            base + offsets["parse"])
        self._array_size = ctypes.CFUNCTYPE(i64, vp)(base + offsets["array_size"])
        self._byte_size_of = ctypes.CFUNCTYPE(i64, vp, i64)(base + offsets["byte_size_of"])
        self._human = ctypes.CFUNCTYPE(None, vp, vp)(base + offsets["human_string"])
        self._keep = []  # parsed shapes are never destroyed: a few KiB for the whole run

    def parse(self, text):
        """Returns the address of an xla::Shape parsed by XLA, or None if XLA rejects it."""
        buf = ctypes.create_string_buffer(4096)  # absl::StatusOr<xla::Shape>, with room
        raw = text.encode()
        self._parse(ctypes.addressof(buf), len(raw), raw)
        if ctypes.c_uint64.from_buffer(buf).value != 1:  # absl::OkStatus() is rep 1
            return None
        self._keep.append(buf)
        return ctypes.addressof(buf) + 8

    def array_size(self, shape):
        return self._array_size(shape)

    def byte_size_of(self, shape, pointer_size=8):
        return self._byte_size_of(shape, pointer_size)

    def human_string(self, shape):
        out = ctypes.create_string_buffer(64)  # std::string: {char*, size, 16-byte SSO}
        self._human(ctypes.addressof(out), shape)
        ptr = ctypes.c_void_p.from_buffer(out, 0).value
        size = ctypes.c_size_t.from_buffer(out, 8).value
        return ctypes.string_at(ptr, size).decode()


# --------------------------------------------------------------------------------------------
# Reading XLA's dump files.
# --------------------------------------------------------------------------------------------

VALUE_RE = re.compile(r"^<(\d+) (\S+?)(\{[\d,]*\})?( \(phi\))?(?: @(\d+))?>$")


def shape_index(text):
    """'{}' -> [], '{1,0}' -> [1, 0]."""
    inner = text.strip()[1:-1]
    return [int(x) for x in inner.split(",")] if inner else []


def parse_live_range(text):
    lines = text.splitlines()
    m = re.fullmatch(r"HloLiveRange \(max (\d+)\):", lines[0])
    if not m:
        raise ValueError(f"unexpected live-range header: {lines[0]!r}")
    out = {"max": int(m.group(1)), "sequence": [], "ranges": [], "peak_step": None,
           "live_at_peak": [], "stack_trace_peak_bytes": None}
    section = None
    for line in lines[1:]:
        if line == "  InstructionSequence:":
            section = "seq"
        elif line == "  BufferLiveRange:":
            section = "ranges"
        elif line.startswith("  Live ranges at "):
            m = re.fullmatch(r"  Live ranges at (\d+) \(peak\):", line)
            out["peak_step"] = int(m.group(1))
            section = "peak"
        elif line.startswith("  Stack trace breakdown for peak usage: "):
            m = re.fullmatch(r"  Stack trace breakdown for peak usage: ([\d ]+) bytes", line)
            out["stack_trace_peak_bytes"] = int(m.group(1).replace(" ", ""))
            section = "stack"
        elif line.startswith("  Peak memory could not be determined"):
            section = None
        elif section == "seq":
            m = re.fullmatch(r"    (\d+):(\S+)", line)
            out["sequence"].append(m.group(2))
            assert int(m.group(1)) == len(out["sequence"]) - 1
        elif section == "ranges":
            m = re.fullmatch(r"    (\S+?)(\{[\d,]*\}):(\d+)-(\d+)", line)
            out["ranges"].append({"instruction": m.group(1), "shape_index": shape_index(
                m.group(2)), "start": int(m.group(3)), "end": int(m.group(4))})
        elif section == "peak":
            m = re.fullmatch(r"    (\S+?)(\{[\d,]*\}): (\d+) bytes \(cumulative: (\d+) bytes\)",
                             line)
            out["live_at_peak"].append({"instruction": m.group(1),
                                        "shape_index": shape_index(m.group(2)),
                                        "bytes": int(m.group(3)),
                                        "cumulative_bytes": int(m.group(4))})
    return out


def parse_value(text):
    m = VALUE_RE.match(text)
    if not m:
        raise ValueError(f"unexpected value {text!r}")
    return {"id": int(m.group(1)), "instruction": m.group(2),
            "shape_index": shape_index(m.group(3)) if m.group(3) else [],
            "index_printed": m.group(3) is not None, "phi": m.group(4) is not None,
            "color": int(m.group(5)) if m.group(5) is not None else None}


ALLOC_RE = re.compile(r"^allocation (\d+): size (\d+)(.*):$")


def parse_buffer_assignment(text):
    """The allocations of XLA's BufferAssignment::ToString (the part before any stats)."""
    allocations = []
    for line in text.splitlines():
        m = ALLOC_RE.match(line)
        if m:
            rest = m.group(3)
            alloc = {"index": int(m.group(1)), "size": int(m.group(2)), "attributes": rest,
                     "color": 0, "parameter": None, "parameter_shape_index": None,
                     "output_shape": None, "constant": False, "thread_local": False,
                     "maybe_live_out": False, "preallocated_temp": False, "values": []}
            c = re.search(r", color (\d+)", rest)
            if c:
                alloc["color"] = int(c.group(1))
            p = re.search(r", parameter (\d+), shape \|(.*?)\| at ShapeIndex (\{[\d,]*\})", rest)
            if p:
                alloc["parameter"] = int(p.group(1))
                alloc["parameter_shape"] = p.group(2)
                alloc["parameter_shape_index"] = shape_index(p.group(3))
            o = re.search(r", output shape is \|(.*?)\|", rest)
            if o:
                alloc["output_shape"] = o.group(1)
            alloc["constant"] = ", constant" in rest
            alloc["thread_local"] = ", thread-local" in rest
            alloc["maybe_live_out"] = ", maybe-live-out" in rest
            alloc["preallocated_temp"] = ", preallocated-temp" in rest
            allocations.append(alloc)
            continue
        v = re.match(r"^ value: (<[^>]*>) \(size=(\d+),offset=(\d+)\): (.*)$", line)
        if v:
            value = parse_value(v.group(1))
            value.update({"size": int(v.group(2)), "offset": int(v.group(3)),
                          "shape": v.group(4)})
            allocations[-1]["values"].append(value)
        elif allocations and line and not line.startswith(" "):
            break  # a later section (stats, used buffers) begins
    return allocations


def first_int(pattern, text):
    m = re.search(pattern, text, re.M)
    return int(m.group(1)) if m else None


INSTR_RE = re.compile(r"^\s*(?:ROOT )?%?([^\s=]+) = (.*)$")


def instructions(module_text):
    """Instruction name -> (result shape text, opcode), read from HLO module text (every
    computation; the `/*index=N*/` comments XLA prints inside long tuples removed)."""
    found = {}
    for line in module_text.splitlines():
        m = INSTR_RE.match(line)
        if not m or line.startswith("HloModule"):
            continue
        rest = m.group(2)
        if rest.startswith("("):
            depth = 0
            for i, ch in enumerate(rest):
                depth += ch == "("
                depth -= ch == ")"
                if depth == 0:
                    shape, after = rest[: i + 1], rest[i + 1:]
                    break
        else:
            shape, _, after = rest.partition(" ")
        opcode = re.match(r"\s*([\w-]+)\(", after)
        found[m.group(1)] = (re.sub(r"/\*index=\d+\*/", "", shape),
                             opcode.group(1) if opcode else None)
    return found


# --------------------------------------------------------------------------------------------
# Reproducing XLA's peak step from its own printed ranges and sizes (a check of README.md).
# --------------------------------------------------------------------------------------------

def sweep_peak(ranges, size_of):
    """HloLiveRange::ComputePeakMemoryMoment: events (start, +size) and (end + 1, -size),
    sorted with starts before ends at equal times; the first time the running sum exceeds
    every earlier value is the peak. Returns (peak_time, running_max)."""
    events = []
    for r in ranges:
        s = size_of(r)
        events.append((r["start"], 0, s))
        events.append((r["end"] + 1, 1, s))
    events.sort(key=lambda e: (e[0], e[1]))
    usage = peak = 0
    peak_time = None
    for time, is_end, size in events:
        usage += -size if is_end else size
        if peak < usage:
            peak, peak_time = usage, time
    return (peak_time if peak_time is not None else 0), peak


def reproduce(live, shapes, allocations, xla):
    """Checks README.md's reading of HloLiveRange against XLA's own printed figures.

    Everything here is computed by this script from XLA's printed live ranges, the shapes in
    XLA's module text and XLA's own ShapeUtil::ByteSizeOf; none of it is printed by XLA."""
    cache = {}

    def byte_size_of(shape_text):
        if shape_text not in cache:
            ptr = xla.parse(shape_text)
            if ptr is None:
                raise SystemExit(f"XLA's ParseShape rejects {shape_text!r}")
            cache[shape_text] = xla.byte_size_of(ptr, 8)
        return cache[shape_text]

    def instruction_bytes(r):  # ByteSizeOf(value->instruction()->shape(), 8)
        return byte_size_of(shapes[r["instruction"]])

    def value_bytes(r):  # ByteSizeOf(value->shape(), 8): the subshape at the value's index
        return byte_size_of(subshape(shapes[r["instruction"]], r["shape_index"]))

    step, sweep_max = sweep_peak(live["ranges"], instruction_bytes)
    step_by_value, _ = sweep_peak(live["ranges"], value_bytes)

    def live_bytes(t):
        return sum(value_bytes(r) for r in live["ranges"] if r["start"] <= t <= r["end"])

    live_now = [r for r in live["ranges"] if r["start"] <= step <= r["end"]]
    listed = sorted((value_bytes(r), r["instruction"], r["shape_index"]) for r in live_now)
    printed = sorted((e["bytes"], e["instruction"], e["shape_index"])
                     for e in live["live_at_peak"])
    by_step = [live_bytes(t) for t in range(live["max"] + 1)]
    max_bytes = max(by_step) if by_step else 0
    ba_mismatch = [
        f"{v['instruction']}{v['shape_index']}"
        for a in allocations for v in a["values"]
        if v["instruction"] in shapes
        and v["size"] != byte_size_of(subshape(shapes[v["instruction"]], v["shape_index"]))
    ]
    return {
        "peak_step_from_instruction_shapes": step,
        "sweep_running_max_bytes": sweep_max,
        "peak_step_from_value_shapes": step_by_value,
        "matches_xla_peak_step": step == live["peak_step"],
        "live_set_matches_xla": listed == printed,
        "max_live_bytes_over_steps": max_bytes,
        "first_step_with_max_live_bytes": by_step.index(max_bytes) if by_step else 0,
        "buffer_assignment_sizes_not_byte_size_of": ba_mismatch,
    }


def split_tuple(text):
    """'(a, (b, c), d)' -> ['a', '(b, c)', 'd']."""
    inner = text.strip()[1:-1]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def subshape(text, index):
    for i in index:
        text = split_tuple(text)[i]
    return text


# --------------------------------------------------------------------------------------------
# Collecting one program's files and figures.
# --------------------------------------------------------------------------------------------

def collect(dump_dir, name, description, covers, stats, versions, xla):
    module = f"jit_{name}"
    found = {}
    for key, suffix, kept in KEPT_FILES:
        hits = sorted(glob.glob(os.path.join(dump_dir, f"module_*.{module}.{suffix}")))
        if len(hits) != 1:
            raise SystemExit(f"{name}: expected one {suffix} for {module}, found {hits}")
        found[key] = (hits[0], kept)
    dest = os.path.join(OUT_DIR, name)
    os.makedirs(dest, exist_ok=True)
    texts = {}
    for key, (src, kept) in found.items():
        shutil.copyfile(src, os.path.join(dest, kept))
        with open(src) as f:
            texts[key] = f.read()

    live = parse_live_range(texts["live_range"])
    allocations = parse_buffer_assignment(texts["buffer_assignment"])
    instrs = instructions(texts["after_optimizations"])
    shapes = {name: shape for name, (shape, _) in instrs.items()}
    peak_bytes = live["live_at_peak"][-1]["cumulative_bytes"] if live["live_at_peak"] else 0
    peak_step = live["peak_step"]
    entry = {
        "name": name,
        "description": description,
        "covers": covers,
        "jax": versions["jax"],
        "jaxlib": versions["jaxlib"],
        "module_name": module,
        "is_scheduled": "is_scheduled=true" in texts["after_optimizations"].splitlines()[0],
        "files": {key: {"file": kept, "xla_file": os.path.basename(src)}
                  for key, (src, kept) in found.items()},
        "live_range": {
            "max": live["max"],
            "sequence_length": len(live["sequence"]),
            "value_count": len(live["ranges"]),
            "peak_step": peak_step,
            "peak_instruction": (live["sequence"][peak_step]
                                 if peak_step is not None and peak_step < len(live["sequence"])
                                 else None),
            "peak_instruction_opcode": (instrs[live["sequence"][peak_step]][1]
                                        if peak_step is not None
                                        and peak_step < len(live["sequence"]) else None),
            "peak_bytes": peak_bytes,
            "stack_trace_peak_bytes": live["stack_trace_peak_bytes"],
            "live_at_peak": live["live_at_peak"],
        },
        "buffer_assignment": {
            "allocation_count": len(allocations),
            "total_allocation_bytes": sum(a["size"] for a in allocations),
            "total_bytes_used": first_int(r"^Total bytes used: (\d+)",
                                          texts["buffer_assignment_values"]),
            "memory_usage_report_total_bytes": first_int(r"^Total bytes: (\d+)",
                                                         texts["memory_usage_report"]),
            "allocations": allocations,
        },
        "memory_analysis": stats,
    }
    if peak_step is not None:
        entry["reproduction"] = reproduce(live, shapes, allocations, xla)
    return entry


# --------------------------------------------------------------------------------------------
# xla_sizes.json
# --------------------------------------------------------------------------------------------

SIZE_SHAPES = [
    # The public TPU out-of-memory shapes quoted in the issues.
    ("s32[8388608,8,4]{2,1,0:T(8,128)}", "TPU OOM report: 32x (issue 12)"),
    ("u32[12582912,1]{1,0:T(8,128)}", "TPU OOM report: 128x (issue 12)"),
    ("bf16[2048,1,2048,128]{0,1,3,2:T(4,128)(2,1)}", "TPU OOM report: 4x (issue 12)"),
    ("pred[64,512,2048]{2,1,0:T(8,128)E(32)}", "TPU OOM report: E(32) widening (issue 12)"),
    ("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}", "issue 12: padded layout"),
    ("bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}", "issue 12: the layout that pads least"),
    # Untiled shapes.
    ("f32[]{:T(256)}", "scalar with a tile"),
    ("f32[]", "scalar without layout braces"),
    ("f32[10,20]{1,0}", "plain row-major"),
    ("f32[10,20]{0,1}", "plain column-major"),
    ("f64[3,5,7]{0,2,1}", "f64, permuted"),
    ("s8[100]{0}", "s8 vector"),
    ("f32[0,8]{1,0}", "zero-size dimension"),
    ("f32[4,0,3]{2,1,0:T(8,128)}", "zero-size dimension, tiled"),
    # 32-bit tiling.
    ("f32[8,128]{1,0:T(8,128)}", "exactly one tile"),
    ("f32[9,129]{1,0:T(8,128)}", "pads both tiled dimensions"),
    ("f32[1,1]{1,0:T(8,128)}", "one element in a whole tile"),
    ("f32[3,5,7]{2,1,0:T(8,128)}", "rank 3, small minor dims"),
    ("f32[1000]{0:T(1024)}", "rank-1 tile"),
    ("f32[1000]{0:T(256)}", "rank-1 tile, 256"),
    ("f32[2,3,4,5]{3,2,1,0:T(2,8,128)}", "rank-3 tile over rank 4"),
    ("f32[128,8]{0,1:T(8,128)}", "column-major tiled"),
    ("s32[129,257]{0,1:T(8,128)}", "column-major, both dims pad"),
    ("f32[2,1000]{1,0:T(2,128)}", "tile (2,128)"),
    ("f32[7,7]{1,0:T(4,128)}", "tile (4,128)"),
    # 16-bit and 8-bit with a second tile level.
    ("bf16[16,256]{1,0:T(8,128)(2,1)}", "bf16 default TPU tiling"),
    ("bf16[17,130]{1,0:T(8,128)(2,1)}", "bf16 pads"),
    ("bf16[32,128]{1,0:T(16,128)(2,1)}", "bf16 (16,128)(2,1)"),
    ("f16[3,100]{1,0:T(8,128)(2,1)}", "f16 pads"),
    ("s8[40,300]{1,0:T(8,128)(4,1)}", "s8 (8,128)(4,1)"),
    ("u8[32,128]{1,0:T(32,128)(4,1)}", "u8 (32,128)(4,1)"),
    ("bf16[2048,1,2048,128]{3,2,1,0:T(8,128)(2,1)}", "bf16 4-D default order"),
    ("bf16[4,8,3]{2,1,0:T(8,128)(2,1)}", "small bf16"),
    # Sub-byte types and E(n).
    ("s4[64,64]{1,0:E(4)}", "s4 packed, untiled"),
    ("s4[7]{0:E(4)}", "s4 odd count, packed"),
    ("u4[64,128]{1,0:T(8,128)(4,1)E(4)}", "u4 tiled and packed"),
    ("s4[100,100]{1,0:T(8,128)(2,1)E(4)}", "s4 tiled (2,1), packed"),
    ("s2[16,16]{1,0:E(2)}", "s2 packed"),
    ("u2[8,128]{1,0:T(8,128)E(2)}", "u2 tiled packed"),
    ("s4[64,64]{1,0}", "s4 without E: one byte per element"),
    ("pred[8,128]{1,0:T(8,128)E(32)}", "pred widened to 32 bits"),
    ("pred[100]{0:E(8)}", "pred E(8)"),
    ("pred[1024]{0}", "pred default"),
    ("bf16[64]{0:E(32)}", "bf16 widened"),
    ("s8[256]{0:T(256)E(32)}", "s8 widened and tiled"),
    ("f8e4m3fn[128,128]{1,0:T(8,128)(4,1)}", "fp8 tiled"),
    ("f8e5m2[33,33]{1,0}", "fp8 untiled"),
    # Dynamic dimensions: sizes use the bound.
    ("f32[<=100,16]{1,0}", "dynamic leading dim"),
    ("f32[<=100,16]{1,0:T(8,128)}", "dynamic, tiled"),
    ("s32[4,<=7]{1,0:T(8,128)}", "dynamic minor dim, tiled"),
    ("bf16[<=33,<=257]{1,0:T(8,128)(2,1)}", "two dynamic dims, bf16"),
    # Memory spaces.
    ("f32[1024,1024]{1,0:T(8,128)S(1)}", "memory space 1"),
    ("bf16[256,512]{1,0:T(8,128)(2,1)S(1)}", "memory space 1, bf16"),
    ("s32[5,7]{1,0:T(8,128)S(3)}", "memory space 3"),
    ("f32[3,3]{1,0:S(5)}", "memory space 5, untiled"),
    # Complex and 64-bit.
    ("c64[9,9]{1,0:T(8,128)}", "c64 tiled"),
    ("c128[4,4]{1,0}", "c128"),
    ("s64[5,300]{1,0:T(8,128)}", "s64 tiled"),
    ("u64[2]{0}", "u64"),
    ("f64[8,128]{1,0:T(8,128)}", "f64 tiled"),
    # Shapes seen in the CPU dumps.
    ("s4[64,32]{1,0:E(4)}", "the int4 program's weights"),
    ("f32[20,4,32]{2,1,0}", "scan_rnn's stacked outputs"),
    # Tuples and tokens: ByteSizeOf only (ArraySize CHECK-fails on anything but an array).
    ("(f32[16]{0}, f32[64,16]{1,0})", "tuple: ByteSizeOf is its index table, 8 bytes a leaf"),
    ("(s32[], (f32[2]{0}, pred[]))", "nested tuple: top-level elements only"),
    ("()", "empty tuple"),
    ("token[]", "token"),
    ("(f32[4]{0}, token[])", "tuple with a token"),
]


def xla_sizes(xla, versions):
    conformance = {}
    if os.path.exists(CONFORMANCE_BYTE_SIZE):
        with open(CONFORMANCE_BYTE_SIZE) as f:
            for case in json.load(f)["cases"]:
                conformance[case["shape"]] = case
    cases = []
    for text, note in SIZE_SHAPES:
        ptr = xla.parse(text)
        if ptr is None:
            raise SystemExit(f"XLA's ParseShape rejects {text!r}: fix the list")
        case = {"shape": text, "note": note, "xla_printed": xla.human_string(ptr)}
        if not (text.startswith("(") or text.startswith("token")):
            case["array_size"] = xla.array_size(ptr)
        case["byte_size_of"] = xla.byte_size_of(ptr, 8)
        # The same library gave tests/data/byte_size.json: both reads must agree.
        known = conformance.get(text)
        if known is not None and (known["byte_size_of"] != case["byte_size_of"] or (
                "array_size" in case and known["byte_size"] != case["array_size"])):
            raise SystemExit(f"{text}: ctypes read disagrees with tests/data/byte_size.json")
        cases.append(case)
    return {
        "meta": {
            "generated_with": f"jaxlib {versions['jaxlib']} (git {xla.jaxlib_git}): "
                              "xla::ParseShape, ShapeUtil::ArraySize, ShapeUtil::ByteSizeOf "
                              "and ShapeUtil::HumanStringWithLayout called in "
                              "libjax_common.so through ctypes by tests/data/hlo/generate.py",
            "fields": {
                "shape": "the text given to xla::ParseShape",
                "note": "why the shape is here",
                "xla_printed": "ShapeUtil::HumanStringWithLayout of the parsed shape (how XLA "
                               "prints it back)",
                "array_size": "ShapeUtil::ArraySize: the allocation size, tile padding and "
                              "E(n) included",
                "byte_size_of": "ShapeUtil::ByteSizeOf(shape, pointer_size=8): ignores tiles, "
                                "uses E(n); what HloLiveRange and the CPU buffer sizes use",
            },
            "not_from_xla": "nothing: every number is XLA's return value; shapes XLA rejects "
                            "are not listed; tuples and tokens have no array_size because "
                            "ShapeUtil::ArraySize CHECK-fails (aborts) on them",
            "count": len(cases),
        },
        "cases": cases,
    }


# --------------------------------------------------------------------------------------------

def versions_in_use():
    import jax
    import jaxlib

    return {"jax": jax.__version__, "jaxlib": jaxlib.__version__}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--any-version", action="store_true",
                    help="accept jax/jaxlib versions other than the ones the data was made with")
    ap.add_argument("--keep-dump", help="also copy XLA's whole dump directory here")
    args = ap.parse_args()

    versions = versions_in_use()
    if versions != EXPECTED_VERSIONS and not args.any_version:
        raise SystemExit(f"jax/jaxlib {versions}, expected {EXPECTED_VERSIONS} "
                         "(--any-version to proceed anyway)")
    define_programs()
    with tempfile.TemporaryDirectory(prefix="xla_dump_") as dump_dir:
        env = dict(os.environ, JAX_PLATFORMS="cpu")
        env.pop("XLA_FLAGS", None)
        subprocess.run([sys.executable, "-c", COMPILE_BOOTSTRAP, SCRIPT_REL, dump_dir], cwd=REPO,
                       env=env, check=True)
        if args.keep_dump:
            shutil.copytree(dump_dir, args.keep_dump, dirs_exist_ok=True)
        with open(os.path.join(dump_dir, "memory_analysis.json")) as f:
            stats = json.load(f)
        xla = XlaShapeUtil()
        if os.path.isdir(OUT_DIR):
            shutil.rmtree(OUT_DIR)
        os.makedirs(OUT_DIR)
        programs = [collect(dump_dir, name, description, covers, stats[name], versions, xla)
                    for name, description, covers, _ in PROGRAMS]
    manifest = {
        "meta": {
            "generated_by": SCRIPT_REL,
            "jax": versions["jax"],
            "jaxlib": versions["jaxlib"],
            "jaxlib_git": xla.jaxlib_git,
            "platform": "cpu",
            "xla_flags": " ".join(["--xla_dump_to=DIR"] + XLA_FLAGS),
            "fields": "see tests/data/hlo/README.md",
            "count": len(programs),
        },
        "programs": programs,
    }
    with open(os.path.join(OUT_DIR, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    with open(SIZES_FILE, "w") as f:
        json.dump(xla_sizes(xla, versions), f, indent=1)
        f.write("\n")
    bad = [p["name"] for p in programs
           if not p.get("reproduction", {}).get("matches_xla_peak_step", True)
           or not p.get("reproduction", {}).get("live_set_matches_xla", True)]
    print(f"{len(programs)} programs written to {os.path.relpath(OUT_DIR, REPO)}; "
          f"peak rule reproduced on all but: {bad or 'none'}")


if __name__ == "__main__":
    main()
