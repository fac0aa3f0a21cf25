"""The tree stays `ruff` clean: lint rules and formatting (config in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.skip("ruff is not installed (it is a test dependency: pip install -e '.[test]')")
    return exe


@pytest.mark.parametrize("args", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff(args: list[str]) -> None:
    res = subprocess.run([_ruff(), *args], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
