"""xlayout.Shape and xlayout.Error against the Rust command's own answers."""

import sys

import pytest

import xlayout
from conftest import run

# Arrays, tuples, buffers, tokens, sub-byte and packed types, dynamic dimensions, `*`,
# `L`, `S`, `M` and split configs: every kind of line `xlayout explain` writes.
SHAPES = [
    "f32[3,5]{1,0:T(2,2)}",
    "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}",
    "(f32[2,3]{0,1}, (s4[100]{0:E(4)}, token[]))",
    "b(f32[4])",
    "opaque[]",
    "s4[1000]",
    "pred[7]{0:T(128)}",
    "f32[3,5]{1,0:T(*,2)}",
    "f32[<=8,?]",
    "f32[3]{0:T(4)L(8)}",
    "f32[1024,1024]{1,0:T(8,128)S(1)}",
    "u8[64]{0:T(9999999999999)}",
    "f32[]",
    "s32[16]{0:T(128)M(8)}",
    "f32[10,20]{1,0:SC(0:5)}",
]


@pytest.mark.parametrize("text", SHAPES)
def test_explain_is_the_command_text(command, text):
    done = run([command, "explain", text])
    assert done.returncode == 0
    assert xlayout.Shape(text).explain() == done.stdout.decode()


@pytest.mark.parametrize("text", SHAPES)
def test_canonical_text_and_sizes_are_the_command_answers(command, text):
    s = xlayout.Shape(text)
    assert run([command, "canon", text]).stdout.decode() == f"ok {s}\n"
    bytes_ = run([command, "bytes", text]).stdout.decode()
    if bytes_.startswith("ok "):
        assert s.byte_size == int(bytes_[3:])
    else:
        with pytest.raises(xlayout.Error) as e:
            s.byte_size
        assert bytes_ == f"err {str(e.value).splitlines()[0][len('error: '):]}\n"


def test_properties():
    s = xlayout.Shape("bf16[8,300]{1,0:T(8,128)(2,1)}")
    assert s.byte_size == 6144  # 8 x 384 (300 padded to 3 x 128) x 2 bytes
    assert s.logical_bytes == 4800
    assert (s.element_type, s.dims, s.minor_to_major) == ("bf16", (8, 300), (1, 0))
    assert s.tiles == ((8, 128), (2, 1))
    assert xlayout.Shape("f32[3,5]{1,0:T(*,2)}").tiles == (("*", 2),)
    assert xlayout.Shape("f32[<=8,?]").dims == (8, None)
    assert xlayout.Shape("s8[2,3,4]").minor_to_major == (2, 1, 0)  # XLA's default
    assert repr(s) == "Shape('bf16[8,300]{1,0:T(8,128)(2,1)}')"
    assert s == xlayout.Shape("bf16[8,300]{1,0:T(8,128)(2,1)E(0)}")
    assert hash(s) == hash(xlayout.Shape(str(s)))
    assert s != str(s)
    t = xlayout.Shape("(f32[2], s32[])")
    assert t.element_type is None
    with pytest.raises(xlayout.Error) as e:
        t.dims
    assert e.value.kind == "NotStaticArray"


def test_offsets_and_indices_are_the_command_answers(command):
    text = "f32[3,5]{1,0:T(2,2)}"
    s = xlayout.Shape(text)
    indices = [f"{i},{j}" for i in range(3) for j in range(5)]
    answers = run([command, "offset", text, *indices]).stdout.decode().split("\n")
    for index, answer in zip(indices, answers):
        assert f"ok {s.offset(tuple(map(int, index.split(','))))}" == answer
    offsets = [str(k) for k in range(24)]
    answers = run([command, "index", text, *offsets]).stdout.decode().split("\n")
    for k, answer in zip(range(24), answers):
        got = s.index_of(k)
        assert answer == ("ok padding" if got is None else "ok " + ",".join(map(str, got)))
    with pytest.raises(xlayout.Error) as e:
        s.index_of(24)
    assert e.value.kind == "IndexOutOfBounds"
    with pytest.raises(xlayout.Error) as e:
        s.offset((3, 0))
    assert e.value.kind == "IndexOutOfBounds"
    # A negative index is outside the shape, as an index beyond it is: xlayout.Error and
    # IndexError both, saying indices are non-negative (not PyO3's OverflowError).
    with pytest.raises(xlayout.IndexOutOfBounds) as e:
        s.offset((-1, 0))
    assert isinstance(e.value, xlayout.Error) and isinstance(e.value, IndexError)
    assert (e.value.kind, str(e.value)) == (
        "IndexOutOfBounds", "error: index [-1, 0]: entry 0 is -1; indices are non-negative"
    )
    with pytest.raises(IndexError):
        s.offset((3, 0))


@pytest.mark.parametrize(
    "text, kind, span",
    [
        ("f32[3,5]{1,0:T(0,2)}", "InvalidTileDimension", (15, 16)),
        ("f31[3]", "UnknownType", (0, 3)),
        ("f32[3,5]{1,1}", "MinorToMajorDuplicate", None),
        ("f32[3", "Syntax", None),
    ],
)
def test_errors_are_value_errors_with_the_command_message(command, text, kind, span):
    with pytest.raises(ValueError) as e:
        xlayout.Shape(text)
    err = e.value
    assert isinstance(err, xlayout.Error)
    assert err.kind == kind
    if span is not None:
        assert err.span == span
    assert err.span is None or (isinstance(err.span, tuple) and len(err.span) == 2)
    # The caret rendering, exactly as `xlayout explain` shows it on standard error.
    done = run([command, "explain", text])
    assert done.returncode == 1
    assert done.stderr.decode() == str(err) + "\n"


def test_repr_svg_is_the_command_map(command):
    text = "f32[3,5]{1,0:T(2,2)}"
    svg = xlayout.Shape(text)._repr_svg_()
    assert svg == run([command, "map", text, "--svg", "-"]).stdout.decode()
    assert 'data-index="2,3" data-offset="17"' in svg
    # No picture for a tuple: the notebook shows the repr.
    assert xlayout.Shape("(f32[2], s32[])")._repr_svg_() is None


@pytest.mark.parametrize(
    "text", ["u8[0,1]{1,0:T(2147483648,2147483648)}", "f32[0,5]{1,0:T(2,9223372036854775807)}"]
)
def test_repr_svg_of_an_empty_array_under_huge_tiles(command, text):
    # The first asked for 51 GB and aborted the interpreter (a notebook lost its kernel), the
    # second panicked: drawn in a child with 2 GiB of address space, so that neither an abort
    # nor a machine with that much to spare hides it.
    code = (
        "import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
        "import xlayout; sys.stdout.write(xlayout.Shape(sys.argv[1])._repr_svg_())"
    )
    done = run([sys.executable, "-c", code, text])
    assert (done.returncode, done.stderr.decode()) == (0, "")
    svg = done.stdout.decode()
    assert svg == run([command, "map", text, "--svg"]).stdout.decode()
    assert "the slice has no elements" in svg and len(svg) < 64 << 10


def test_hostile_text_keeps_the_rust_bounds():
    cases = [
        ("(" * 100_000, "NestingTooDeep"),
        ("f32[" + ",".join(["1"] * 100_000) + "]", "RankTooLarge"),
        ("f32[2]{0:T" + "(1)" * 20_000 + "}", "TooManyTileLevels"),
        ("f32[9223372036854775808]", "IntegerOutOfRange"),
        ("f32[4611686018427387904,4]", "ShapeTooLarge"),
    ]
    for text, kind in cases:
        with pytest.raises(xlayout.Error) as e:
            xlayout.Shape(text)
        assert e.value.kind == kind, text[:40]
    with pytest.raises(TypeError):
        xlayout.Shape(b"f32[3]")


def test_a_rust_panic_is_a_python_exception():
    # The library promises never to panic; if it ever did, the notebook must live on.
    from xlayout import _xlayout

    with pytest.raises(BaseException) as e:
        _xlayout._panic_for_tests("forced by the test")
    assert type(e.value).__name__ == "PanicException"
    assert "forced by the test" in str(e.value)
    assert xlayout.Shape("f32[3]{0}").byte_size == 12
