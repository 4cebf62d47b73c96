"""A failed allocation is Python's MemoryError, never PyO3's PanicException ("Python API
call failed"): CPython's own test hook makes each allocation of a call fail in turn."""

import subprocess
import sys
import textwrap

from conftest import missing_tool

# Run in a child: a failure that ended the interpreter would otherwise end pytest.
CHILD = textwrap.dedent(
    """
    import _testcapi, numpy as np, shutil, tempfile, xlayout
    s = xlayout.Shape("f32[3,5]{1,0:T(2,2)}")
    src = xlayout.Shape("f32[3,5]")
    big = xlayout.Shape("f32[100000,300000]{1,0:T(1024,1024)}")
    data = np.arange(15, dtype=np.float32).view(np.uint8)
    module = b"HloModule m\\n%a = f32[2]{0} parameter(0)\\n"
    # A dump directory of two modules, as XLA names their files.
    dump = tempfile.mkdtemp()
    for i, name in enumerate(["m", "n"]):
        with open(f"{dump}/module_000{i}.{name}.cpu_after_optimizations.txt", "wb") as f:
            f.write(b"HloModule " + name.encode() + b"\\n%a = f32[2]{0} parameter(0)\\n")
    report = b"Ran out of memory in memory space hbm. Used 1.00G of 512.00M hbm.\\n  1. Size: 512B\\n     Shape: f32[]\\n"
    calls = {
        "explain": lambda: s.explain(),
        "str": lambda: str(s),
        "repr": lambda: repr(s),
        "svg": lambda: s._repr_svg_(),
        "oom": lambda: xlayout._xlayout.oom_report(report, "text"),
        "hlo": lambda: xlayout._xlayout.hlo_report(module, "m", 5, 0),
        "page": lambda: xlayout._xlayout.hlo_html(module, "m", 5, 0),
        "dump": lambda: xlayout._xlayout.hlo_dump(dump, 5, 0),
        "dump_page": lambda: xlayout._xlayout.hlo_dump_html(dump, 5, 0),
        "module_files": lambda: xlayout._xlayout.module_files(dump),
        "offset": lambda: s.offset((-1, 0)),
        # Sizes past CPython's cached small ints, so that making each int allocates.
        "dims": lambda: big.dims,
        "tiles": lambda: big.tiles,
        "index_of": lambda: big.index_of(1 << 30),
        "byte_size": lambda: (big.byte_size, big.logical_bytes),
        "offset_ok": lambda: big.offset((99999, 299999)),
        "element_type": lambda: s.element_type,
        "relayouts": lambda: xlayout._xlayout.relayouts_report(module, "m"),
        "iec_bytes": lambda: xlayout._xlayout.iec_bytes(1 << 40),
        "error": lambda: xlayout.Shape("f32[3,5]{1,0:T(0,2)}"),
        "relayout": lambda: xlayout._xlayout.relayout(data, src, s, None),
        "overlap": lambda: xlayout._xlayout.relayout(data, src, src, data),
    }
    # Each path once first: numpy's C API and the names PyO3 interns are made on first use,
    # once per process.
    for call in calls.values():
        try:
            call()
        except xlayout.Error:
            pass
    for name, call in calls.items():
        outcomes = set()
        for k in range(60):
            _testcapi.set_nomemory(k, k + 1)  # the k-th allocation from here fails
            try:
                call()
                outcome = "ok"
            except MemoryError:
                outcome = "MemoryError"
            except xlayout.Error:
                outcome = "Error"
            except BaseException as e:
                outcome = type(e).__name__
            finally:
                _testcapi.remove_mem_hooks()
            outcomes.add(outcome)
        print(name, " ".join(sorted(outcomes)), flush=True)
    shutil.rmtree(dump)
    """
)


def test_each_failed_allocation_is_a_memory_error():
    try:
        import _testcapi  # noqa: F401
    except ImportError:
        missing_tool("CPython's _testcapi is not installed (a Python built without its tests)")
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    got = dict(line.split(" ", 1) for line in done.stdout.decode().splitlines())
    # The error paths raise xlayout.Error once their allocations succeed; every path meets
    # a failed allocation of its own among the first 60.
    want = {
        name: "MemoryError ok"
        for name in [
            "explain", "str", "repr", "svg", "oom", "hlo", "page", "dump", "dump_page", "module_files",
            "relayout", "dims", "tiles", "index_of", "byte_size", "offset_ok", "element_type",
            "relayouts", "iec_bytes",
        ]
    }
    want |= {"error": "Error MemoryError", "overlap": "Error MemoryError", "offset": "Error MemoryError"}
    assert got == want, done.stderr.decode()[-3000:]
