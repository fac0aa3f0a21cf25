"""Shared fixtures: where the real corpora live, real SQLite files, a real PostgreSQL server."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("CORPUSDB_SHARED", REPO.parent / "shared"))
SHARED_DATA = SHARED / "data"
SHARED_REFERENCE = SHARED / "reference"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts: str) -> Path:
    """A path under ../shared, or skip the test with the reason when this clone has no ../shared."""
    p = SHARED.joinpath(*parts)
    if not p.exists():
        pytest.skip(
            f"needs {p}: the real corpora and reference values live in ../shared beside the repository "
            "(set CORPUSDB_SHARED to point elsewhere); a user's clone does not have them"
        )
    return p


@pytest.fixture
def shared_data() -> Path:
    return shared_path("data")


@pytest.fixture
def shared_reference() -> Path:
    return shared_path("reference")


# -- databases ---------------------------------------------------------------------------------

PG_URL = os.environ.get("CORPUSDB_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
_pg_state: dict[str, object] = {}


def pg_available() -> str | None:
    """None when the PostgreSQL test server answers, else why not (cached for the session)."""
    if "reason" not in _pg_state:
        try:
            import psycopg

            with psycopg.connect(PG_URL.replace("postgresql+psycopg", "postgresql"), connect_timeout=3):
                pass
            _pg_state["reason"] = None
        except Exception as exc:  # no driver, no server, auth...
            _pg_state["reason"] = f"no PostgreSQL server answers at {PG_URL} ({type(exc).__name__}: {exc})"
    return _pg_state["reason"]  # type: ignore[return-value]


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty database built once; each test copies it (migrations are tested apart)."""
    from corpusdb import migrate
    from corpusdb.db import make_engine

    path = tmp_path_factory.mktemp("template") / "template.sqlite"
    engine = make_engine(f"sqlite:///{path}")
    migrate.upgrade(engine)
    engine.dispose()
    return path


@pytest.fixture
def sqlite_url(tmp_path: Path, _sqlite_template: Path) -> str:
    """A real SQLite file at the current schema, private to this test."""
    path = tmp_path / "corpus.sqlite"
    shutil.copy(_sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A real PostgreSQL schema private to this test (dropped afterwards); skips without a server."""
    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}")
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA IF EXISTS {name} CASCADE")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest) -> str:
    """Each test using this runs on SQLite and on PostgreSQL (skipped when no server answers)."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    url = request.getfixturevalue("pg_url")
    from corpusdb import migrate
    from corpusdb.db import make_engine

    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    return url
