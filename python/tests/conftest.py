"""Shared by the package's tests: the repository's test data, the Rust command to compare
with, Chromium, and what a missing tool means (a failure under CI, a skip elsewhere)."""

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def missing_tool(why: str) -> None:
    """As the tests' support crate (tests/support/) says: under CI a check must not pass by not running."""
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI is set: a missing tool fails the run)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def command() -> Path:
    """The Rust binary `xlayout` that cargo built (XLAYOUT_BIN, or target/*/xlayout)."""
    if os.environ.get("XLAYOUT_BIN"):
        return Path(os.environ["XLAYOUT_BIN"])
    for profile in ("debug", "release"):
        path = REPO / "target" / profile / "xlayout"
        if path.is_file():
            return path
    missing_tool("no Rust xlayout binary (cargo build -p xlayout-cli, or set XLAYOUT_BIN)")


def run(args, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args], input=stdin, capture_output=True, cwd=REPO, timeout=300
    )


@pytest.fixture(scope="session")
def chromium() -> str:
    path = os.environ.get("XLAYOUT_CHROMIUM") or next(
        (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))),
        None,
    )
    if path is None:
        missing_tool("no Chromium found (apt-get install chromium, or set XLAYOUT_CHROMIUM)")
    return path


# A JAX training step and what JAX compiles beside it: the helpers of its random
# initialisation (`jit__threefry_seed`, `jit__normal`, ...) and, for `jnp.ones` of two
# shapes, `jit_broadcast_in_dim` twice (two modules of one name).
DUMP_PROGRAM = textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    jax.config.update("jax_platforms", "cpu")

    def train_step(params, x):
        def loss(params):
            for w in params:
                x_ = jnp.tanh(x @ w)
            return (x_ ** 2).mean()
        return [w - 0.1 * g for w, g in zip(params, jax.grad(loss)(params))]

    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    params = [jax.random.normal(k, (256, 256)) for k in keys]
    x = jnp.ones((64, 256)) + jnp.ones((1, 256))
    jax.block_until_ready(jax.jit(train_step)(params, x))
    """
)


@pytest.fixture(scope="session")
def dump(tmp_path_factory) -> Path:
    """A real dump directory of JAX on CPU (``XLA_FLAGS=--xla_dump_to=DIR
    --xla_dump_hlo_as_text``), made in a child process (XLA reads its flags once)."""
    try:
        import jax  # noqa: F401
    except ImportError:
        missing_tool("jax is not installed (pip install jax)")
    path = tmp_path_factory.mktemp("dump")
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={path} --xla_dump_hlo_as_text")
    done = subprocess.run(
        [sys.executable, "-c", DUMP_PROGRAM], env=env, capture_output=True, timeout=600
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    return path


@pytest.fixture(scope="session")
def library() -> str:
    """The ffi-kernels library (examples/ffi_kernels): XLAYOUT_FFI_KERNELS, or what cargo
    builds (asked, not guessed: `cargo build --message-format=json` names the file, as
    examples/ffi_kernels/call_from_jax.py asks it)."""
    if os.environ.get("XLAYOUT_FFI_KERNELS"):
        return os.environ["XLAYOUT_FFI_KERNELS"]
    if shutil.which("cargo") is None:
        missing_tool("no cargo to build examples/ffi_kernels (or set XLAYOUT_FFI_KERNELS)")
    example = REPO / "examples" / "ffi_kernels" / "call_from_jax.py"
    spec = importlib.util.spec_from_file_location("call_from_jax", example)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.library()
