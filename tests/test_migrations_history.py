"""Databases made by earlier corpusdb code reach head with every item, decision and release intact.

Each earlier schema revision is built by *that revision's own code* (extracted from git history and
run in a subprocess), holding every item kind; today's code upgrades it to head (whatever head is
when the test runs), and every set, decision and release export must be what the old code saw.
Then down to the old revision and up again, with the same result.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from corpusdb.store import db, migrate

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(__file__).parent / "fixtures" / "migrations" / "build.py"
# commit -> the newest schema revision its code knew, and the revision its database is taken down to
OLD = {
    "0001": ("ab37a96", "0001"),  # the first commit: no adjudication yet (a stored gold set instead)
    "0002": ("597b8ce", None),  # the last commit before 0003: the whole workflow, decisions, a release
}


def _tree(commit: str, cache: Path) -> Path:
    """That commit's files, or skip with the reason (a user's tarball or a shallow clone)."""
    if shutil.which("git") is None:
        pytest.skip("needs git to extract an earlier commit's code")
    ok = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True
    )
    if ok.returncode != 0:
        pytest.skip(f"needs commit {commit} in the git history (a shallow clone or an export has none)")
    dest = cache / commit
    if not dest.exists():
        tmp = cache / f"{commit}.part"
        tmp.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(tmp)], input=archive.stdout, check=True)
        tmp.rename(dest)
    return dest


def _old(tree: Path, *args: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    res = subprocess.run([sys.executable, str(BUILD), *args], env=env, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]


def _dump_now(url: str, out: Path) -> None:
    spec = importlib.util.spec_from_file_location("_migration_build", BUILD)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.dump(url, out)


def _same(a: Path, b: Path) -> None:
    left = sorted(str(p.relative_to(a)) for p in a.rglob("*"))
    right = sorted(str(p.relative_to(b)) for p in b.rglob("*"))
    assert left == right
    for rel in left:
        if (a / rel).is_file():
            assert (a / rel).read_bytes() == (b / rel).read_bytes(), f"{rel} differs"


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("old-code")


@pytest.mark.parametrize("revision", sorted(OLD))
@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_upgrade_from_earlier_code_keeps_everything(
    revision: str, backend: str, trees: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    commit, down_to = OLD[revision]
    tree = _tree(commit, trees)
    url = f"sqlite:///{tmp_path / 'old.sqlite'}" if backend == "sqlite" else request.getfixturevalue("pg_url")
    before = tmp_path / "before"
    _old(tree, "build", url, str(before), *([down_to] if down_to else []))
    engine = db.make_engine(url)
    assert migrate.current(engine) == revision
    assert migrate.upgrade(engine) == (revision, migrate.head())
    _dump_now(url, tmp_path / "after")
    _same(before, tmp_path / "after")
    if backend == "sqlite":
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # restored after the migration
    # down to the old revision: the old code still reads it as it was (it can open only its head)
    assert migrate.downgrade(engine, revision) == (migrate.head(), revision)
    if down_to is None:
        _old(tree, "dump", url, str(tmp_path / "down"))
        _same(before, tmp_path / "down")
    # and up again
    migrate.upgrade(engine)
    _dump_now(url, tmp_path / "again")
    _same(before, tmp_path / "again")
    engine.dispose()
