"""The notebook views in a real notebook, under Jupyter's own stylesheet: a notebook of the
package's rich outputs (a shape's map, an HLO report, ``xlayout.jax.memory``, an
out-of-memory report, a dump directory's modules) run by ``jupyter nbconvert --execute``
(its JupyterLab page, with JupyterLab's CSS) and loaded by headless Chromium. A script in
the page measures what the browser drew, and the test reads it back:

- in every report, text cells are aligned left and numbers right (JupyterLab's CSS
  right-aligns every cell of rendered HTML);
- no table is wider than its report, and nothing is wider than the window (a `source` path
  wraps rather than run off the page);
- the notebook's own tables keep Jupyter's style (the reports' style is scoped to them);
- every sortable table was made sortable once, its script run inside the notebook.

It takes the README's screenshots of the notebook (docs/python-notebook.png, the shape and
the report; docs/python-notebook-dump.png, a dump directory and an out-of-memory report)
into target/, or into docs/ with ``XLAYOUT_SCREENSHOTS=docs``: that is how they are retaken."""

import base64
import json
import os
import re
import subprocess
import sys

import pytest

from conftest import REPO, missing_tool

# What the notebook runs (its data by the paths a notebook in the repository's root uses).
CELLS = [
    "import xlayout, xlayout.jax, jax.numpy as jnp",
    'xlayout.Shape("f32[3,5]{1,0:T(2,2)}")',
    'xlayout.hlo("tests/data/hlo/tpu_train_step.txt")',
    "xlayout.jax.memory(lambda x: jnp.sin(x) * 2, jnp.ones((256, 128)))",
    'xlayout.oom("tests/data/oom/vmem_untiled.txt")',
    'xlayout.hlo("dump")',  # XLA_FLAGS=--xla_dump_to=dump: JAX's dump directory
    # A table the notebook styles itself (pandas'), whose look the reports must not change.
    'xlayout.hlo("tests/data/hlo/tpu_train_step.txt").to_pandas()[["instruction", "array_bytes"]].head(3)',
]

# The browser window: a laptop's screen (as tests/browser.rs).
WINDOW = (1366, 900)

MEASURE = """<script>(function () {
  function aligned(cell) {
    var align = getComputedStyle(cell).textAlign;
    return align === 'start' ? 'left' : align;
  }
  var reports = [];
  Array.prototype.forEach.call(document.querySelectorAll('.xlayout-report'), function (root) {
    var box = root.getBoundingClientRect(), wrong = [], wide = [];
    Array.prototype.forEach.call(root.querySelectorAll('td, th'), function (cell) {
      if (!cell.getClientRects().length) { return; }  // inside a folded module
      var want = cell.classList.contains('num') ? 'right' : 'left';
      if (aligned(cell) !== want) { wrong.push(cell.textContent.slice(0, 30) + ': ' + aligned(cell)); }
    });
    Array.prototype.forEach.call(root.querySelectorAll('table'), function (table) {
      var r = table.getBoundingClientRect();
      if (r.width > 0 && r.right > box.right + 0.5) { wide.push(table.id + ' ' + (r.right - box.right)); }
    });
    reports.push({cells: root.querySelectorAll('td').length, wrong: wrong, wide: wide});
  });
  var own = document.querySelector('table.dataframe td');
  document.body.setAttribute('data-measured', JSON.stringify({
    reports: reports,
    page: document.documentElement.scrollWidth,
    window: window.innerWidth,
    own: {align: aligned(own), border: getComputedStyle(own).borderTopStyle},
    maps: Array.prototype.map.call(document.querySelectorAll('img[src^="data:image/svg+xml"]'),
      function (img) { return img.naturalWidth; }),
    sortable: document.querySelectorAll('table.sortable').length,
    ready: document.querySelectorAll('table.sortable[data-sortable=ready]').length
  }));
})();</script>"""


def browse(chromium, page, *args, timeout=120):
    profile = page.parent / f"profile-{page.stem}"
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", f"--user-data-dir={profile}",
         "--virtual-time-budget=5000", f"--window-size={WINDOW[0]},{WINDOW[1]}", *args,
         page.as_uri()],
        capture_output=True, timeout=timeout,
    )


@pytest.fixture(scope="module")
def notebook(tmp_path_factory, dump):
    """The notebook of CELLS, run by `jupyter nbconvert --execute` with this interpreter as
    its kernel: its JupyterLab page (the lab template: JupyterLab's CSS inline)."""
    try:
        import nbformat
        import nbconvert  # noqa: F401
        import ipykernel  # noqa: F401
    except ImportError:
        missing_tool("jupyter's nbconvert and ipykernel are not installed (pip install nbconvert ipykernel)")
    tmp = tmp_path_factory.mktemp("notebook")
    # A kernel of this interpreter, whatever kernels the machine has.
    kernels = tmp / "jupyter" / "kernels" / "xlayout-tests"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "xlayout tests", "language": "python",
    }))
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "xlayout-tests", "display_name": "xlayout tests",
                                 "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in CELLS]
    source = tmp / "views.ipynb"
    nbformat.write(nb, source)
    # The kernel runs beside the notebook: the repository's test data there, by the names
    # a notebook in the repository would use.
    (tmp / "tests").symlink_to(REPO / "tests", target_is_directory=True)
    (tmp / "dump").symlink_to(dump, target_is_directory=True)
    env = dict(os.environ, JUPYTER_PATH=str(tmp / "jupyter"), PYDEVD_DISABLE_FILE_VALIDATION="1")
    done = subprocess.run(
        [sys.executable, "-m", "nbconvert", "--execute", "--to", "html", "--output-dir",
         str(tmp), str(source)],
        cwd=REPO, env=env, capture_output=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    html = (tmp / "views.html").read_text(encoding="utf-8")
    # The page loads require.js and MathJax from a CDN; no output here needs them, and the
    # test runs offline.
    html = re.sub(r'<script src="https://[^"]*"></script>', "", html)
    return tmp, html


def test_views_under_jupyters_stylesheet(chromium, notebook):
    tmp, html = notebook
    page = tmp / "measured.html"
    at = html.rindex("</body>")
    page.write_text(html[:at] + MEASURE + html[at:], encoding="utf-8")
    dom = browse(chromium, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    text = dom.stdout.decode()
    found = re.search(r'data-measured="([^"]*)"', text)
    assert found, "the measuring script did not run"
    m = json.loads(found[1].replace("&quot;", '"'))
    # The HLO report, the memory of the JAX function, the OOM report, the dump directory.
    assert len(m["reports"]) == 4 and all(r["cells"] > 20 for r in m["reports"])
    for r in m["reports"]:
        assert r["wrong"] == [], r["wrong"][:5]
        assert r["wide"] == [], r["wide"]
    assert m["page"] <= m["window"], f"the page is {m['page']} wide in a window of {m['window']}"
    # JupyterLab right-aligns the cells of a table of its own (pandas') and draws no
    # borders: still so, under the reports.
    assert m["own"] == {"align": "right", "border": "none"}
    # Each sortable table made sortable once, by the first report's script.
    assert m["sortable"] > 10 and m["ready"] == m["sortable"]
    # The shape's map (JupyterLab's page embeds an SVG output as an image), drawn at its
    # natural width, and the report's contents.
    maps = re.findall(r'src="data:image/svg\+xml;base64,([^"]*)"', html)
    assert len(maps) == 1 and 'data-index="2,3" data-offset="17"' in base64.b64decode(maps[0]).decode()
    assert m["maps"] == [813]
    assert "Arg_0.1" in text and "{1,2,0:T(8,128)(2,1)}" in text
    assert "128.0KiB arguments + 128.0KiB outputs" in text  # xlayout.jax.memory's units
    assert "3.49M of padding" in text  # the OOM report's view


def screenshot(chromium, tmp, html, name, hidden, height):
    """A screenshot of the page with the cells `hidden` (CSS selectors) not shown, into
    target/ or, with XLAYOUT_SCREENSHOTS=docs, into docs/ (the README's)."""
    page = tmp / f"{name}.html"
    style = "".join(f"{s}{{display:none}}" for s in hidden)
    page.write_text(html.replace("</head>", f"<style>{style}</style></head>", 1), encoding="utf-8")
    into = REPO / ("docs" if os.environ.get("XLAYOUT_SCREENSHOTS") == "docs" else "target")
    into.mkdir(exist_ok=True)
    shot = into / f"{name}.png"
    done = browse(chromium, page, f"--screenshot={shot}", f"--window-size={WINDOW[0]},{height}",
                  "--hide-scrollbars")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000


def test_the_readme_screenshots(chromium, notebook):
    tmp, html = notebook
    cells = "main > .jp-Cell"
    # The shape's map and the HLO report.
    screenshot(chromium, tmp, html, "python-notebook", [f"{cells}:nth-child(n+4)"], 1400)
    # The out-of-memory report, then the dump directory's modules, largest first.
    screenshot(chromium, tmp, html, "python-notebook-dump",
               [f"{cells}:nth-child(-n+4)", f"{cells}:nth-child(n+7)"], 1400)
