"""XLA FFI handlers written in Rust (examples/ffi_kernels) called from JAX through
xlayout.jax.load: each kernel under jax.jit against numpy to the bit, the layouts in the
compiled program, and every bad call an exception that names what was wrong, the
interpreter alive after it."""

import ctypes.util
import importlib.util
import json
import re
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import xlayout
import xlayout.jax
from conftest import REPO, missing_tool, run

jax.config.update("jax_platforms", "cpu")

EXAMPLE = REPO / "examples" / "ffi_kernels" / "call_from_jax.py"


def _example():
    spec = importlib.util.spec_from_file_location("call_from_jax", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


example = _example()
same_bits = example.same_bits
row_sums_left_to_right = example.row_sums_left_to_right
wide_bf16 = example.wide_bf16


@pytest.fixture(scope="session")
def k(library):
    return xlayout.jax.load(library)


@pytest.fixture
def rng():
    return np.random.default_rng(33)


def test_the_library_lists_its_handlers(k, library):
    assert list(k.handlers) == ["transpose_add", "row_sum", "row_sums", "scale", "pick_row", "empty"]
    assert k.transpose_add.__name__ == "transpose_add"
    assert k.transpose_add.__doc__ == (
        "The XLA FFI handler transpose_add(x: f32[64,32]{0,1}, y: f32[64,32]{1,0}) -> "
        "(out: f32[64,32]{1,0}), through jax.ffi.ffi_call."
    )
    assert "factor: float32" in k.scale.__doc__
    with pytest.raises(AttributeError, match="has no handler 'transpose'"):
        k.transpose
    # Loading again registers the same functions again, which XLA accepts.
    assert list(xlayout.jax.load(library).handlers) == list(k.handlers)


def test_transpose_add_is_x_plus_y(k, rng):
    x = rng.standard_normal((64, 32), dtype=np.float32)
    y = rng.standard_normal((64, 32), dtype=np.float32)
    assert same_bits(jax.jit(k.transpose_add)(x, y), x + y)
    # Inside a larger program, with jax arrays of other origins.
    f = jax.jit(lambda a, b: k.transpose_add(a * 2, b.T.T) - 1)
    assert same_bits(f(x, y), (x * 2 + y) - 1)


def test_row_sum_adds_each_row_left_to_right_in_f32(k, rng):
    b = wide_bf16(rng, (8, 256))
    assert same_bits(jax.jit(k.row_sum)(b), row_sums_left_to_right(b))
    # The order matters on these values: numpy's pairwise sum and XLA's own reduction
    # differ from the left-to-right one.
    assert not same_bits(b.astype(np.float32).sum(axis=1), row_sums_left_to_right(b))
    assert not same_bits(jnp.sum(b, axis=1, dtype=jnp.float32), row_sums_left_to_right(b))


@pytest.mark.parametrize("rows", [0, 1, 7, 8, 9, 100, 1001])
def test_row_sums_takes_any_batch(k, rng, rows):
    b = wide_bf16(rng, (rows, 256))
    out = jax.jit(k.row_sums)(b)
    assert out.shape == (rows,)
    assert same_bits(out, row_sums_left_to_right(b))


def test_scale_converts_its_attribute_to_the_declared_type(k, rng):
    x = rng.standard_normal((3, 128), dtype=np.float32)
    # A Python float would travel as f64: the callable makes it the declared f32.
    assert same_bits(jax.jit(lambda v: k.scale(v, factor=0.1))(x), x * np.float32(0.1))
    assert same_bits(k.scale(x, factor=np.float64(3)), x * np.float32(3))
    # No rows at all: XLA may pass no data for an empty buffer.
    empty = np.zeros((0, 128), np.float32)
    assert jax.jit(lambda v: k.scale(v, factor=2.0))(empty).shape == (0, 128)


def test_the_compiled_program_has_the_declared_layouts(k, rng, command, tmp_path):
    x = rng.standard_normal((64, 32), dtype=np.float32)
    compiled = jax.jit(k.transpose_add).lower(x, x).compile()
    text = compiled.as_text()
    call = next(line for line in text.splitlines() if "custom-call(" in line)
    assert 'custom_call_target="transpose_add"' in call
    assert "operand_layout_constraints={f32[64,32]{0,1}, f32[64,32]{1,0}}" in call
    assert "api_version=API_VERSION_TYPED_FFI" in call
    # xlayout's reader of the same module: the call's result in its declared layout, and
    # the copy XLA inserted to give `x` the column-major order the handler declares.
    operands = re.search(r"custom-call\(%([\w.-]+), %([\w.-]+)\)", call).groups()
    rows = {r["instruction"]: r for r in xlayout.hlo(compiled).rows}
    target = next(r for r in rows.values() if r["opcode"] == "custom-call")
    assert target["shape"] == "f32[64,32]{1,0}"
    assert rows[operands[0]]["shape"] == "f32[64,32]{0,1}"
    assert rows[operands[1]]["shape"] == "f32[64,32]{1,0}"
    assert rows[operands[1]]["opcode"] == "parameter"
    # The command reads the dump the same way.
    dump = tmp_path / "transpose_add.txt"
    dump.write_text(text)
    report = json.loads(run([command, "hlo", "--format", "json", dump]).stdout)
    by_name = {r["instruction"]: r for r in report["files"][0]["instructions"]}
    assert by_name[operands[0]]["shape"] == "f32[64,32]{0,1}"
    assert by_name[target["instruction"]]["shape"] == "f32[64,32]{1,0}"


def test_a_wrong_dtype_or_shape_names_the_argument(k, rng):
    x = rng.standard_normal((64, 32), dtype=np.float32)
    jitted = jax.jit(k.transpose_add)
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape(
            "INVALID_ARGUMENT: transpose_add: argument `x`: expected f32[64,32]{0,1}, "
            "got a buffer s32[64,32]"
        ),
    ):
        jitted(x.astype(np.int32), x)
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape("argument `y`: expected f32[64,32]{1,0}, got a buffer f32[64,31]"),
    ):
        jitted(x, x[:, :31])
    with pytest.raises(TypeError, match=re.escape("argument `x` has shape (64,) (rank 1)")):
        jitted(x[:, 0], x)
    with pytest.raises(TypeError, match="transpose_add takes 2 array"):
        k.transpose_add(x)
    # The interpreter lives on, and the next call is right.
    assert same_bits(jitted(x, x), x + x)


def test_a_bad_attribute_is_an_exception(k, rng):
    x = rng.standard_normal((2, 128), dtype=np.float32)
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape("scale: [0] Wrong number of attributes: expected 1 but got 0"),
    ):
        jax.jit(k.scale)(x)
    with pytest.raises(jax.errors.JaxRuntimeError, match="factor is inf: give a finite one"):
        k.scale(x, factor=np.inf)
    # Called without xlayout's conversion, a Python float arrives as f64: refused by the
    # handler's instantiate stage, when the program is compiled.
    raw = jax.ffi.ffi_call("scale", jax.ShapeDtypeStruct(x.shape, x.dtype))
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape("scale: attribute `factor`: dtype f64, expected f32"),
    ):
        jax.jit(lambda v: raw(v, factor=2.0)).lower(x).compile()
    assert same_bits(k.scale(x, factor=2), x * 2)


def test_a_result_sized_unlike_its_argument_is_refused(rng):
    # ffi_call directly, with a result shape the declaration does not allow.
    x = rng.standard_normal((3, 128), dtype=np.float32)
    raw = jax.ffi.ffi_call("scale", jax.ShapeDtypeStruct((4, 128), np.float32))
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape(
            "scale: `y` dimension 0 is 4 and `x` dimension 0 is 3, declared equal (`y[0] = x[0]`)"
        ),
    ):
        raw(x, factor=np.float32(1))


def test_a_panicking_kernel_raises(k, rng):
    x = rng.standard_normal((8, 256), dtype=np.float32)
    assert same_bits(k.pick_row(x, row=3), x[3])
    with pytest.raises(
        jax.errors.JaxRuntimeError,
        match=re.escape(
            "INTERNAL: pick_row: panic: index [9, 0] out of bounds for the layout "
            "f32[8,256]{1,0}"
        ),
    ):
        jax.jit(lambda v: k.pick_row(v, row=9))(x)
    assert same_bits(k.pick_row(x, row=7), x[7])


def test_no_differentiation_rule_is_given(k, rng):
    # jax.grad works where the user gives a rule (jax.custom_vjp); a handler has none.
    x = rng.standard_normal((2, 128), dtype=np.float32)
    with pytest.raises(ValueError, match="The FFI call to `scale` cannot be differentiated"):
        jax.grad(lambda v: k.scale(v, factor=2.0).sum())(x)


def test_the_empty_handler_copies_its_scalar(k):
    assert same_bits(jax.jit(k.empty)(np.float32(2.5)), np.float32(2.5))


def test_a_library_without_handlers_is_refused():
    libc = ctypes.util.find_library("c")
    if libc is None:
        missing_tool("no C library to load")
    with pytest.raises(ValueError, match="exports no xlayout_ffi_manifest"):
        xlayout.jax.load(libc)


def test_the_example_script_runs(library):
    run = subprocess.run(
        [sys.executable, str(EXAMPLE), library], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    assert "transpose_add(x, y) == x + y" in run.stdout
    assert "a wrong call is an exception: INVALID_ARGUMENT: transpose_add: argument `x`" in run.stdout
