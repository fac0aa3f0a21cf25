"""Shared fixtures: where the real corpora live, real SQLite files, a real PostgreSQL server."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
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
    from corpusdb.store import migrate
    from corpusdb.store.db import make_engine

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


@contextmanager
def pg_schema() -> Iterator[str]:
    """A URL to a fresh PostgreSQL schema, dropped afterwards; skips without a server."""
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


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A real PostgreSQL schema private to this test (dropped afterwards); skips without a server."""
    with pg_schema() as url:
        yield url


def role_url(url: str, role: str) -> str:
    """The same database and schema, logged in as ``role`` (the test server trusts any role)."""
    from sqlalchemy.engine import make_url

    return make_url(url).set(username=role).render_as_string(hide_password=False)


class TeamRoles:
    """Login roles made by a test: unique names (roles are cluster-wide), dropped afterwards."""

    def __init__(self) -> None:
        self.suffix = uuid.uuid4().hex[:8]
        self.engines: list[object] = []

    def name(self, person: str) -> str:
        return f"{person}_{self.suffix}"

    def open(self, url: str, person: str, **kw: object) -> object:
        """``Corpus.open`` through ``person``'s login role (their own engine, disposed afterwards)."""
        from corpusdb.api import Corpus
        from corpusdb.store.db import make_engine

        engine = make_engine(role_url(url, self.name(person)))
        self.engines.append(engine)
        return Corpus.open(engine=engine, **kw)  # type: ignore[arg-type]

    def drop(self) -> None:
        import psycopg

        for e in self.engines:
            e.dispose()  # type: ignore[attr-defined]
        base = PG_URL.replace("postgresql+psycopg", "postgresql")
        with psycopg.connect(base, autocommit=True) as conn:
            roles = [r[0] for r in conn.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE %s",
                                                (f"%\\_{self.suffix}",))]  # fmt: skip
            for r in roles:
                conn.execute(f'DROP OWNED BY "{r}"')
                conn.execute(f'DROP ROLE "{r}"')


@contextmanager
def team_roles_ctx() -> Iterator[TeamRoles]:
    roles = TeamRoles()
    try:
        yield roles
    finally:
        roles.drop()


@pytest.fixture
def team_roles() -> Iterator[TeamRoles]:
    with team_roles_ctx() as roles:
        yield roles


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_url(request: pytest.FixtureRequest) -> str:
    """Each test using this runs on SQLite and on PostgreSQL (skipped when no server answers)."""
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_url")
    url = request.getfixturevalue("pg_url")
    from corpusdb.store import migrate
    from corpusdb.store.db import make_engine

    engine = make_engine(url)
    migrate.upgrade(engine)
    engine.dispose()
    return url
