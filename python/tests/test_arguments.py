"""Every entry point of the package with arguments of the wrong type, negative counts and
indices, None and hostile integers: each raises an exception of the package's own words
(naming the function and the argument) in the class Python code expects, never PyO3's
conversion errors (``OverflowError: can't convert negative int to unsigned``, ``'NoneType'
object cannot be cast as 'str'``) or a crash."""

import os

import numpy as np
import pytest

import xlayout
import xlayout.jax
from conftest import DATA

SHAPE = xlayout.Shape("f32[3,5]{1,0:T(2,2)}")
DUMP = DATA / "hlo" / "tpu_train_step.txt"
# What PyO3's and CPython's own conversions say: none of it may reach a user.
LEAKS = ["cannot be cast as", "cannot be converted", "Can't extract", "can't convert",
         "int too big", "argument '", "cannot be interpreted as an integer", "not supported "
         "between instances"]

# (call, exception class, words the message must have)
CASES = [
    ("Shape(None)", lambda: xlayout.Shape(None), TypeError, "Shape(): `text`"),
    ("Shape(b'')", lambda: xlayout.Shape(b"f32[3]"), TypeError, "Shape(): `text`"),
    ("offset((-1, 0))", lambda: SHAPE.offset((-1, 0)), xlayout.IndexOutOfBounds,
     "entry 0 is -1; indices are non-negative"),
    ("offset((0, 2**64))", lambda: SHAPE.offset((0, 2**64)), xlayout.IndexOutOfBounds,
     "entry 1 is 18446744073709551616; beyond any dimension"),
    ("offset((10**5000, 0))", lambda: SHAPE.offset((10**5000, 0)), xlayout.IndexOutOfBounds,
     "entry 0 is above 2^127"),
    ("offset('ab')", lambda: SHAPE.offset("ab"), TypeError, "Shape.offset: `index`"),
    ("offset(None)", lambda: SHAPE.offset(None), TypeError, "Shape.offset: `index`"),
    ("offset(3)", lambda: SHAPE.offset(3), TypeError, "Shape.offset: `index`"),
    ("offset((1.5, 0))", lambda: SHAPE.offset((1.5, 0)), TypeError, "entry 0 of `index` is float"),
    ("offset((None, 0))", lambda: SHAPE.offset((None, 0)), TypeError, "entry 0 of `index` is NoneType"),
    ("offset(range(10**9))", lambda: SHAPE.offset(range(10**9)), xlayout.IndexOutOfBounds,
     "more than 256 entries"),
    ("index_of(-1)", lambda: SHAPE.index_of(-1), xlayout.IndexOutOfBounds,
     "offset -1: offsets are non-negative"),
    ("index_of(2**70)", lambda: SHAPE.index_of(2**70), xlayout.IndexOutOfBounds, "beyond any grid"),
    ("index_of(None)", lambda: SHAPE.index_of(None), TypeError, "Shape.index_of"),
    ("index_of('1')", lambda: SHAPE.index_of("1"), TypeError, "Shape.index_of"),
    ("is_bitcast(None)", lambda: SHAPE.is_bitcast(None), TypeError, "Shape.is_bitcast: `to`"),
    ("bitcast(3)", lambda: SHAPE.bitcast(3), TypeError, "Shape.bitcast: `to`"),
    ("bitcast_layout(None)", lambda: SHAPE.bitcast_layout(None), TypeError,
     "Shape.bitcast_layout: `to`"),
    ("is_bitcast(transpose=(-1, 0))",
     lambda: SHAPE.is_bitcast("f32[5,3]", transpose=(-1, 0)), xlayout.IndexOutOfBounds,
     "dimension numbers are non-negative"),
    ("bitcast(transpose='10')", lambda: SHAPE.bitcast("f32[5,3]", transpose="10"), TypeError,
     "Shape.bitcast: `transpose`"),
    ("relayout(None, ...)", lambda: xlayout.relayout(None, "f32[3,5]", SHAPE), TypeError,
     "relayout: the data is a buffer"),
    ("relayout(src=None)", lambda: xlayout.relayout(b"\0" * 60, None, SHAPE), TypeError,
     "relayout: `src`"),
    ("relayout(dst=5)", lambda: xlayout.relayout(b"\0" * 60, "f32[3,5]", 5), TypeError,
     "relayout: `dst`"),
    ("relayout(out=float32)",
     lambda: xlayout.relayout(b"\0" * 60, "f32[3,5]", SHAPE, out=np.zeros(24, np.float32)),
     TypeError, "relayout: `out` is a 1-D uint8 numpy array, not a 1-D float32 array"),
    ("relayout(out=list)", lambda: xlayout.relayout(b"\0" * 60, "f32[3,5]", SHAPE, out=[]),
     TypeError, "relayout: `out`"),
    ("tile(x, None)", lambda: xlayout.tile(np.zeros((3, 5), np.float32), None), TypeError,
     "tile: `layout`"),
    ("tile(object array)", lambda: xlayout.tile(np.array([None]), "{0}"), TypeError,
     "tile: the array's numpy dtype object has no XLA element type"),
    ("untile(b, None)", lambda: xlayout.untile(b"\0" * 96, None), TypeError, "untile: `shape`"),
    ("untile(None, s)", lambda: xlayout.untile(None, SHAPE), TypeError, "untile: the data"),
    ("hlo(None)", lambda: xlayout.hlo(None), TypeError, "hlo() takes"),
    ("hlo(top=None)", lambda: xlayout.hlo(DUMP, top=None), TypeError, "hlo: `top` is a count"),
    ("hlo(top=1.5)", lambda: xlayout.hlo(DUMP, top=1.5), TypeError, "hlo: `top`"),
    ("hlo(top='5')", lambda: xlayout.hlo(DUMP, top="5"), TypeError, "hlo: `top`"),
    ("hlo(top=-1)", lambda: xlayout.hlo(DUMP, top=-1), ValueError, "hlo: `top` is a count, not -1"),
    ("hlo(min_bytes=-1)", lambda: xlayout.hlo(DUMP, min_bytes=-1), ValueError, "hlo: `min_bytes`"),
    ("hlo(module=3)", lambda: xlayout.hlo(DUMP, module=3), TypeError, "hlo: `module`"),
    ("hlo(file, module=...)", lambda: xlayout.hlo(DUMP, module="jit_train_step"), ValueError,
     "hlo: `module` picks a module of a dump directory"),
    ("relayouts(None)", lambda: xlayout.relayouts(None), TypeError, "relayouts() takes"),
    ("oom(None)", lambda: xlayout.oom(None), TypeError, "oom() takes"),
    ("oom(3)", lambda: xlayout.oom(3), TypeError, "oom() takes"),
    ("jax.load(None)", lambda: xlayout.jax.load(None), TypeError, "load: `path`"),
]


@pytest.mark.parametrize("call, raises, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_arguments_raise_in_the_packages_words(call, raises, words):
    with pytest.raises(raises) as e:
        call()
    message = str(e.value)
    assert words in message
    assert not any(leak in message for leak in LEAKS), message
    assert type(e.value) is not OverflowError


def test_large_counts_mean_all():
    # A count beyond what the extension holds lists everything, as a large `--top` does.
    assert xlayout.hlo(DUMP, top=10**30).rows == xlayout.hlo(DUMP, top=2**40).rows
    assert xlayout.hlo(DUMP, min_bytes=10**30).peak["live"] == []


def test_numpy_integers_are_integers():
    assert SHAPE.offset(np.array([2, 3])) == SHAPE.offset((np.int64(2), np.uint8(3))) == 17
    assert SHAPE.index_of(np.int32(17)) == (2, 3)
    assert xlayout.hlo(DUMP, top=np.int64(2)).top["allocated"] == xlayout.hlo(DUMP, top=2).top["allocated"]
    assert os.fspath(DUMP)  # a path object is a path


def test_tile_names_the_arrays_dtype_and_the_layouts_type():
    # Not "relayout needs the same element type": tile's own words, with both types.
    with pytest.raises(xlayout.Error) as e:
        xlayout.tile(np.zeros((3, 5)), "f32[3,5]{1,0:T(2,2)}")
    assert e.value.kind == "ElementType"
    assert str(e.value) == (
        "error: tile: the array is float64 (XLA's f64) and the layout's shape "
        "f32[3,5]{1,0:T(2,2)} holds f32: convert the array to float32, or give a layout of f64"
    )
    with pytest.raises(xlayout.Error) as e:
        xlayout.tile(np.zeros((3, 4), np.float32), xlayout.Shape("f32[3,5]{1,0:T(2,2)}"))
    assert (e.value.kind, str(e.value)) == (
        "ShapeMismatch",
        "error: tile: the array's shape is (3, 4) and the layout's shape f32[3,5]{1,0:T(2,2)} "
        "has dimensions (3, 5)",
    )
    # A layout alone takes the array's type and dimensions: nothing to mismatch.
    assert xlayout.tile(np.zeros((3, 5)), "{1,0:T(2,2)}").nbytes == 24 * 8
