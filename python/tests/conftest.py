"""Shared by the package's tests: the repository's test data, the Rust command to compare
with, Chromium, and what a missing tool means (a failure under CI, a skip elsewhere)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"


def missing_tool(why: str) -> None:
    """As the tests' support crate (tests/support/) says: under CI a check must not pass by not running."""
    if os.environ.get("CI"):
        pytest.fail(f"{why} (CI is set: a missing tool fails the run)")
    pytest.skip(why)


@pytest.fixture(scope="session")
def command() -> Path:
    """The Rust binary `xlayout` that cargo built (XLAYOUT_BIN, or target/*/xlayout)."""
    if os.environ.get("XLAYOUT_BIN"):
        return Path(os.environ["XLAYOUT_BIN"])
    for profile in ("debug", "release"):
        path = REPO / "target" / profile / "xlayout"
        if path.is_file():
            return path
    missing_tool("no Rust xlayout binary (cargo build -p xlayout-cli, or set XLAYOUT_BIN)")


def run(args, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(a) for a in args], input=stdin, capture_output=True, cwd=REPO, timeout=300
    )


@pytest.fixture(scope="session")
def chromium() -> str:
    path = os.environ.get("XLAYOUT_CHROMIUM") or next(
        (p for n in ("chromium", "chromium-browser", "google-chrome") if (p := shutil.which(n))),
        None,
    )
    if path is None:
        missing_tool("no Chromium found (apt-get install chromium, or set XLAYOUT_CHROMIUM)")
    return path
