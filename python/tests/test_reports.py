"""xlayout.hlo and xlayout.oom against the command's JSON on the committed dumps."""

import json

import pytest

import xlayout
from conftest import DATA, run

DUMPS = sorted(
    p for p in (DATA / "hlo").rglob("*.txt")
    if "buffer" not in p.name and "live_range" not in p.name
)
REPORTS = sorted((DATA / "oom").glob("*.txt"))


def command_json(command, *args):
    done = run([command, *args, "--format", "json"])
    return json.loads(done.stdout)


@pytest.mark.parametrize("dump", DUMPS, ids=lambda p: str(p.relative_to(DATA)))
def test_hlo_is_the_command_report(command, dump):
    r = xlayout.hlo(dump)
    want = command_json(command, "hlo", dump)["files"][0]
    del want["file"]
    # XLA's buffer assignment, which the command reads from the file beside a dump, is the
    # command's: xlayout.hlo reads the module text it is given.
    del want["xla_buffer_assignment"]
    assert r._report == want
    assert r.rows == want["instructions"]
    assert (r.module, r.is_scheduled, r.totals) == (
        want["module"], want["is_scheduled"], want["totals"]
    )
    peak = command_json(command, "peak", dump)["files"][0]
    assert r.peak == {k: v for k, v in peak.items() if k in r.peak}
    assert set(peak) - set(r.peak) == {
        "file", "module", "scheduled", "xla_live_range", "xla_buffer_assignment"
    }
    if want["is_scheduled"]:
        assert (r.live_range_peak_step, r.live_range_peak_bytes) == (
            peak["live_range_peak_step"], peak["live_range_peak_bytes"]
        )
        for key in ["allocated_bytes", "argument_bytes", "output_bytes", "alias_bytes",
                    "temp_bytes", "allocation_exact"]:
            assert getattr(r, key) == peak[key] == want[key], key
    else:
        assert (r.live_range_peak_step, r.live_range_peak_bytes, r.allocated_bytes) == (
            None, None, None
        )


def test_sources():
    dump = DATA / "hlo" / "tpu_train_step.txt"
    by_path = xlayout.hlo(dump)
    assert xlayout.hlo(str(dump)).rows == by_path.rows
    assert xlayout.hlo(dump.read_bytes()).rows == by_path.rows
    assert xlayout.hlo(dump.read_text()).rows == by_path.rows
    # A dump directory stands for its module text after optimizations.
    directory = DATA / "hlo" / "jax_cpu" / "scan_cumsum"
    assert xlayout.hlo(directory).rows == xlayout.hlo(directory / "after_optimizations.txt").rows
    with pytest.raises(FileNotFoundError):
        xlayout.hlo("no/such/file.txt")
    with pytest.raises(TypeError):
        xlayout.hlo(42)


def test_hlo_figures():
    r = xlayout.hlo(DATA / "hlo" / "tpu_train_step.txt")
    arg = next(row for row in r.rows if row["instruction"] == "Arg_0.1")
    assert (arg["array_bytes"], arg["logical_bytes"]) == (5242880, 1638400)
    assert arg["best_layout"] == "{1,2,0:T(8,128)(2,1)}"
    # Names many rows share are numbers in the rows, each name once in a table.
    assert r.computations[arg["computation"]] == "main.20"
    convert = next(row for row in r.rows if row["instruction"] == "convert.3")
    assert r.source_files[convert["source_file"]] == "/home/user/model.py"
    assert (convert["source_line"], r.source_files) == (18, ["/home/user/model.py"])
    assert r.totals["owned"]["instructions"] == 8
    assert [row["instruction"] for row in r.top["padding"]] == ["Arg_0.1", "fusion.2", "Arg_2.3"]
    html = r._repr_html_()
    assert html.startswith("<!DOCTYPE html>") and "Arg_0.1" in html
    assert "allocated" in repr(r)


@pytest.mark.parametrize("dump", DUMPS, ids=lambda p: p.name)
def test_the_notebook_page_carries_the_peak(dump):
    # The page of `xlayout hlo --html`: a scheduled module's peak on its element, and the
    # timeline drawn; an unscheduled one has neither.
    r = xlayout.hlo(dump)
    html = r._repr_html_()
    if r.live_range_peak_bytes is None:
        assert "data-peak-bytes" not in html
    else:
        assert f'data-peak-bytes="{r.live_range_peak_bytes}"' in html
        assert 'id="timeline"' in html


def test_to_pandas():
    import pandas  # a test dependency (.ci/run installs it): to_pandas must be checked
    df = xlayout.hlo(DATA / "hlo" / "tpu_train_step.txt").to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == 30


@pytest.mark.parametrize("report", REPORTS, ids=lambda p: p.name)
def test_oom_is_the_command_report(command, report):
    r = xlayout.oom(report)
    want = command_json(command, "oom", report)["reports"][0]
    del want["file"]
    assert r.data == want
    assert r.entries == want["entries"]
    assert r.totals == want["totals"]
    assert xlayout.oom(report.read_text(errors="replace")).data == want or not report.read_bytes().isascii()


def test_oom_bytes_that_are_not_utf8_are_problems_with_their_line():
    r = xlayout.oom(b"1. Size: 4B\n   Shape: f32[]\nnote \xff\n")
    assert len(r.entries) == 1
    assert [(p["line"], p.get("entry")) for p in r.problems] == [(3, 1), (3, None)]
    assert "(0xff) is not UTF-8" in r.problems[1]["message"]


def test_oom_from_an_exception():
    text = (DATA / "oom" / "vmem_untiled.txt").read_text()
    r = xlayout.oom(RuntimeError(text))
    first = r.entries[0]
    assert first["recomputed_shape"] == "bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}"
    assert first["inferred_tiling"] == "(8,128)(2,1)"
    assert "vmem" in repr(r)


def test_hostile_modules_are_reports_not_crashes():
    for text in [b"\xff\xfe" * 1000 + b"\n", b"(" * 100_000 + b"\n", b"%a = f32[" + b"9" * 400 + b"] p()\n"]:
        r = xlayout.hlo(text)
        assert r.diagnostics


def test_top_and_min_bytes_list_what_the_command_lists(command):
    # One set of options for the command, the page and Python: the same values listed.
    dump = DATA / "hlo" / "jax_cpu" / "scan_cumsum" / "after_optimizations.txt"
    r = xlayout.hlo(dump, top=2, min_bytes=64)
    want = command_json(command, "peak", "--top", "2", "--min-bytes", "64", dump)
    assert r.peak["live"] == want["files"][0]["live"]
    assert [v["instruction"] for v in r.peak["live"]] == ["a_0_.1", "arg_tuple.3"]
    with pytest.raises(ValueError):
        xlayout.hlo(dump, min_bytes=-1)
