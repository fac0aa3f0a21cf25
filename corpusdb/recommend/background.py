"""Training in the background: a separate ``corpusdb recommend train`` process, never a thread.

Why a process: training a tagger takes CPU for seconds to minutes; in the TUI's process it would
slow every keystroke (Python threads share one interpreter lock). The child is the ``corpusdb``
command itself (the console script beside this Python, else ``python -c`` calling its entry point),
at a lower priority, with the database URL in its environment (``CORPUSDB_URL``: a password in a
team login's URL never shows in the process list). It trains as the same user, so it reads and
writes what that user may (its own part for an annotator); the suggestions pick the new model up at
the next document open.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def command() -> list[str]:
    """How to run ``corpusdb`` from here."""
    beside = Path(sys.executable).with_name("corpusdb")
    if beside.exists():
        return [str(beside)]
    found = shutil.which("corpusdb")
    if found:
        return [found]
    return [sys.executable, "-c", "from corpusdb.cli.main import run; run()"]


def spawn_training(
    url: str, project: str | None, user: str | None, name: str | None = None, *, log: str | None = None
) -> subprocess.Popen[bytes]:
    """Start ``corpusdb [--project P] [--as USER] recommend train [NAME] --quiet`` and return at once."""
    argv = command()
    if project is not None:
        argv += ["--project", project]
    if user is not None:
        argv += ["--as", user]
    argv += ["recommend", "train", "--quiet"] + ([name] if name else [])
    env = {**os.environ, "CORPUSDB_URL": url}
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 (the child owns it)
    return subprocess.Popen(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=out,
        stderr=out,
        start_new_session=True,
        preexec_fn=(lambda: os.nice(10)) if hasattr(os, "nice") else None,
    )
