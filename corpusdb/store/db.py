"""Engine factory and transactions: the only place that knows SQLite from PostgreSQL.

Why this shape:
* No engine exists at import time; ``make_engine(url)`` builds one on demand.
* SQLite gets ``foreign_keys=ON``, WAL, ``busy_timeout`` and ``synchronous=NORMAL`` on every
  connection, and pysqlite's own transaction handling is switched off so that *we* emit
  ``BEGIN`` (reads) or ``BEGIN IMMEDIATE`` (writes) — SQLAlchemy's documented recipe. A write that
  takes the lock up front cannot fail half-way with "database is locked" after doing work.
* Every user action is one short ``write()`` transaction: all of it commits or none of it does.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, IntegrityError

from corpusdb.basics.errors import Conflict, DatabaseError
from corpusdb.store import writers
from corpusdb.store.glance import DEFAULT_FILENAME

_WRITE = WRITE_OPTION = "corpusdb_write"
BUSY_TIMEOUT_MS = 10_000


def default_url(db_path: str | os.PathLike[str] | None = None) -> str:
    """The database URL: an explicit path or URL, else ``CORPUSDB_URL``, else a file in the cwd."""
    if db_path is not None:
        s = str(db_path)
        if "://" in s:
            return s
        return f"sqlite:///{Path(s).expanduser().resolve()}"
    env = os.environ.get("CORPUSDB_URL")
    if env:
        return env
    return f"sqlite:///{(Path.cwd() / DEFAULT_FILENAME).resolve()}"


def _normalise(url: str) -> str:
    """Accept ``postgresql://`` and pick the psycopg 3 driver the project depends on."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _json_dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


# Why orjson for JSON columns: reading a corpus back (exports, agreement over whole projects)
# decodes one JSON value per span; orjson does it several times faster than the standard library.
_JSON_CODEC: dict[str, Any] = {"json_serializer": _json_dumps, "json_deserializer": orjson.loads}


def make_engine(url: str | None = None, *, echo: bool = False) -> Engine:
    """Create an engine for ``url`` (see ``default_url``) with the store's connection rules."""
    url = _normalise(url or default_url())
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise DatabaseError(f"not a database URL: {url!r}") from exc
    if parsed.get_backend_name() == "sqlite":
        database = str(_sqlite_path(parsed) or "")
        if database:
            parent = Path(database).parent
            if not parent.exists():
                raise DatabaseError(f"cannot open database {database}: folder {parent} does not exist")
            if Path(database).is_dir():
                raise DatabaseError(f"cannot open database {database}: it is a folder, not a database file")
        engine = create_engine(url, echo=echo, **_JSON_CODEC)
        _install_sqlite_rules(engine)
    else:
        try:
            engine = create_engine(url, echo=echo, pool_pre_ping=True, **_JSON_CODEC)
        except Exception as exc:  # missing driver, bad URL
            raise DatabaseError(f"cannot create engine for {parsed.render_as_string()}: {exc}") from exc
    return engine


def _install_sqlite_rules(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Stop pysqlite from emitting its own BEGIN (and COMMIT before DDL); we do it in "begin".
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(_WRITE):
            conn.exec_driver_sql("BEGIN IMMEDIATE")
        else:
            conn.exec_driver_sql("BEGIN")


def is_sqlite(engine_or_conn: Engine | Connection) -> bool:
    return engine_or_conn.dialect.name == "sqlite"


def sqlite_file(engine: Engine | Connection) -> Path | None:
    """The database file of a SQLite engine (None for PostgreSQL or an in-memory database)."""
    if not is_sqlite(engine):
        return None
    return _sqlite_path(engine.engine.url if isinstance(engine, Connection) else engine.url)


def _sqlite_path(url: Any) -> Path | None:
    database = url.database
    if database and str(url.query.get("uri", "")).lower() == "true":  # sqlite:///file:x.db?mode=ro&uri=true
        database = database.removeprefix("file:")
    return Path(database) if database and database != ":memory:" else None


def exists(engine: Engine) -> bool:
    """False only for a SQLite file that is not there yet (connecting would create it, empty)."""
    path = sqlite_file(engine)
    return path is None or path.exists()


def explain(exc: DBAPIError, engine: Engine | Connection | None = None) -> str:
    """One line for a driver error, naming the database and what the user can do about it.

    Why here: the driver's text (``unable to open database file``, psycopg's multi-line connection
    report, SQLAlchemy's background link) means little to a user and spans many lines.
    """
    orig = exc.orig if exc.orig is not None else exc
    first = " ".join(str(orig).split())
    where = ""
    if engine is not None:
        path = sqlite_file(engine)
        url = engine.engine.url if isinstance(engine, Connection) else engine.url
        where = f" {path}" if path is not None else f" {url.render_as_string(hide_password=True)}"
    low = first.lower()
    if "readonly database" in low or "read-only" in low:
        hint = "it is read-only (check the file's and its folder's permissions)"
    elif "unable to open database file" in low:
        hint = "cannot open or create the file there (check the path and the folder's permissions)"
    elif "database is locked" in low:
        hint = "another process holds the write lock; nothing was saved, try again"
    elif "connection refused" in low or "is the server running" in low:
        hint = "no PostgreSQL server answers there (is it running, is the host and port right?)"
    elif "does not exist" in low and ("database" in low or "role" in low):
        hint = first.split("FATAL:", 1)[-1].strip()
    elif "password authentication failed" in low or "no pg_hba.conf entry" in low:
        hint = "the server refused this user: " + first.split("FATAL:", 1)[-1].strip()
    else:
        hint = first
    return f"database{where}: {hint}"


def _connect(engine: Engine) -> Connection:
    try:
        return engine.connect()
    except DBAPIError as exc:
        raise DatabaseError(explain(exc, engine)) from exc


def unique_violation(exc: Exception) -> bool:
    """The error is a unique index refusing a row (SQLite and PostgreSQL; SQLAlchemy's wrapper or the
    driver's own error, as ``executemany`` raises it)."""
    orig = getattr(exc, "orig", None) or exc
    return getattr(orig, "sqlstate", None) == "23505" or "UNIQUE constraint failed" in str(orig)


@contextmanager
def _translated(engine: Engine) -> Iterator[None]:
    """Driver errors inside a transaction become one-line ``DatabaseError`` (exit 7).

    A unique violation becomes ``Conflict`` (exit 6): every write path checks for what exists
    before inserting, so the only way to hit a unique index is a concurrent writer that stored the
    same thing after the check (on PostgreSQL, where writers do not queue as on SQLite). Other
    integrity errors stay as they are: they are bugs.
    """
    try:
        yield
    except IntegrityError as exc:
        if unique_violation(exc):
            raise Conflict(
                "another writer stored the same thing at the same moment; nothing of this change was "
                "saved: reload and try again"
            ) from exc
        raise
    except DBAPIError as exc:
        raise DatabaseError(explain(exc, engine)) from exc


@contextmanager
def write(engine: Engine, *, holder: str | None = None) -> Iterator[Connection]:
    """One write transaction (``BEGIN IMMEDIATE`` on SQLite): commit on success, roll back on error.

    ``holder`` says what a long write is ("an import of 3 files"): while it holds SQLite's write
    lock, another writer that times out waiting for it is told so and keeps waiting (see
    ``writers``) instead of failing with "database is locked".
    """
    with _translated(engine), _connect(engine) as conn:
        conn.execution_options(**{_WRITE: True})
        with writers.begin(conn, holder):
            yield conn


@contextmanager
def read(engine: Engine) -> Iterator[Connection]:
    """One read transaction: a consistent snapshot of the database."""
    with _translated(engine), _connect(engine) as conn, conn.begin():
        yield conn


BULK_CACHE_KIB = 131_072
"""SQLite page cache (KiB) while a bulk write runs: a large import dirties more pages than the default
2 MiB cache holds, and every page spilled to the WAL is read back when its table is next written
(about a tenth of a 10^6-span import). SQLite allocates cache pages only as they are used."""


@contextmanager
def bulk_cache(conn: Connection) -> Iterator[None]:
    """A large page cache on this connection for the duration of one bulk write (SQLite only)."""
    if not is_sqlite(conn):
        yield
        return
    dbapi = conn.connection.driver_connection
    old = dbapi.execute("PRAGMA cache_size").fetchone()[0]  # type: ignore[union-attr]
    dbapi.execute(f"PRAGMA cache_size=-{BULK_CACHE_KIB}")  # type: ignore[union-attr]
    try:
        yield
    finally:
        import sqlite3

        # interrupted (Ctrl-C): the connection may be closed already, and its cache with it
        with contextlib.suppress(sqlite3.ProgrammingError):
            dbapi.execute(f"PRAGMA cache_size={int(old)}")  # type: ignore[union-attr]


def allocate_ids(conn: Connection, table: str, n: int) -> list[int]:
    """Reserve ``n`` primary keys of ``table`` inside the current write transaction.

    Why: bulk inserts go through ``executemany`` (no RETURNING), yet relations must point at the
    spans just inserted. On SQLite the write lock taken by ``BEGIN IMMEDIATE`` makes
    ``max(id)+1..`` safe; on PostgreSQL the table's sequence hands out ids atomically, through
    ``corpusdb_next_ids`` (``corpusdb.store.rls``): a team login has no right on sequences, and may insert
    only the ids the server leased to its transaction.
    """
    if n <= 0:
        return []
    if is_sqlite(conn):
        start = conn.execute(text(f'SELECT coalesce(max(id), 0) FROM "{table}"')).scalar_one() + 1
        return list(range(start, start + n))
    rows = conn.execute(text("SELECT corpusdb_next_ids(:t, :n)"), {"t": table, "n": n})
    return [r[0] for r in rows]


def timestamp_param(conn: Connection, when: datetime) -> Any:
    """A timestamp as the driver-level ``executemany`` must pass it: SQLAlchemy's SQLite text format
    (UTC wall time), or the aware datetime for PostgreSQL."""
    if is_sqlite(conn):
        return when.astimezone(UTC).replace(tzinfo=None).strftime("%Y-%m-%d %H:%M:%S.%f")
    return when


def next_id(conn: Connection, table: str) -> int:
    """The id SQLite gives the next row inserted into ``table`` without one: its largest id + 1."""
    return int(conn.exec_driver_sql(f'SELECT coalesce(max(id), 0) + 1 FROM "{table}"').scalar_one())


def executemany(
    conn: Connection,
    table: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    offsets: Mapping[str, int] | None = None,
) -> None:
    """Insert many rows given as tuples, straight through the DB-API cursor of this transaction.

    Why: this is the hot path of imports (10^6 spans); going through the driver's ``executemany``
    keeps it within a small factor of raw ``sqlite3`` while staying inside our transaction.
    ``offsets`` adds a constant to some columns in SQL (``? + 1000``; NULL stays NULL), which turns
    positions into ids without touching the rows.
    """
    if not rows:
        return
    mark = "?" if is_sqlite(conn) else "%s"
    cols = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join(f"{mark} + {int(offsets[c])}" if offsets and c in offsets else mark for c in columns)
    sql = f'INSERT INTO "{table}" ({cols}) VALUES ({marks})'
    dbapi = conn.connection.driver_connection
    cur = dbapi.cursor()  # type: ignore[union-attr]
    try:
        cur.executemany(sql, rows)
    finally:
        cur.close()
