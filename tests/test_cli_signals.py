"""Ctrl-C and closed pipes, in real ``corpusdb`` processes (issue #22.15).

Ctrl-C while the modules load printed a KeyboardInterrupt traceback; Ctrl-C during ``release`` exited
130 without a word; ``corpusdb agree | head -1`` exited 1 ("internal error") with nothing said. Each
interrupt now prints one line saying what was kept (exit 130), and a closed pipe ends the process by
SIGPIPE, quietly, as it ends ``cat`` (the shell says 141). The signal is sent at a point the test
observes in the process itself, not after a sleep.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpusdb.api import Corpus

SCRIPT = Path(sys.executable).with_name("corpusdb")

pytestmark = [
    pytest.mark.skipif(not SCRIPT.exists(), reason=f"needs the installed console script {SCRIPT}"),
    pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="POSIX signals"),
]


def _read_until(fd: int, marker: bytes, proc: subprocess.Popen[bytes], timeout: float = 120) -> bytes:
    """What ``fd`` gives until ``marker`` shows (fails if the process ends first)."""
    seen = b""
    end = time.monotonic() + timeout
    while marker not in seen:
        if time.monotonic() > end:
            pytest.fail(f"{marker!r} never showed; the process said: {seen[-2000:]!r}")
        if select.select([fd], [], [], 0.05)[0]:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # a pty's end: the process is gone
                chunk = b""
            if not chunk:
                pytest.fail(f"{marker!r} never showed before the end; the process said: {seen[-2000:]!r}")
            seen += chunk
    return seen


def _drain(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return out
        if not chunk:
            return out
        out += chunk


def test_ctrl_c_while_the_modules_load_prints_one_line(tmp_path: Path) -> None:
    """``-X importtime`` makes the process say each module it has loaded, on a pipe kept small: once it
    has loaded typer (the first of its libraries) the rest of its imports wait on the pipe, and the
    signal lands while they are still loading."""
    r, w = os.pipe()
    fcntl.fcntl(r, 1031, 4096)  # F_SETPIPE_SZ: the smallest pipe, so the loading stalls on it
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", str(SCRIPT), "--db", str(tmp_path / "c.sqlite"), "status"],
        stdout=subprocess.DEVNULL, stderr=w, cwd=tmp_path,
    )  # fmt: skip
    os.close(w)
    seen = _read_until(r, b" typer\n", proc)  # (importtime indents a name by its depth)
    assert b"corpusdb.cli.main\n" not in seen  # still loading
    proc.send_signal(signal.SIGINT)
    err = (seen + _drain(r)).decode()
    os.close(r)
    assert proc.wait(timeout=60) == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    assert err.rstrip("\n").splitlines()[-1] == "corpusdb: interrupted while starting: nothing was done"
    assert not (tmp_path / "c.sqlite").exists()


@pytest.fixture
def gold_project(tmp_path: Path) -> Path:
    """A project whose release takes seconds: 400 documents of adjudicated gold."""
    folder = tmp_path / "gold"
    folder.mkdir()
    text = "Bacillus subtilis lives in soil and in the gut of animals. " * 8
    at = [k for k in range(len(text)) if text.startswith("Bacillus subtilis", k)]
    ann = "".join(f"T{i + 1}\tBacterium {k} {k + 17}\tBacillus subtilis\n" for i, k in enumerate(at))
    for i in range(400):
        (folder / f"d{i}.txt").write_text(text, encoding="utf-8")
        (folder / f"d{i}.a2").write_text(ann, encoding="utf-8")
    db = tmp_path / "c.sqlite"
    c = Corpus.create("bb", "bb-2011", url=f"sqlite:///{db}")
    c.import_brat(folder, kind="gold")
    return db


def test_ctrl_c_during_release_says_what_was_kept(gold_project: Path, tmp_path: Path) -> None:
    """The release runs with its progress bar on a terminal (a pty; stdout is not one, so the bar is
    asked for); once the bar shows, it is at work."""
    master, slave = pty.openpty()
    out = tmp_path / "rel" / "v1"
    proc = subprocess.Popen(
        [str(SCRIPT), "--db", str(gold_project), "release", "v1", "-o", str(out), "--allow-open"],
        stdout=subprocess.DEVNULL, stderr=slave, cwd=tmp_path, env={**os.environ, "TERM": "xterm", "COLUMNS": "100", "CORPUSDB_PROGRESS": "always"},
    )  # fmt: skip
    os.close(slave)
    seen = _read_until(master, b"releasing", proc)
    proc.send_signal(signal.SIGINT)
    err = (seen + _drain(master)).decode(errors="replace")
    os.close(master)
    assert proc.wait(timeout=120) == 130, err[-3000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err[-3000:]
    last = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", err).replace("\r", "\n").rstrip().splitlines()[-1]
    assert last == "corpusdb: interrupted: release v1 was not made: nothing of it was stored", err[-2000:]
    assert Corpus.open(url=f"sqlite:///{gold_project}").releases() == []
    assert not out.exists() and (
        not out.parent.exists() or list(out.parent.iterdir()) == []
    )  # nor a temporary one


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from corpusdb.demo import build_demo

    db = tmp_path_factory.mktemp("pipe") / "demo.sqlite"
    build_demo(f"sqlite:///{db}")
    return db


@pytest.mark.parametrize("args", [["agree"], ["status"], ["agree", "-f", "json"], ["sets"], ["--help"]])
def test_a_closed_pipe_ends_quietly_as_other_tools_do(demo_db: Path, args: list[str]) -> None:
    """The reader has gone before the first byte is written (``corpusdb agree | head -0``): the
    process ends by SIGPIPE, says nothing, and is not an "internal error"."""
    r, w = os.pipe()
    os.close(r)
    proc = subprocess.run(
        [str(SCRIPT), "--db", str(demo_db), *args], stdout=w, stderr=subprocess.PIPE, timeout=120
    )
    os.close(w)
    assert proc.returncode == -signal.SIGPIPE, proc.stderr.decode()[-3000:]
    assert proc.stderr == b""
