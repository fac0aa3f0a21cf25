"""Run the shell examples of the README and docs/ as a user would type them, so they stay true.

A fenced ```sh block is a list of commands, one a line (a `#` starts a comment); `corpusdb` runs the
installed entry point of this interpreter's environment (as a user with the venv activated).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def sh_blocks(text: str) -> list[list[str]]:
    """The commands of each ```sh block of a Markdown text, comments and blank lines dropped."""
    blocks = re.findall(r"^```sh\n(.*?)^```", text, flags=re.S | re.M)
    out = []
    for block in blocks:
        lines = []
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                lines.append(shlex.join(words))
        out.append(lines)
    return out


def section(text: str, heading: str) -> str:
    """The Markdown text under `heading` up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n")
    rest = text[start + len(heading) + 1 :]
    match = re.search(rf"^#{{1,{len(level)}}} ", rest, flags=re.M)
    return rest[: match.start()] if match else rest


def run(command: str, cwd: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run one documented command in `cwd` with the venv's bin first on PATH; fail with its output."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", "COLUMNS": "120"}
    env.pop("CORPUSDB_URL", None)
    env.update(env_extra or {})
    proc = subprocess.run(command, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"`{command}` exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc
