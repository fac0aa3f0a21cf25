"""The typo-tolerant search index over ``kb_name.norm``, as each database offers it.

Why not in the migration: both indexes depend on the server. SQLite's FTS5 ``trigram`` tokenizer
needs SQLite 3.34 or later (Python's bundled SQLite may be older); PostgreSQL's ``pg_trgm`` is an
extension the owner must be allowed to create. So the index is made when the first knowledge base
is loaded (by the owner, who loads them), and a database without it still answers exact and prefix
lookups, through the ordinary index on ``(kb_id, norm)``.

* SQLite: ``kb_name_tri``, an FTS5 table with the trigram tokenizer over ``kb_name.norm``
  (external content: the text is not stored twice; rows are added and deleted with their
  knowledge base). Its positions are kept (``detail=full``, ~80 bytes a name): a substring is then
  a phrase of trigrams the index answers alone, in rowid order, stopping at the ``LIMIT``. The
  first version (``kb_name_fts``, ``detail=none``) had to read every candidate's row back to check
  it, 10-100x slower on common pieces (migration 0023 replaces it).
* PostgreSQL: ``pg_trgm``'s GIN index on ``norm`` (``gin_trgm_ops``), and a ``(kb_id, norm COLLATE
  "C")`` index: prefixes are byte ranges on it, read in its order and stopped at the ``LIMIT``
  (the database's collation would sort every name of a one-letter prefix first).
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from corpusdb.store import db
from corpusdb.store.text_index import KB_FTS, trgm_schema

FTS = KB_FTS
OLD_FTS = ("kb_name_fts_vocab", "kb_name_fts")
PREFIX_INDEX = "ix_kb_name_c"


def kind(conn: Connection) -> str:
    """Which fuzzy index this database has: ``fts5``, ``pg_trgm`` or ``none``. An index found is
    remembered on the driver's connection (it is only ever dropped by a downgrade): a keystroke's
    lookup does not ask the catalog again."""
    info = conn.connection.info
    if info.get("kb_index"):
        return str(info["kb_index"])
    found = _kind(conn)
    if found != "none":
        info["kb_index"] = found
    return found


def _kind(conn: Connection) -> str:
    if db.is_sqlite(conn):
        found = conn.exec_driver_sql(f"SELECT 1 FROM sqlite_master WHERE name = '{FTS}'").first()
        return "fts5" if found else "none"
    if trgm_schema(conn) is None:
        return "none"
    found = conn.execute(
        text("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_kb_name_trgm' AND schemaname = current_schema()")
    ).first()
    return "pg_trgm" if found else "none"


def ensure(conn: Connection) -> str:
    """Make the index if this database can have it; returns :func:`kind` afterwards."""
    if db.is_sqlite(conn):
        return _ensure_sqlite(conn)
    return _ensure_postgres(conn)


def _ensure_sqlite(conn: Connection) -> str:
    import sqlite3

    if _kind(conn) == "fts5":
        return "fts5"
    try:
        with conn.begin_nested():
            for old in OLD_FTS:
                conn.exec_driver_sql(f"DROP TABLE IF EXISTS {old}")
            conn.exec_driver_sql(
                f"CREATE VIRTUAL TABLE {FTS} USING fts5(norm, content='kb_name', content_rowid='id', "
                "tokenize='trigram')"
            )
            # names of knowledge bases loaded before the index existed
            conn.exec_driver_sql(f"INSERT INTO {FTS}(rowid, norm) SELECT id, norm FROM kb_name")
    except Exception as exc:  # an SQLite without FTS5 or its trigram tokenizer (before 3.34)
        if not isinstance(getattr(exc, "orig", exc), sqlite3.OperationalError):
            raise
        return "none"
    return "fts5"


def _ensure_postgres(conn: Connection) -> str:
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_kb_name_prefix")  # the first version's
    conn.exec_driver_sql(f'CREATE INDEX IF NOT EXISTS {PREFIX_INDEX} ON kb_name (kb_id, norm COLLATE "C")')
    schema = trgm_schema(conn)
    if schema is None:
        try:
            with conn.begin_nested():  # a role that may not create it: no fuzzy index, no failure
                conn.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        except Exception:
            return "none"
        schema = trgm_schema(conn)
    q = '"' + str(schema).replace('"', '""') + '"'
    conn.exec_driver_sql(
        f"CREATE INDEX IF NOT EXISTS ix_kb_name_trgm ON kb_name USING gin (norm {q}.gin_trgm_ops)"
    )
    return "pg_trgm"


def add_rows(conn: Connection, kb_id: int) -> None:
    """Index the names of one knowledge base just inserted (SQLite: FTS5's external content)."""
    if db.is_sqlite(conn) and kind(conn) == "fts5":
        conn.exec_driver_sql(
            f"INSERT INTO {FTS}(rowid, norm) SELECT id, norm FROM kb_name WHERE kb_id = ?", (kb_id,)
        )


def remove_rows(conn: Connection, kb_id: int) -> None:
    """Unindex the names of one knowledge base before they are deleted."""
    if db.is_sqlite(conn) and kind(conn) == "fts5":
        conn.exec_driver_sql(
            f"INSERT INTO {FTS}({FTS}, rowid, norm) SELECT 'delete', id, norm FROM kb_name WHERE kb_id = ?",
            (kb_id,),
        )
