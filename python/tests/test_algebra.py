"""Shape.is_bitcast / bitcast / bitcast_layout and xlayout.relayouts against the command's
JSON, the jax-ml/jax#24404 case, and against jax's own reshapes and transposes."""

import itertools
import json

import pytest

import xlayout
from conftest import DATA, run

X = "f32[4,128]{1,0:T(8,128)}"
SPLIT = "f32[4,1,128]{2,1,0:T(8,128)}"
LEAD = "f32[1,4,128]{2,1,0:T(8,128)}"


def test_the_issue_case():
    x = xlayout.Shape(X)
    assert x.is_bitcast(LEAD) and not x.is_bitcast(SPLIT)
    assert x.bitcast_layout(SPLIT) == xlayout.Shape("f32[4,1,128]{2,0,1:T(8,128)}")
    assert x.bitcast_layout(LEAD) == xlayout.Shape(LEAD)
    a = x.bitcast(xlayout.Shape(SPLIT))
    assert (a["bitcast"], a["xla_open_source"]) == (False, True)
    assert (a["moved_position"], a["moved_from_index"], a["moved_to_index"]) == (128, [1, 0], [1, 0, 0])
    assert (a["read_bytes"], a["written_bytes"]) == (4096, 16384)


@pytest.mark.parametrize(
    "args",
    [
        [X, SPLIT],
        [X, LEAD],
        ["bf16[16,256]{1,0:T(8,128)(2,1)}", "bf16[2,8,256]{2,1,0:T(8,128)(2,1)}"],
        ["f32[10,5]{1,0:T(8,128)}", "f32[5,10]{1,0:T(8,128)}", "--transpose", "1,0"],
        ["f32[8,256]{1,0:T(8,128)}", "f32[2048]{0:T(1024)}"],
    ],
)
def test_bitcast_is_the_command_answer(command, args):
    done = run([command, "bitcast", *args, "--format", "json"])
    want = json.loads(done.stdout)
    assert done.returncode == (0 if want["bitcast"] else 1)
    del want["version"]
    transpose = None
    if "--transpose" in args:
        transpose = tuple(int(d) for d in args[args.index("--transpose") + 1].split(","))
    got = xlayout.Shape(args[0]).bitcast(args[1], transpose=transpose)
    assert got == want
    assert xlayout.Shape(args[0]).is_bitcast(args[1], transpose=transpose) == want["bitcast"]


def test_bad_input_is_an_error():
    x = xlayout.Shape(X)
    with pytest.raises(xlayout.Error) as e:
        x.is_bitcast("f32[4,128]{1,0:T(0,128)}")
    assert e.value.kind == "InvalidTileDimension"
    with pytest.raises(xlayout.Error) as e:
        x.bitcast("f32[128,4]", transpose=(0, 0))
    assert e.value.kind == "ShapeMismatch"
    with pytest.raises(xlayout.Error) as e:
        xlayout.Shape("(f32[2], s32[])").is_bitcast("f32[2]")
    assert e.value.kind == "NotStaticArray"


@pytest.mark.parametrize("dump", ["tpu_train_step.txt", "jax_cpu/transpose_reshape/after_optimizations.txt"])
def test_relayouts_is_the_command_report(command, dump):
    path = DATA / "hlo" / dump
    want = json.loads(run([command, "relayouts", path, "--format", "json"]).stdout)["files"][0]
    r = xlayout.relayouts(path)
    assert r.rows == want["rows"]
    assert (r.module, r.free, r.moved_bytes) == (want["module"], want["free"], want["moved_bytes"])
    assert len(r.rows) == want["instructions"]


def test_relayouts_of_a_compiled_jax_function():
    # XLA:CPU's own layouts for a transpose: the physical move is a copy, which the report
    # finds, with the layout that would have made it free.
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    compiled = jax.jit(lambda x: jnp.transpose(x, (1, 0, 2)) * 2).lower(
        jnp.zeros((8, 16, 32), jnp.float32)
    ).compile()
    r = xlayout.relayouts(compiled)
    assert r.rows, compiled.as_text()
    for row in r.rows:
        assert row["bitcast"] in (True, False)
        if row["bitcast"] is False:
            assert row["moved_bytes"] > 0 and row["bitcast_layout"] is not None


@pytest.mark.parametrize(
    "dims,new", [((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)), ((4, 6), (2, 2, 6)), ((5, 1, 3), (15,))]
)
def test_untiled_row_major_reshapes_are_free_as_jax_compiles_them(dims, new):
    # XLA's own row-major reshapes are bitcasts: whatever order jax's arrays have, a reshape
    # of a row-major array to a row-major result keeps every element in place.
    a = xlayout.Shape(f"f32[{','.join(map(str, dims))}]")
    assert a.is_bitcast(f"f32[{','.join(map(str, new))}]")
    for perm in itertools.permutations(range(len(dims))):
        # A transpose to the layout PermuteDimensions gives: free.
        to_dims = ",".join(str(dims[p]) for p in perm)
        layout = a.bitcast_layout(f"f32[{to_dims}]", transpose=perm)
        assert layout is not None and a.is_bitcast(layout, transpose=perm)
