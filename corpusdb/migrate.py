"""Schema migrations: bring any corpusdb database to the current schema (Alembic, shipped inside).

Why programmatic: ``corpusdb db upgrade`` must work from an installed wheel, with no
``alembic.ini`` in the user's directory, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, inspect

from corpusdb import db, rls
from corpusdb.errors import DatabaseError


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resources.files("corpusdb") / "migrations"))
    return cfg


def head() -> str:
    """The newest revision this corpusdb knows."""
    rev = ScriptDirectory.from_config(_config()).get_current_head()
    assert rev is not None
    return rev


def current(engine: Engine) -> str | None:
    """The database's revision; None for an empty database."""
    with db.read(engine) as conn:
        return MigrationContext.configure(conn).get_current_revision()


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
    before = current(engine)
    cfg = _config()
    with _migrating(engine) as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
        if current_in(conn) != before and "team_login" in inspect(conn).get_table_names():
            # Team mode: tables added by migrations after 0007 get their row-level security here,
            # from their line in corpusdb.rls (a no-op on SQLite).
            rls.install(conn)
    return before, current(engine) or ""


def downgrade(engine: Engine, revision: str) -> tuple[str | None, str | None]:
    """Downgrade to ``revision`` (``base`` for none) in one transaction; returns (before, after)."""
    before = current(engine)
    cfg = _config()
    with _migrating(engine) as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
    return before, current(engine)


def current_in(conn: Connection) -> str | None:
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
    known = {s.revision for s in ScriptDirectory.from_config(_config()).walk_revisions()}
    if rev not in known:
        raise DatabaseError(
            f"database is at schema revision {rev}, newer than this corpusdb knows ({head()}); upgrade corpusdb"
        )
    raise DatabaseError(
        f"database is at schema revision {rev}, older than {head()}: run `corpusdb db upgrade`"
    )
