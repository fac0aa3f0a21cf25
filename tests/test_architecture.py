"""The import contracts in pyproject.toml hold (headless core, pure importers and agreement engine)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_import_contracts_hold() -> None:
    exe = shutil.which("lint-imports") or str(Path(__import__("sys").executable).with_name("lint-imports"))
    if not Path(exe).exists():
        pytest.skip("import-linter is not installed (it is a test dependency: pip install -e '.[test]')")
    res = subprocess.run([exe, "--no-cache"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "broken" not in res.stdout.lower() or "0 broken" in res.stdout.lower()
