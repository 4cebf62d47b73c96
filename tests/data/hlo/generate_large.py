#!/usr/bin/env python3
"""Regenerate tests/data/hlo/jax_cpu_large/ (the Rust tests never run this).

How to run, from the repository root:

    pip install jax==0.10.2        # CPU jaxlib 0.10.2
    python3 tests/data/hlo/generate_large.py

Larger JAX programs than those of jax_cpu/ (generate.py), compiled on CPU with
`XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text`, to hold the prediction of XLA:CPU's
buffer assignment (`xlayout::hlo::Assignment`) to `compiled.memory_analysis()`: attention
gradients in bf16 (the issue's B=8, S=1024, and a medium one), a `lax.scan` RNN that updates
a buffer in place, an MLP training step of four 4096-wide layers, and while, cond, donation,
remat, convolution, sort and gather programs of some size.

Versions used for the committed data: jax 0.10.2, jaxlib 0.10.2, x86_64 Linux, AMD EPYC
(Zen 4, AVX-512). The script refuses other jax/jaxlib versions unless `--any-version` is
given. Nothing runs: every program is traced from `jax.ShapeDtypeStruct`s and only compiled.

Kept per program, in `jax_cpu_large/<program>/` (the texts are small even where the buffers
are gigabytes):

    after_optimizations.txt   <- module_NNNN.jit_<program>.cpu_after_optimizations.txt
    buffer_assignment.txt     <- ...cpu_after_optimizations-buffer-assignment.txt

and `jax_cpu_large/manifest.json`: per program its description, XLA's file names and
`compiled.memory_analysis()`.

Paths: JAX records the caller's source file in each module's metadata. The compile step (a
child process) compiles this file's text under the name `tests/data/hlo/generate_large.py`,
so the dumps are the same wherever the repository lives; editing this file moves the line
numbers in the dumps' metadata: regenerate and commit the data with it.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT_REL = "tests/data/hlo/generate_large.py"
OUT_DIR = os.path.join(HERE, "jax_cpu_large")
EXPECTED_VERSIONS = {"jax": "0.10.2", "jaxlib": "0.10.2"}
XLA_FLAGS = ["--xla_dump_hlo_as_text"]
KEPT = [
    ("cpu_after_optimizations.txt", "after_optimizations.txt"),
    ("cpu_after_optimizations-buffer-assignment.txt", "buffer_assignment.txt"),
]
FIELDS = [
    "argument_size_in_bytes", "output_size_in_bytes", "alias_size_in_bytes",
    "temp_size_in_bytes", "generated_code_size_in_bytes", "peak_memory_in_bytes",
]

PROGRAMS = []


def program(description):
    """Registers a program builder; the program's name is the builder's name."""

    def register(builder):
        PROGRAMS.append((builder.__name__, description, builder))
        return builder

    return register


def define_programs():
    import jax
    import jax.numpy as jnp
    from jax import lax

    def spec(dtype, *shape):
        return jax.ShapeDtypeStruct(shape, dtype)

    f32 = lambda *s: spec(jnp.float32, *s)
    bf16 = lambda *s: spec(jnp.bfloat16, *s)
    i32 = lambda *s: spec(jnp.int32, *s)

    def attention(q, k, v):
        s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / jnp.sqrt(jnp.asarray(q.shape[-1], q.dtype))
        causal = jnp.tril(jnp.ones((q.shape[2], k.shape[2]), jnp.bool_))
        s = jnp.where(causal, s, jnp.asarray(-1e4, s.dtype))
        return jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, axis=-1), v)

    def attention_grad(b, h, s, d):
        def loss(q, k, v):
            return jnp.sum(attention(q, k, v).astype(jnp.float32) ** 2)

        shape = bf16(b, h, s, d)
        return jax.grad(loss, argnums=(0, 1, 2)), (shape, shape, shape), {}

    @program("gradient of causal multi-head attention in bf16, B=8 H=8 S=1024 D=64 (the issue's)")
    def attention_grad_bf16_b8_s1024():
        return attention_grad(8, 8, 1024, 64)

    @program("gradient of causal multi-head attention in bf16, B=2 H=8 S=512 D=64 (medium)")
    def attention_grad_bf16_b2_s512():
        return attention_grad(2, 8, 512, 64)

    @program("lax.scan RNN over 512 steps of f32[64,1024] that writes each state into a "
             "f32[512,64,1024] buffer in place (dynamic-update-slice in the carry)")
    def scan_rnn_inplace():
        def f(w, xs, h0):
            def cell(carry, x):
                h, buf, i = carry
                h = jnp.tanh(h @ w + x)
                buf = lax.dynamic_update_slice(buf, h[None], (i, 0, 0))
                return (h, buf, i + 1), None

            buf = jnp.zeros((512, 64, 1024), jnp.float32)
            (h, buf, _), _ = lax.scan(cell, (h0, buf, 0), xs)
            return h, buf

        return f, (f32(1024, 1024), f32(512, 64, 1024), f32(64, 1024)), {}

    def mlp(params, x):
        for w, b in params[:-1]:
            x = jax.nn.gelu(x @ w + b)
        w, b = params[-1]
        return x @ w + b

    @program("MLP training step, 4 layers 4096 wide, batch 256, SGD, parameters donated")
    def mlp_train_step_4x4096():
        def step(params, x, y):
            loss = lambda p: jnp.mean((mlp(p, x) - y) ** 2)
            g = jax.grad(loss)(params)
            return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, g)

        params = [(f32(4096, 4096), f32(4096)) for _ in range(4)]
        return step, (params, f32(256, 4096), f32(256, 4096)), {"donate_argnums": (0,)}

    @program("MLP training step, 4 layers 4096 wide, batch 256, SGD, not donated")
    def mlp_train_step_4x4096_kept():
        def step(params, x, y):
            loss = lambda p: jnp.mean((mlp(p, x) - y) ** 2)
            g = jax.grad(loss)(params)
            return jax.tree_util.tree_map(lambda p, g: p - 1e-3 * g, params, g)

        params = [(f32(4096, 4096), f32(4096)) for _ in range(4)]
        return step, (params, f32(256, 4096), f32(256, 4096)), {}

    @program("Adam step of a 2048x2048 and a 2048 parameter, state and parameters donated")
    def adam_step_donated():
        def step(p, m, v, g, t):
            m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
            v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
            p = jax.tree_util.tree_map(
                lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8) / (1 - 0.9 ** t), p, m, v)
            return p, m, v

        tree = (f32(2048, 2048), f32(2048))
        return step, (tree, tree, tree, tree, f32()), {"donate_argnums": (0, 1, 2)}

    @program("fori_loop of 16 matmuls with a tanh on f32[512,512], and a while_loop with a "
             "data-dependent stop")
    def while_loops():
        def f(w, x):
            x = lax.fori_loop(0, 16, lambda i, x: jnp.tanh(x @ w), x)

            def cond(c):
                return jnp.max(jnp.abs(c[0])) > 1e-3

            def body(c):
                return (c[0] * 0.5, c[1] + 1)

            y, n = lax.while_loop(cond, body, (x, 0))
            return y, n

        return f, (f32(512, 512), f32(512, 512)), {}

    @program("lax.cond choosing between a matmul chain and a softmax on f32[1024,1024]")
    def cond_branches_large():
        def f(p, x, w):
            return lax.cond(p, lambda x: (x @ w) @ w, lambda x: jax.nn.softmax(x), x)

        return f, (spec(jnp.bool_), f32(1024, 1024), f32(1024, 1024)), {}

    @program("gradient of a 6-layer 1024-wide MLP with each layer rematerialized "
             "(jax.checkpoint), batch 512")
    def remat_mlp_grad_large():
        def loss(params, x):
            for w in params:
                x = jax.checkpoint(lambda x, w: jnp.tanh(x @ w))(x, w)
            return jnp.sum(x ** 2)

        return jax.grad(loss), ([f32(1024, 1024)] * 6, f32(512, 1024)), {}

    @program("gradient of a two-layer NHWC convolution, f32[16,64,64,32] with 3x3x32x64 and "
             "3x3x64x64 kernels")
    def conv2d_grad_large():
        def loss(x, k1, k2):
            dn = ("NHWC", "HWIO", "NHWC")
            y = lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
            y = lax.conv_general_dilated(jax.nn.relu(y), k2, (1, 1), "SAME", dimension_numbers=dn)
            return jnp.sum(y ** 2)

        args = (f32(16, 64, 64, 32), f32(3, 3, 32, 64), f32(3, 3, 64, 64))
        return jax.grad(loss, argnums=(0, 1, 2)), args, {}

    @program("argsort and sort of f32[64,16384], and top_k(k=32)")
    def sort_large():
        def f(x):
            return jnp.argsort(x, axis=-1), jnp.sort(x, axis=0), lax.top_k(x, 32)

        return f, (f32(64, 16384),), {}

    @program("gradient of an embedding lookup (gather of 4096 rows of a 32768x256 table, "
             "scatter-add back) and a one-hot cross-entropy")
    def gather_embedding_grad():
        def loss(table, ids, w):
            e = jnp.take(table, ids, axis=0)
            logits = e @ w
            return -jnp.mean(jax.nn.log_softmax(logits)[:, 0])

        return jax.grad(loss, argnums=(0, 2)), (f32(32768, 256), i32(4096), f32(256, 1024)), {}


COMPILE_BOOTSTRAP = (
    "import os, sys; path, out = sys.argv[1:]; "
    "ns = {'__name__': 'generate_large', '__file__': os.path.abspath(path)}; "
    "exec(compile(open(path).read(), path, 'exec'), ns); ns['compile_into'](out)"
)


def compile_into(dump_dir):
    os.environ["XLA_FLAGS"] = " ".join([f"--xla_dump_to={dump_dir}"] + XLA_FLAGS)
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax

    define_programs()
    stats = {}
    for name, _description, builder in PROGRAMS:
        fn, args, jit_kwargs = builder()

        # JAX names the module jit_<function name>: name the function after the program.
        def named(*a, _fn=fn):
            return _fn(*a)

        named.__name__ = named.__qualname__ = name
        m = jax.jit(named, **jit_kwargs).lower(*args).compile().memory_analysis()
        stats[name] = {field: int(getattr(m, field)) for field in FIELDS}
    with open(os.path.join(dump_dir, "memory_analysis.json"), "w") as f:
        json.dump(stats, f)


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--any-version", action="store_true")
    args = parser.parse_args()
    import jax
    import jaxlib

    versions = {"jax": jax.__version__, "jaxlib": jaxlib.__version__}
    if versions != EXPECTED_VERSIONS and not args.any_version:
        sys.exit(f"jax/jaxlib {versions}, expected {EXPECTED_VERSIONS} (--any-version to go on)")
    define_programs()
    repo = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
    with tempfile.TemporaryDirectory() as dump:
        subprocess.run(
            [sys.executable, "-c", COMPILE_BOOTSTRAP, SCRIPT_REL, dump], cwd=repo, check=True
        )
        with open(os.path.join(dump, "memory_analysis.json")) as f:
            stats = json.load(f)
        shutil.rmtree(OUT_DIR, ignore_errors=True)
        os.makedirs(OUT_DIR)
        programs = []
        for name, description, _builder in PROGRAMS:
            files = {}
            for suffix, kept in KEPT:
                found = glob.glob(os.path.join(dump, f"module_*.jit_{name}.{suffix}"))
                if len(found) != 1:
                    sys.exit(f"{name}: {len(found)} files *.{suffix}")
                os.makedirs(os.path.join(OUT_DIR, name), exist_ok=True)
                shutil.copyfile(found[0], os.path.join(OUT_DIR, name, kept))
                files[kept] = os.path.basename(found[0])
            programs.append({
                "name": name,
                "description": description,
                "module_name": f"jit_{name}",
                "files": files,
                "memory_analysis": stats[name],
            })
    manifest = {
        "meta": {
            "generated_by": SCRIPT_REL,
            **versions,
            "platform": "cpu",
            "cpu": cpu_model(),
            "xla_flags": " ".join(["--xla_dump_to=DIR"] + XLA_FLAGS),
            "count": len(programs),
        },
        "programs": programs,
    }
    with open(os.path.join(OUT_DIR, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
