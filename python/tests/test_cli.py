"""The `xlayout` console script behaves as the Rust binary: output, exit status, standard
input, a closed pipe, Ctrl-C."""

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA, run


@pytest.fixture(scope="module")
def script() -> Path:
    beside = Path(sys.executable).parent / "xlayout"
    found = beside if beside.is_file() else shutil.which("xlayout")
    assert found, "the package installs the xlayout command beside its interpreter"
    return Path(found)


CASES = [
    (["--version"], b""),
    (["help"], b""),
    (["canon", "f32[3,5]{1,0:L(1)E(0)}", "f32[3,5]{1,1}"], b""),
    (["canon"], b"f32[3,5]\n\nbf16[8,300]{1,0:T(8,128)(2,1)}\r\nf31[2]\n"),
    (["offset", "-"], b"f32[3,5]{1,0:T(2,2)}\n2,3\n0,4\n"),
    (["explain", "f32[3,5]{1,0:T(0,2)}"], b""),
    (["explain", "-"], b"bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}\n"),
    (["map", "f32[3,5]{1,0:T(2,2)}", "--svg", "-"], b""),
    (["bytes"], b"\xff\xfe\n"),
    (["no-such-command"], b""),
    (["hlo", "--format", "tsv", str(DATA / "hlo" / "tpu_train_step.txt")], b""),
    (["hlo", "--peak", "--format", "json", "-"], (DATA / "hlo" / "tpu_train_step.txt").read_bytes()),
    (["oom", "--format", "table", str(DATA / "oom" / "vmem_untiled.txt")], b""),
    (["hlo", "no/such/file"], b""),
    ([], b""),
]


@pytest.mark.parametrize("args, stdin", CASES, ids=[" ".join(c[0])[:40] or "demo" for c in CASES])
def test_same_output_and_status_as_the_binary(command, script, args, stdin):
    want = run([command, *args], stdin)
    got = run([script, *args], stdin)
    assert (got.returncode, got.stdout, got.stderr) == (want.returncode, want.stdout, want.stderr)


def test_statuses(script):
    assert run([script, "canon", "f32[3]"]).returncode == 0
    assert run([script, "canon", "f32[3]{1}"]).returncode == 1
    assert run([script, "--no-such-flag"]).returncode == 2
    assert run([sys.executable, "-m", "xlayout", "bytes", "f32[3]"]).stdout == b"ok 12\n"


def test_a_reader_that_closes_the_pipe_ends_it_quietly(script):
    lines = b"f32[3,5]\n" * 200_000
    p = subprocess.Popen([script, "canon"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.stdin.write(lines[:90])
    p.stdin.flush()
    assert p.stdout.readline() == b"ok f32[3,5]{1,0}\n"  # answered as the line arrives
    p.stdout.close()
    try:
        p.stdin.write(lines)
        p.stdin.close()
    except BrokenPipeError:
        pass
    assert p.wait(timeout=60) == 0
    assert p.stderr.read() == b""


def test_ctrl_c_ends_it_as_it_ends_the_binary(command, script):
    statuses = []
    for program in (command, script):
        p = subprocess.Popen([program, "canon"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        p.stdin.write(b"f32[2]\n")
        p.stdin.flush()
        assert p.stdout.readline() == b"ok f32[2]{0}\n"  # waiting for the next line now
        time.sleep(0.2)
        p.send_signal(signal.SIGINT)
        statuses.append(p.wait(timeout=30))
    assert statuses == [-signal.SIGINT, -signal.SIGINT]
