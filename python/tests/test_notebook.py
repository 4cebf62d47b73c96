"""A notebook's view, in a real browser: the cells' rich outputs (`_repr_html_` of a
report, `_repr_svg_` of a shape) embedded in one page as a notebook export embeds them,
loaded by headless Chromium, its DOM read back after the scripts ran, and a screenshot
taken (the README's picture: target/python-notebook.png)."""

import html
import subprocess

import xlayout
from conftest import REPO

CELLS = [
    ('xlayout.Shape("f32[3,5]{1,0:T(2,2)}")', "shape"),
    ('xlayout.hlo("tests/data/hlo/tpu_train_step.txt")', "report"),
]


def notebook_page() -> str:
    shape = xlayout.Shape("f32[3,5]{1,0:T(2,2)}")
    # Relative, as a notebook beside the data would name it (the page shows the name).
    report = xlayout.hlo("tests/data/hlo/tpu_train_step.txt")
    outputs = {"shape": shape._repr_svg_(), "report": report._repr_html_()}
    cells = []
    for n, (code, key) in enumerate(CELLS, start=1):
        cells.append(
            f'<div class="cell"><pre class="input">In [{n}]: import xlayout; '
            f'{html.escape(code)}</pre><div class="output" id="out-{key}">'
            f"{outputs[key]}</div></div>"
        )
    style = ("body{font-family:sans-serif;margin:16px;max-width:1200px}"
             ".input{background:#f5f5f5;padding:8px;border-left:3px solid #42a5f5}"
             ".output{margin:8px 0 24px 0}.output svg{max-width:100%;height:auto}")
    return f"<!DOCTYPE html><html><head><meta charset='utf-8'><style>{style}</style></head>" \
           f"<body>{''.join(cells)}</body></html>"


def browse(chromium, page, *args, timeout=120):
    return subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--disable-quic", f"--user-data-dir={page.parent / 'profile'}",
         "--virtual-time-budget=5000", *args, page.as_uri()],
        capture_output=True, timeout=timeout,
    )


def test_rich_outputs_render_in_chromium(chromium, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO)
    page = tmp_path / "notebook.html"
    page.write_text(notebook_page(), encoding="utf-8")
    dom = browse(chromium, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr.decode(errors="replace")[-2000:]
    text = dom.stdout.decode()
    # The shape's map: every element cell, Figure-1 style, with its offset.
    assert text.count('<g class="cell"') >= 15
    assert 'data-index="2,3" data-offset="17"' in text  # Figure 1 of XLA's document
    # The report's tables were made sortable by its script: it ran inside the page.
    assert text.count('data-sortable="ready"') == 6
    assert "Arg_0.1" in text and "{1,2,0:T(8,128)(2,1)}" in text

    shot = REPO / "target" / "python-notebook.png"
    shot.parent.mkdir(exist_ok=True)
    done = browse(chromium, page, f"--screenshot={shot}", "--window-size=1200,1400",
                  "--hide-scrollbars")
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
