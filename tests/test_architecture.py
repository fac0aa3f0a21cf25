"""The import contracts in pyproject.toml hold (headless core, pure importers and agreement engine)."""

from __future__ import annotations

import ast
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


def test_every_package_says_its_job() -> None:
    """A contributor opening a folder reads what it is for: every package has a docstring (Alembic's
    versions folder aside: its scripts are numbered changes, not a package anyone imports by name)."""
    silent = []
    packages = 0
    for top in ("corpusdb", "importers", "guidelines", "tui"):
        for init in sorted((REPO / top).rglob("__init__.py")):
            if init.parent.name == "versions" and init.parent.parent.name == "migrations":
                continue
            packages += 1
            if not (ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or "").strip():
                silent.append(str(init.relative_to(REPO)))
    assert packages >= 10 and silent == []  # (a broken walk would check nothing)
