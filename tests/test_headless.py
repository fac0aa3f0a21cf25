"""The headless packages never import textual (checked in a fresh interpreter per module)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
HEADLESS_PACKAGES = ("corpusdb", "importers", "guidelines")


def headless_modules() -> list[str]:
    mods: list[str] = []
    for pkg in HEADLESS_PACKAGES:
        mods.append(pkg)
        for info in pkgutil.walk_packages([str(REPO / pkg)], prefix=f"{pkg}."):
            if ".migrations.versions" in info.name or info.name.endswith(".migrations.env"):
                continue
            mods.append(info.name)
    return sorted(mods)


def test_there_are_modules_to_check() -> None:
    mods = headless_modules()
    assert {"corpusdb.api", "corpusdb.cli.main", "guidelines.schema"} <= set(mods)


def _loads_textual(*modules: str) -> str:
    """'' when importing ``modules`` in a fresh interpreter leaves textual unloaded, else what went wrong."""
    code = (
        "import importlib, sys\n"
        f"for m in {list(modules)!r}: importlib.import_module(m)\n"
        "bad = sorted(m for m in sys.modules if m == 'textual' or m.startswith('textual.'))\n"
        "print(','.join(bad))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    if res.returncode != 0:
        return f"{modules}: import failed: {res.stderr.strip().splitlines()[-1:]}"
    return f"{', '.join(modules)} loads {res.stdout.strip()}" if res.stdout.strip() else ""


def test_headless_modules_do_not_load_textual() -> None:
    """All headless modules in one fresh interpreter: textual, once loaded, stays in sys.modules, so a
    clean result covers each module. On failure, one interpreter per module names the culprits."""
    mods = headless_modules()
    if _loads_textual(*mods) == "":
        return
    with ThreadPoolExecutor(max_workers=4) as pool:
        problems = [p for p in pool.map(_loads_textual, mods) if p]
    assert problems == [], problems
