"""A real JAX dump directory (``XLA_FLAGS=--xla_dump_to=DIR --xla_dump_hlo_as_text``), made
by JAX for the tests (conftest.py, ``dump``): a training step and the helpers JAX compiles beside it (``jit__threefry_seed``,
``jit__normal``, two modules named ``jit_broadcast_in_dim``...). ``xlayout.hlo``
reports each module as ``xlayout hlo DIR`` does, largest first, and the notebook view shows
the largest open and the others folded."""

import json
import os
import re

import pytest

import xlayout
from conftest import DATA, run

def test_every_module_is_reported_as_the_command_reports_it(command, dump):
    modules = xlayout.hlo(dump)
    assert isinstance(modules, xlayout.HloModules)
    files = json.loads(run([command, "hlo", "--format", "json", dump]).stdout)["files"]
    # A JAX program's dump holds several modules (the had 6 to 16).
    assert len(modules) == len(files) >= 6
    names = {f["module"] for f in files}
    assert {"jit_train_step", "jit__threefry_seed", "jit__normal", "jit_broadcast_in_dim"} <= names
    by_file = {f["file"]: f for f in files}
    for key, report in modules.items():
        want = dict(by_file.pop(report.source))
        del want["file"], want["xla_buffer_assignment"]
        assert report._report == want, key
        assert report.allocated_bytes == want["allocated_bytes"]
    assert by_file == {}
    # Largest first, by what XLA:CPU allocates for each (every module is scheduled).
    sizes = [r.allocated_bytes for r in modules.values()]
    assert sizes == sorted(sizes, reverse=True) and sizes == [r.size_bytes for r in modules.values()]
    assert next(iter(modules)) == "jit_train_step" and modules.largest.module == "jit_train_step"


def test_keys_are_module_names_and_shared_names_keep_their_number(dump):
    modules = xlayout.hlo(dump)
    numbered = [k for k in modules if k.startswith("module_")]
    assert [k.split(".", 1)[1] for k in numbered] == ["jit_broadcast_in_dim"] * 2
    for key, r in modules.items():
        if key.startswith("module_"):
            # Two modules of one name (`jit_broadcast_in_dim` for two shapes): XLA's number.
            assert re.fullmatch(r"module_\d{4}\." + re.escape(r.module), key)
            assert sum(other.module == r.module for other in modules.values()) > 1
            assert os.path.basename(r.source).startswith(key + ".")
        else:
            assert key == r.module


def test_a_filter_names_one_module(dump):
    r = xlayout.hlo(dump, module="jit__threefry_seed")
    assert isinstance(r, xlayout.HloReport) and r.module == "jit__threefry_seed"
    assert r.rows == xlayout.hlo(dump)["jit__threefry_seed"].rows
    with pytest.raises(KeyError, match="no module named 'jit_nothing'; its modules: jit__normal"):
        xlayout.hlo(dump, module="jit_nothing")
    with pytest.raises(ValueError, match="has 2 modules named 'jit_broadcast_in_dim'"):
        xlayout.hlo(dump, module="jit_broadcast_in_dim")


def test_a_report_asked_of_the_directory_says_how_to_pick_one(dump):
    modules = xlayout.hlo(dump)
    with pytest.raises(AttributeError, match=r"pick one, reports\['jit_train_step'\] \(the largest\)"):
        modules.allocated_bytes
    assert "the largest jit_train_step" in repr(modules)


def test_the_notebook_view_shows_the_largest_open_and_folds_the_rest(dump):
    modules = xlayout.hlo(dump)
    html = modules._repr_html_()
    assert html.startswith('<div class="xlayout-report">')
    folds = re.findall(r'<details class="module" id="[^"]*"( open="open")?><summary><b>([^<]*)</b>', html)
    assert [name for _, name in folds] == [r.module for r in modules.values()]
    assert [bool(o) for o, _ in folds] == [True] + [False] * (len(modules) - 1)
    # The list at the top: each module with what it allocates, largest first.
    nav = html[html.index("<nav>"):html.index("</nav>")]
    assert f"{len(modules)} modules, largest first" in nav
    assert nav.count("<li>") == len(modules)


def test_a_directory_without_module_text_is_said_to_be_so(command, tmp_path):
    (tmp_path / "notes.txt").write_text("no module here\n")
    done = run([command, "hlo", tmp_path])
    assert done.returncode == 1 and b"no module text" in done.stderr
    with pytest.raises(FileNotFoundError, match="no module text after optimizations"):
        xlayout.hlo(tmp_path)


def test_pages_are_made_when_shown_not_with_the_reports(dump, monkeypatch):
    # A page is several times the size of what it shows: `xlayout.hlo` makes none, each
    # `_repr_html_` makes its own (the folder's from the directory, a module's from its file).
    made = []

    def counted(binding):
        made_by = getattr(xlayout._xlayout, binding)

        def call(*args):
            made.append(binding)
            return made_by(*args)

        return call

    for binding in ["hlo_html", "hlo_dump_html"]:
        monkeypatch.setattr(xlayout._xlayout, binding, counted(binding))
    modules = xlayout.hlo(dump)
    one = xlayout.hlo(dump, module="jit__threefry_seed")
    text = xlayout.hlo(DATA / "hlo" / "tpu_train_step.txt")
    assert made == []
    assert f"{len(modules)} modules, largest first" in modules._repr_html_()
    assert made == ["hlo_dump_html"]
    assert "jit__threefry_seed" in one._repr_html_() and made[-1] == "hlo_html"
    assert "Arg_0.1" in text._repr_html_() and made == ["hlo_dump_html", "hlo_html", "hlo_html"]
