"""Schema migrations: bring any corpusdb database to the current schema (Alembic, shipped inside).

Why programmatic: ``corpusdb db upgrade`` must work from an installed wheel, with no
``alembic.ini`` in the user's directory, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import DBAPIError

from corpusdb.basics.errors import DatabaseError
from corpusdb.store import db, rls

if TYPE_CHECKING:
    from alembic.config import Config

# Alembic is imported only to upgrade or to explain a mismatch: every command checks the schema
# revision when it opens the database, and alembic's import plus the parsing of every migration
# script cost more than the command itself (issue #14). The check reads the version table and the
# scripts' ``revision``/``down_revision`` lines directly.
_REV = re.compile(r"^revision\s*(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.M)
_DOWN = re.compile(r"^down_revision\s*(?::[^=]*)?=\s*(.+)$", re.M)


def _config() -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("corpusdb.store") / "migrations"))
    return cfg


@functools.cache
def _scripts() -> tuple[frozenset[str], frozenset[str]]:
    """(every revision, every revision some script revises) read from the shipped scripts' text."""
    revs: set[str] = set()
    downs: set[str] = set()
    for f in (resources.files("corpusdb.store") / "migrations" / "versions").iterdir():
        if not f.name.endswith(".py"):
            continue
        src = f.read_text(encoding="utf-8")
        rev, down = _REV.search(src), _DOWN.search(src)
        if rev is None:
            continue
        revs.add(rev.group(1))
        if down is not None:
            downs.update(re.findall(r"['\"]([^'\"]+)['\"]", down.group(1)))
    return frozenset(revs), frozenset(downs)


@functools.cache
def head() -> str:
    """The newest revision this corpusdb knows."""
    revs, downs = _scripts()
    heads = revs - downs
    if len(heads) == 1:
        return next(iter(heads))
    from alembic.script import ScriptDirectory  # several heads or odd scripts: let alembic say

    rev = ScriptDirectory.from_config(_config()).get_current_head()
    assert rev is not None
    return rev


def current(engine: Engine) -> str | None:
    """The database's revision; None for an empty database."""
    with engine.connect() as conn:
        try:
            rows: list[Any] = list(conn.execute(text("SELECT version_num FROM alembic_version")))
        except DBAPIError:  # no version table: let alembic look (it knows every dialect's quirks)
            conn.rollback()
            from alembic.runtime.migration import MigrationContext

            return MigrationContext.configure(conn).get_current_revision()
        if len(rows) > 1:
            raise DatabaseError(f"database has several schema revisions ({', '.join(r[0] for r in rows)})")
        return rows[0][0] if rows else None


@contextmanager
def _migrating(engine: Engine) -> Iterator[Connection]:
    """One write transaction for a migration; on SQLite, foreign keys off around it.

    Why: batch mode rebuilds a table (create new, copy, drop old, rename), and with foreign keys on,
    dropping a table that other rows point at fails or cascades. SQLite's documented procedure
    (https://www.sqlite.org/lang_altertable.html#otheralter): ``PRAGMA foreign_keys=OFF`` outside
    the transaction (it is a no-op inside one), ``PRAGMA foreign_key_check`` before commit, then
    foreign keys back on.
    """
    if not db.is_sqlite(engine):
        with db.write(engine) as conn:
            yield conn
        return
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        raw.execute("PRAGMA foreign_keys=OFF")  # type: ignore[union-attr]
        try:
            conn.execution_options(**{db.WRITE_OPTION: True})
            with conn.begin():
                yield conn
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    table, rowid, parent, _ = broken[0]
                    raise DatabaseError(
                        f"the migration would leave {len(broken)} dangling reference(s) (first: {table} row "
                        f"{rowid} -> {parent}); nothing was changed"
                    )
        finally:
            raw.execute("PRAGMA foreign_keys=ON")  # type: ignore[union-attr]


def upgrade(engine: Engine, revision: str = "head") -> tuple[str | None, str]:
    """Upgrade to ``revision`` in one transaction; returns (before, after)."""
    from alembic import command

    before = current(engine)
    cfg = _config()
    with _migrating(engine) as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        if current_in(conn) != before and "team_login" in inspect(conn).get_table_names():
            # Team mode: tables added by migrations after 0007 get their row-level security here,
            # from their line in corpusdb.store.rls (a no-op on SQLite).
            rls.install(conn)
        if current_in(conn) != before and current_in(conn) == head():
            # The search index (migration 0017) again: a batch migration on SQLite copies the
            # document table and drops its triggers; install() puts them back and re-indexes.
            from corpusdb.store import text_index

            text_index.install(conn)
    return before, current(engine) or ""


def include_object(_obj: Any, name: str | None, _type: str, *_: Any) -> bool:
    """Alembic's ``include_object`` for schema comparisons: False for the objects that live beside
    the models' tables (full-text and trigram indexes, made by ``corpusdb.store.text_index`` and
    ``corpusdb.kb.index``), True for everything else."""
    from corpusdb.store import text_index

    if name is None:
        return True
    return not (
        text_index.outside_models(name)
        or name.startswith((text_index.KB_FTS, "kb_name_fts"))  # kb_name_fts: before migration 0023
        or name in ("ix_kb_name_trgm", "ix_kb_name_prefix", "ix_kb_name_c")
    )


def downgrade(engine: Engine, revision: str) -> tuple[str | None, str | None]:
    """Downgrade to ``revision`` (``base`` for none) in one transaction; returns (before, after)."""
    from alembic import command

    before = current(engine)
    cfg = _config()
    with _migrating(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
    return before, current(engine)


def current_in(conn: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def ensure_current(engine: Engine) -> None:
    """Refuse to work on a database that is missing, empty or older/newer than this corpusdb.

    A SQLite file that is not there is refused before connecting: connecting would leave an empty
    file behind, which a read command must not do."""
    if not db.exists(engine):
        raise DatabaseError(f"no database at {db.sqlite_file(engine)}: run `corpusdb init` (or pass --db)")
    rev = current(engine)
    if rev == head():
        return
    if rev is None:
        has_tables = bool(inspect(engine).get_table_names())
        hint = "it is not a corpusdb database" if has_tables else "it is empty: run `corpusdb init`"
        raise DatabaseError(f"database {engine.url.render_as_string()} has no corpusdb schema ({hint})")
    if rev not in _scripts()[0]:
        raise DatabaseError(
            f"database is at schema revision {rev}, newer than this corpusdb knows ({head()}); upgrade corpusdb"
        )
    raise DatabaseError(
        f"database is at schema revision {rev}, older than {head()}: run `corpusdb db upgrade`"
    )
