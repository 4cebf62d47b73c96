"""The READMEs' Python examples, run as they are written (as the Rust ones are compiled and
run by rustdoc): every ```pycon block of README.md and python/README.md is a doctest, run
with its own fresh names in a folder that holds what the examples name by relative paths
(`tests/`, a JAX dump directory `dump/`, `target/release/libffi_kernels.so`), and every
`python -c "..."  # OUTPUT` line of a ```sh block is run and its output compared."""

import doctest
import re
import subprocess
import sys

import pytest

from conftest import REPO

READMES = [REPO / "README.md", REPO / "python" / "README.md"]


def blocks(kind):
    """(README, line, text) of every ```KIND block."""
    found = []
    for readme in READMES:
        text = readme.read_text(encoding="utf-8")
        for m in re.finditer(rf"^```{kind}\n(.*?)^```$", text, re.S | re.M):
            found.append((readme.relative_to(REPO), text[: m.start()].count("\n") + 1, m[1]))
    return found


SESSIONS = blocks("pycon")


def test_every_python_example_is_a_session_that_is_checked():
    # A ```python block would be shown and never run: the examples are sessions, with their
    # output, which the test below checks.
    assert blocks("python") == []
    # The FFI section's, the Python section's, the package's own.
    assert len(SESSIONS) >= 3


@pytest.fixture(scope="module")
def folder(tmp_path_factory, dump, library):
    path = tmp_path_factory.mktemp("readme")
    (path / "tests").symlink_to(REPO / "tests", target_is_directory=True)
    (path / "dump").symlink_to(dump, target_is_directory=True)
    (path / "target" / "release").mkdir(parents=True)
    (path / "target" / "release" / "libffi_kernels.so").symlink_to(library)
    return path


@pytest.mark.parametrize("readme, line, text", SESSIONS, ids=[f"{r}:{n}" for r, n, _ in SESSIONS])
def test_session(folder, monkeypatch, readme, line, text):
    import jax

    jax.config.update("jax_platforms", "cpu")
    monkeypatch.chdir(folder)
    test = doctest.DocTestParser().get_doctest(text, {}, f"{readme}:{line}", str(readme), line)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failures = []
    runner.run(test, out=failures.append)
    assert runner.failures == 0, "".join(failures)
    assert runner.tries > 0


ONE_LINERS = [
    (readme, line, m[1], m[2])
    for readme, line, text in blocks("sh")
    for m in re.finditer(r"""^python3? -c "([^"]*)"\s+#\s*(\S+)$""", text, re.M)
]


@pytest.mark.parametrize("readme, line, code, want", ONE_LINERS, ids=[f"{r}:{n}" for r, n, _, _ in ONE_LINERS])
def test_one_liner(readme, line, code, want):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    assert (done.returncode, done.stdout.decode().strip()) == (0, want), done.stderr.decode()


def test_the_one_liners_are_found():
    assert len(ONE_LINERS) >= 1
