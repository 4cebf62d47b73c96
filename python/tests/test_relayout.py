"""relayout, tile and untile against numpy's pad-reshape-transpose recipe, bit for bit."""

import ml_dtypes  # a test dependency: numpy's bfloat16, float8_*, int4
import numpy as np
import pytest

import xlayout
from conftest import run


def recipe(x, tile, group=1):
    """numpy's recipe for `{1,0:T(tr,tc)}` (and `(group,1)` after it) of a 2-D array: pad
    each dimension to a multiple of the tile, split each into (tiles, tile), put the tile
    counts first; then, inside each tile, interleave `group` rows element by element."""
    tr, tc = tile
    rows, cols = -(-x.shape[0] // tr) * tr, -(-x.shape[1] // tc) * tc
    padded = np.zeros((rows, cols), x.dtype)
    padded[: x.shape[0], : x.shape[1]] = x
    t = padded.reshape(rows // tr, tr, cols // tc, tc).transpose(0, 2, 1, 3)
    if group > 1:
        t = t.reshape(rows // tr, cols // tc, tr // group, group, tc).transpose(0, 1, 2, 4, 3)
    return np.ascontiguousarray(t).reshape(-1).view(np.uint8)


def random_bits(shape, dtype, seed):
    """Every bit pattern of the dtype, NaNs included: compared as bytes, not values."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    x = raw.view(dtype).reshape(shape)
    if dtype in (np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)):
        # numpy's int4 keeps one value per byte, in the low nibble (sign-extended for s4).
        x = (raw & 0xF).view(dtype).reshape(shape)
    return x


# (numpy dtype, XLA name, the tilings TPUs use for that width)
DTYPES = [
    (np.float32, "f32", [((8, 128), 1)]),
    (np.int32, "s32", [((8, 128), 1)]),
    (np.float64, "f64", [((8, 128), 1)]),
    (ml_dtypes.bfloat16, "bf16", [((8, 128), 2), ((16, 128), 1)]),
    (np.float16, "f16", [((8, 128), 2)]),
    (ml_dtypes.float8_e4m3fn, "f8e4m3fn", [((8, 128), 4), ((32, 128), 1)]),
    (ml_dtypes.float8_e5m2, "f8e5m2", [((8, 128), 4)]),
    (ml_dtypes.float8_e4m3fnuz, "f8e4m3fnuz", [((8, 128), 4)]),
    (ml_dtypes.float8_e5m2fnuz, "f8e5m2fnuz", [((8, 128), 4)]),
    (ml_dtypes.float8_e4m3b11fnuz, "f8e4m3b11fnuz", [((8, 128), 4)]),
    (np.int8, "s8", [((8, 128), 4)]),
    (ml_dtypes.int4, "s4", [((8, 128), 1)]),
    (ml_dtypes.uint4, "u4", [((8, 128), 1)]),
]


def layout_text(tile, group):
    return f"{{1,0:T({tile[0]},{tile[1]})" + (f"({group},1)" if group > 1 else "") + "}"


@pytest.mark.parametrize("dtype, name, tilings", DTYPES, ids=[d[1] for d in DTYPES])
@pytest.mark.parametrize("shape", [(8, 128), (37, 300), (1, 5), (64, 256)])
def test_tile_and_untile_match_numpy_bit_for_bit(dtype, name, tilings, shape):
    x = random_bits(shape, dtype, seed=hash((name, shape)) % 2**32)
    for tile, group in tilings:
        layout = layout_text(tile, group)
        want = recipe(x, tile, group)
        got = xlayout.tile(x, layout)
        assert got.dtype == np.uint8 and got.ndim == 1
        assert got.tobytes() == want.tobytes(), (name, layout)
        full = f"{name}[{shape[0]},{shape[1]}]{layout}"
        assert got.nbytes == xlayout.Shape(full).byte_size
        back = xlayout.untile(got, full)
        assert back.dtype == np.dtype(dtype) and back.shape == shape
        assert back.tobytes() == x.tobytes()
        # The same through relayout, from bytes and from a memoryview.
        src = f"{name}[{shape[0]},{shape[1]}]"
        assert xlayout.relayout(x.tobytes(), src, full).tobytes() == want.tobytes()
        assert xlayout.relayout(memoryview(x.tobytes()), src, full).tobytes() == want.tobytes()


def test_figure_1_of_the_tiled_layout_document():
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    got = xlayout.tile(x, "{1,0:T(2,2)}").view(np.float32)
    pad = 0
    assert got.tolist() == [0, 1, 5, 6, 2, 3, 7, 8, 4, pad, 9, pad,
                            10, 11, pad, pad, 12, 13, pad, pad, 14, pad, pad, pad]


def test_packed_sub_byte_layouts_match_numpy_packing():
    # E(4): two s4 per byte, the first element in the low nibble.
    x = random_bits((3, 5), ml_dtypes.int4, seed=4)
    nibbles = np.append(x.reshape(-1).view(np.uint8) & 0xF, 0)
    want = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
    assert xlayout.tile(x, "{1,0:E(4)}").tobytes() == want.tobytes()
    back = xlayout.untile(want, "s4[3,5]{1,0:E(4)}")
    assert back.tobytes() == x.tobytes()


def test_transposed_views_are_read_in_place_through_their_layout():
    x = random_bits((300, 37), np.float32, seed=5)
    t = x.T  # F-contiguous: read as f32[37,300]{0,1}, no copy
    assert not t.flags.c_contiguous
    assert xlayout.tile(t, "{1,0:T(8,128)}").tobytes() == recipe(t, (8, 128)).tobytes()
    # A strided slice is copied first, with the same answer.
    s = x[::2, ::3]
    assert xlayout.tile(s, "{1,0:T(8,128)}").tobytes() == recipe(s, (8, 128)).tobytes()
    # 3-D: a permuted view, to a permuted tiled layout.
    y = random_bits((4, 6, 10), np.float32, seed=6).transpose(2, 0, 1)
    want = np.ascontiguousarray(y.transpose(1, 0, 2)).reshape(-1).view(np.uint8)
    assert xlayout.tile(y, "{2,0,1}").tobytes() == want.tobytes()


def test_scalars_and_empty_arrays():
    x = np.asarray(np.float32(3.5))
    tiled = xlayout.tile(x, "{:T(128)}")  # a scalar fills a 128-element tile
    assert tiled.nbytes == 512 and tiled.view(np.float32).tolist() == [3.5] + [0.0] * 127
    assert xlayout.untile(tiled, "f32[]{:T(128)}").tolist() == 3.5
    assert xlayout.tile(np.zeros((0, 5), np.float32), "{1,0:T(8,128)}").nbytes == 0


def test_relayout_reads_the_input_in_place_and_writes_into_out():
    x = np.arange(15, dtype=np.float32)
    out = np.full(96, 0xFF, np.uint8)
    got = xlayout.relayout(x, "f32[3,5]", "f32[3,5]{1,0:T(2,2)}", out=out)
    assert got is out
    assert out.view(np.float32)[17] == 13 and out.view(np.float32)[9] == 0  # padding zeroed


def test_errors(command):
    x = np.zeros(15, np.float32)
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x[:14], "f32[3,5]", "f32[3,5]{0,1}")
    assert e.value.kind == "BufferLength"
    assert str(e.value) == "error: the source buffer has 56 bytes; its layout needs exactly 60"
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "f32[3,5]", "f32[5,3]")
    assert e.value.kind == "ShapeMismatch"
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "f32[3,5]", "s32[3,5]")
    assert e.value.kind == "ElementType"
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "f32[3,5]", "f32[3,5]{1,0:T(0,2)}")
    assert (e.value.kind, e.value.span) == ("InvalidTileDimension", (15, 16))
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "(f32[3,5])", "f32[3,5]")
    assert e.value.kind == "NotStaticArray"
    # A layout that parses but has no index space: the message the command gives for it.
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "f32[3,5]", "f32[3,5]{1,0:T(2,*)}")
    assert e.value.kind == "TrailingCombine"
    done = run([command, "offset", "f32[3,5]{1,0:T(2,*)}", "0,0"])
    assert done.stderr.decode() == str(e.value) + "\n"
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(x, "f32[3,5]", "f32[3,5]", out=np.zeros(59, np.uint8))
    assert e.value.kind == "BufferLength"
    with pytest.raises(ValueError, match="not C-contiguous"):
        xlayout.relayout(np.zeros((5, 3), np.float32).T, "f32[3,5]", "f32[3,5]")
    with pytest.raises(TypeError):
        xlayout.relayout(x, "f32[3,5]", "f32[3,5]", out=np.zeros(15, np.float32))
    # The destination may not be the source (every form: test_overlapping_buffers_...).
    buf = np.zeros(60, np.uint8)
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(buf, "f32[3,5]", "f32[3,5]{0,1}", out=buf)
    assert e.value.kind == "BufferOverlap"
    # Nor a read-only buffer.
    with pytest.raises(ValueError, match="^the destination buffer `out` is read-only$"):
        xlayout.relayout(x, "f32[3,5]", "f32[3,5]", out=np.frombuffer(bytes(60), np.uint8))
    with pytest.raises(TypeError):
        xlayout.tile(np.zeros(3, dtype="U4"), "{0}")
    with pytest.raises(xlayout.Error) as e:
        xlayout.untile(bytes(8), "(f32[2])")
    assert e.value.kind == "NotStaticArray"


def test_xla_and_numpy_type_names_agree_both_ways():
    names = {
        "f32": np.float32, "f64": np.float64, "f16": np.float16, "s8": np.int8,
        "s16": np.int16, "s32": np.int32, "s64": np.int64, "u8": np.uint8,
        "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "pred": np.bool_,
        "c64": np.complex64, "c128": np.complex128, "bf16": ml_dtypes.bfloat16,
        "s4": ml_dtypes.int4, "u4": ml_dtypes.uint4, "s2": ml_dtypes.int2,
        "u2": ml_dtypes.uint2, "f8e4m3fn": ml_dtypes.float8_e4m3fn,
        "f8e5m2": ml_dtypes.float8_e5m2, "f8e4m3": ml_dtypes.float8_e4m3,
        "f8e3m4": ml_dtypes.float8_e3m4, "f8e8m0fnu": ml_dtypes.float8_e8m0fnu,
        "f4e2m1fn": ml_dtypes.float4_e2m1fn, "f6e2m3fn": ml_dtypes.float6_e2m3fn,
        "f6e3m2fn": ml_dtypes.float6_e3m2fn,
    }
    for xla, dtype in names.items():
        assert xlayout._xla_type(np.dtype(dtype)) == xla
        assert xlayout._numpy_type(xla) == np.dtype(dtype)
        xlayout.Shape(f"{xla}[2]")  # an XLA type name the parser knows


# A transpose f32[N,N]{1,0} -> {0,1}: every destination byte but the diagonal's comes from
# elsewhere in the source, so a destination that shares memory with the source would be
# overwritten before it is read (the wrong answer the issue shows).
N = 64
NBYTES = N * N * 4
TRANSPOSE = (f"f32[{N},{N}]{{1,0}}", f"f32[{N},{N}]{{0,1}}")


def _values():
    return np.arange(N * N, dtype=np.float32)


def _shifted(shift):
    """Source and `out` in one buffer, `out` starting `shift` bytes after the source."""
    big = np.zeros(NBYTES + abs(shift), np.uint8)
    a, b = big[: NBYTES], big[abs(shift):]
    a[:] = _values().view(np.uint8)
    return (a, b) if shift >= 0 else (b, a)


def _bytearray_behind_both():
    ba = bytearray(_values().tobytes())
    return np.frombuffer(ba, np.uint8), np.frombuffer(ba, np.uint8)


def _mmap_behind_both():
    import mmap

    m = mmap.mmap(-1, NBYTES)
    m[:] = _values().tobytes()
    return memoryview(m), np.frombuffer(m, np.uint8)


def _as_strided():
    a = _values()
    return a, np.lib.stride_tricks.as_strided(a.view(np.uint8), shape=(NBYTES,), strides=(1,))


def _ndarray_over_buffer():
    a = _values()
    return a, np.ndarray((NBYTES,), np.uint8, buffer=a)


# How the same memory reaches `data` and `out`: (data, out) makers. The numpy base objects
# differ in all but the first two forms, so numpy's own borrow tracking cannot see them.
SAME_MEMORY = {
    "the same array": lambda: (lambda a: (a, a))(_values().view(np.uint8)),
    "a numpy view of it": lambda: (lambda a: (a, a.view(np.uint8)[:]))(_values()),
    "a memoryview of it": lambda: (lambda a: (memoryview(a), a.view(np.uint8)))(_values()),
    "a bytearray behind both": _bytearray_behind_both,
    "as_strided": _as_strided,
    "np.ndarray(buffer=...)": _ndarray_over_buffer,
    "out shifted by 64 bytes": lambda: _shifted(64),
    "data shifted by 64 bytes": lambda: _shifted(-64),
    "one byte in common": lambda: _shifted(NBYTES - 1),
    "an mmap behind both": _mmap_behind_both,
}


@pytest.mark.parametrize("form", SAME_MEMORY)
def test_overlapping_buffers_are_refused_whatever_provides_them(form):
    data, out = SAME_MEMORY[form]()
    before = bytes(out)
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(data, *TRANSPOSE, out=out)
    assert e.value.kind == "BufferOverlap"
    assert str(e.value).startswith("error: the destination buffer shares memory with the source")
    assert bytes(out) == before  # nothing written
    # The same through the benchmark's entry point, which borrows the same way.
    with pytest.raises(xlayout.Error):
        src, dst = (xlayout.Shape(t) for t in TRANSPOSE)
        xlayout._xlayout._time_rust_relayout(xlayout._byte_view(data), src, dst, out)


def test_the_shared_bytes_are_named_in_each_buffer():
    data, out = _shifted(64)
    with pytest.raises(xlayout.Error) as e:
        xlayout.relayout(data, *TRANSPOSE, out=out)
    want = f"its bytes 0..{NBYTES - 64} are the source's bytes 64..{NBYTES} "
    assert want in str(e.value)


def test_buffers_side_by_side_in_one_object_are_not_refused():
    # Touching is not sharing: the two halves of one buffer (one numpy base), and two
    # memoryviews of one bytearray.
    want = _values().reshape(N, N).T.copy().view(np.uint8).reshape(-1)
    big = np.zeros(2 * NBYTES, np.uint8)
    big[:NBYTES] = _values().view(np.uint8)
    got = xlayout.relayout(big[:NBYTES], *TRANSPOSE, out=big[NBYTES:])
    assert got.tobytes() == want.tobytes()
    ba = bytearray(2 * NBYTES)
    ba[NBYTES:] = _values().tobytes()
    mv = memoryview(ba)
    xlayout.relayout(mv[NBYTES:], *TRANSPOSE, out=np.frombuffer(mv[:NBYTES], np.uint8))
    assert bytes(ba[:NBYTES]) == want.tobytes()
    # Empty buffers share nothing, wherever numpy points them.
    e = np.zeros(0, np.uint8)
    assert xlayout.relayout(e, "f32[0,3]", "f32[0,3]{0,1}", out=e).nbytes == 0


def test_buffers_are_checked_before_they_are_borrowed():
    x = _values()
    src, dst = (xlayout.Shape(t) for t in TRANSPOSE)
    # One run of bytes each: a strided byte view is refused by the extension itself.
    strided = np.zeros(2 * NBYTES, np.uint8)[::2]
    for data, out in [(strided, np.zeros(NBYTES, np.uint8)), (x.view(np.uint8), strided)]:
        with pytest.raises(ValueError, match="is not one contiguous run of bytes$"):
            xlayout._xlayout.relayout(data, src, dst, out)
    # Bytes only: a typed `out` is refused by its type.
    with pytest.raises(TypeError):
        xlayout._xlayout.relayout(x.view(np.uint8), src, dst, np.zeros(N * N, np.float32))
    # The lengths, the source's before a destination is allocated.
    with pytest.raises(xlayout.Error) as e:
        xlayout._xlayout.relayout(x.view(np.uint8)[1:], src, dst, None)
    assert e.value.kind == "BufferLength"



# Multi-byte dtypes in big-endian order: XLA's buffers are little-endian, so the values are
# converted, never their bytes reinterpreted (the issue's '>f4' came back as 4.6e-41).
BIG_ENDIAN = [">f4", ">i2", ">f8", ">c8", ">u4", np.dtype(ml_dtypes.bfloat16).newbyteorder(">")]


@pytest.mark.parametrize("dtype", BIG_ENDIAN, ids=[">f4", ">i2", ">f8", ">c8", ">u4", ">bf16"])
def test_big_endian_values_are_converted_not_reinterpreted(dtype):
    dtype = np.dtype(dtype)
    native = np.arange(12).astype(dtype.newbyteorder("<")).reshape(3, 4)
    big = native.astype(dtype)
    assert big.tobytes() != native.tobytes()  # the bytes differ, the values do not
    name = xlayout._xla_type(dtype)
    layout = "{1,0:T(2,2)}"
    tiled = xlayout.tile(big, layout)
    assert tiled.tobytes() == xlayout.tile(native, layout).tobytes()
    assert tiled.tobytes() == recipe(native, (2, 2)).tobytes()  # little-endian bytes
    back = xlayout.untile(tiled, f"{name}[3,4]{layout}")
    assert back.dtype == dtype.newbyteorder("<") and (back == native).all()
    # Transposed views of big-endian memory too.
    assert xlayout.tile(big.T, layout).tobytes() == xlayout.tile(native.T, layout).tobytes()
    # A buffer of big-endian values, as an array or a memoryview of one: its values.
    full = f"{name}[3,4]"
    # (numpy gives no memoryview of ml_dtypes' types.)
    views = [big] if name == "bf16" else [big, memoryview(big)]
    for buffer in views:
        got = xlayout.relayout(buffer, full, f"{full}{{0,1}}")
        assert got.tobytes() == native.T.copy().tobytes()
        assert (xlayout.untile(buffer, full) == native).all()


def test_the_issues_big_endian_round_trip():
    x = np.arange(4, dtype=">f4")
    assert xlayout.untile(xlayout.tile(x, "{0:T(4)}"), "f32[4]{0:T(4)}").tolist() == [0, 1, 2, 3]


def test_buffers_typed_by_their_format():
    import ctypes

    # ctypes' big-endian integers and structures: numpy reads their format, so their values
    # are converted like a big-endian array's.
    words = (ctypes.c_uint16.__ctype_be__ * 4)(1, 2, 3, 4)
    got = xlayout.relayout(words, "u16[4]", "u16[4]")
    assert got.view("<u2").tolist() == [1, 2, 3, 4]

    class Pair(ctypes.BigEndianStructure):
        _fields_ = [("a", ctypes.c_uint16), ("b", ctypes.c_uint16)]

    pairs = (Pair * 2)((1, 2), (3, 4))
    assert xlayout.relayout(pairs, "u16[4]", "u16[4]").view("<u2").tolist() == [1, 2, 3, 4]
    # Pointers: a format numpy does not read, so no byte order is known: refused.
    pointers = (ctypes.POINTER(ctypes.c_int) * 2)()
    with pytest.raises(TypeError, match="format '&<i' is not one numpy reads"):
        xlayout.relayout(pointers, "u64[2]", "u64[2]")


def test_a_destination_too_large_to_allocate_is_a_memory_error():
    # 931 GiB of destination for one byte of source: numpy's MemoryError, not a panic.
    with pytest.raises(MemoryError):
        xlayout.relayout(b"x", "u8[1,1]", "u8[1,1]{1,0:T(1000000,1000000)}")
