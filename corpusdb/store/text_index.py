"""The full-text index over documents' texts, kept by the database itself (what it is asked: ``corpusdb.search.index``).

Why in the store: migrations make it and every upgrade checks it, and the store sits below the features.

* **SQLite**: ``document_fts``, an FTS5 table over ``document.text`` (external content: the text
  is stored once, in ``document``), tokenizer ``unicode61`` (letters and digits; case folded;
  diacritics kept), written by triggers on ``document``. A trigger runs inside the statement that
  inserts, changes or deletes a document, so an import, a deletion or a rollback leaves the index
  exactly as the table (FTS5 tables take part in SQLite transactions like any other).
* **PostgreSQL**: a GIN index of ``pg_trgm`` trigrams on ``document.text``. The server maintains it
  with the table, in the same transaction. Why trigrams rather than a ``tsvector``: what the index
  is asked must hold for every text a word of the query matches (the exact match is decided in
  Python, ``corpusdb.search.patterns``), and ``ILIKE '%IL-2%'`` does; a ``tsvector`` does not
  (its parser reads ``3.14``, ``IL-2-dependent`` or ``p53/p21`` as lexemes that do not hold their
  parts). Trigrams also serve regexes through their literal parts.

  Beside it, ``ix_document_text_words`` (migration 0024): a GIN index of the ``tsvector`` of the
  text with ASCII letters lower-cased and every run of other characters made one space
  (:func:`words_sql`), so the parser's lexemes are exactly the text's runs of ``[a-z0-9]`` (no
  hyphenated word, number, path or URL is read as one lexeme then). A word, prefix or phrase typed
  in ASCII holds its runs of ``[a-z0-9]`` as whole lexemes of every text it matches (its ends are
  non-word characters, spaces here), so the index answers it as a superset without reading a text
  (``corpusdb.search.index``): no trigram recheck. Texts of 1 MB or more (a ``tsvector`` holds at
  most 1 MB of lexemes) are left out of it and always candidates (``ix_document_text_long``, a
  partial index, lists them). The server maintains both with the table, in the same transaction;
  the expression has statistics target 0, as every content column (``corpusdb.store.rls``).

They are made by migrations 0017 and 0024 and checked again after every upgrade (a batch migration on SQLite
copies ``document`` and would drop its triggers): :func:`install` is idempotent and rebuilds the
FTS5 index whenever a trigger was missing. A server that cannot have the index (an SQLite without
FTS5, a PostgreSQL role that may not create ``pg_trgm``) still searches, by scanning.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from corpusdb.store import db

FTS = "document_fts"
KB_FTS = "kb_name_tri"
"""The knowledge bases' FTS5 table (``corpusdb.kb.index`` makes it): named here for schema comparisons."""
TRGM_INDEX = "ix_document_text_trgm"
WORDS_INDEX = "ix_document_text_words"
WORDS_MAX = 1_000_000
"""Texts of at least this many bytes are not in the words index (its ``tsvector`` could overflow)."""
_KELVIN = "\u212a"  # KELVIN SIGN: Python lower-cases it to "k"
LONG_INDEX = "ix_document_text_long"
"""The texts the words index leaves out (a partial index, empty but for texts of 1 MB or more)."""


def words_sql(column: str = "text") -> str:
    """The words index's expression on ``column`` (PostgreSQL); a query repeats it for the index to
    serve. ``lower(... COLLATE "C")`` lower-cases ASCII letters only, whatever the database's locale
    (and costs 20 times less than ``translate``: the whole expression 2.7 s for 40 M characters, not 5.5 s)."""
    return (
        f"(CASE WHEN octet_length({column}) < {WORDS_MAX} THEN to_tsvector('simple'::regconfig, "
        f"regexp_replace(replace(lower({column} COLLATE \"C\"), '{_KELVIN}', 'k'), '[^a-z0-9]+', ' ', 'g')) END)"
    )


LONG_SQL = f"octet_length(text) >= {WORDS_MAX}"
TRIGGERS = {
    f"{FTS}_insert": f"AFTER INSERT ON document BEGIN "
    f"INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text); END",
    f"{FTS}_delete": f"AFTER DELETE ON document BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text); END",
    f"{FTS}_update": f"AFTER UPDATE OF text ON document BEGIN "
    f"INSERT INTO {FTS}({FTS}, rowid, text) VALUES ('delete', old.id, old.text); "
    f"INSERT INTO {FTS}(rowid, text) VALUES (new.id, new.text); END",
}


def outside_models(name: str) -> bool:
    """True for the database objects this module makes that are no model's table or index (the FTS5
    table and its shadow tables, the trigram index): schema comparisons leave them out."""
    return name.startswith(FTS) or name in (TRGM_INDEX, WORDS_INDEX, LONG_INDEX)


def kind(conn: Connection) -> str:
    """``fts5``, ``pg_trgm`` or ``none``: which index this database has over documents' texts."""
    if db.is_sqlite(conn):
        found = conn.exec_driver_sql(f"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{FTS}'")
        return "fts5" if found.first() else "none"
    row = conn.execute(
        text("SELECT 1 FROM pg_indexes WHERE indexname = :i AND schemaname = current_schema()"),
        {"i": TRGM_INDEX},
    ).first()
    return "pg_trgm" if row else "none"


def has_words(conn: Connection) -> str | None:
    """How searches on this (PostgreSQL) connection use the words index (:func:`words_sql`):
    ``"index"`` directly, ``"definer"`` through ``corpusdb_text_candidates`` (``corpusdb.store.rls``),
    or ``None`` (no words index: SQLite, or a database made before it).

    Why a function under row-level security (a team login): PostgreSQL never evaluates an operator
    that is not leakproof (``@@``, ``ILIKE``) before the policy's own condition, so it uses neither
    text index and would compute the words expression for every text. The function runs the indexed
    query as the owner and returns only documents of the project the login's own role reads."""
    if db.is_sqlite(conn):
        return None
    row = conn.execute(
        text(
            "SELECT row_security_active(to_regclass(quote_ident(current_schema()) || '.document')), "
            "to_regprocedure('corpusdb_text_candidates(integer, tsquery)') IS NOT NULL "
            "FROM pg_indexes WHERE indexname = :i AND schemaname = current_schema()"
        ),
        {"i": WORDS_INDEX},
    ).first()
    if row is None:
        return None
    rls_on, definer = row
    if not rls_on:
        return "index"
    return "definer" if definer else None


def like_definer(conn: Connection) -> bool:
    """Whether this (PostgreSQL) connection asks the trigram index through ``corpusdb_like_candidates``
    (``corpusdb.store.rls``): row-level security is on for it (a team login: ``ILIKE`` is not
    leakproof, so no text index serves it under a policy), the trigram index and the function are
    there. Not on SQLite, nor for the owner (its ``ILIKE`` uses the index directly)."""
    if db.is_sqlite(conn):
        return False
    row = conn.execute(
        text(
            "SELECT row_security_active(to_regclass(quote_ident(current_schema()) || '.document')) "
            "AND to_regprocedure('corpusdb_like_candidates(integer, text)') IS NOT NULL "
            "FROM pg_indexes WHERE indexname = :i AND schemaname = current_schema()"
        ),
        {"i": TRGM_INDEX},
    ).first()
    return bool(row is not None and row[0])


def install(conn: Connection) -> str:
    """Make the index (and on SQLite its triggers) if missing; returns :func:`kind` afterwards."""
    if db.is_sqlite(conn):
        return _install_sqlite(conn)
    return _install_postgres(conn)


def _install_sqlite(conn: Connection) -> str:
    import sqlite3

    present = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
    fresh = kind(conn) == "none"
    try:
        with conn.begin_nested():
            if fresh:
                conn.exec_driver_sql(
                    f"CREATE VIRTUAL TABLE {FTS} USING fts5(text, content='document', content_rowid='id', "
                    "tokenize='unicode61 remove_diacritics 0')"
                )
            for name, body in TRIGGERS.items():
                conn.exec_driver_sql(f"CREATE TRIGGER IF NOT EXISTS {name} {body}")
            if fresh or not set(TRIGGERS) <= present:  # texts written while it had no triggers
                conn.exec_driver_sql(f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')")
    except Exception as exc:  # an SQLite built without FTS5
        if not isinstance(getattr(exc, "orig", exc), sqlite3.OperationalError):
            raise
        return "none"
    return "fts5"


def trgm_schema(conn: Connection) -> str | None:
    """The schema pg_trgm is installed in, or None (PostgreSQL only)."""
    row = conn.execute(
        text(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace "
            "WHERE e.extname = 'pg_trgm'"
        )
    ).first()
    return None if row is None else str(row[0])


def _install_postgres(conn: Connection) -> str:
    # the words index needs no extension (to_tsvector is the server's own)
    conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {WORDS_INDEX} ON document USING gin ({words_sql()})")
    # no statistics on its expression (ANALYZE would gather the lexemes of every project's texts,
    # which the planner's estimates show to anyone: the side channel corpusdb.store.rls closes)
    conn.exec_driver_sql(f"ALTER INDEX {WORDS_INDEX} ALTER COLUMN 1 SET STATISTICS 0")
    conn.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {LONG_INDEX} ON document (id) WHERE {LONG_SQL}")
    schema = trgm_schema(conn)
    # In ``public`` when the role may (an extension is one per database: made in a project's schema,
    # it would go when that schema is dropped, with every other schema's indexes on it), else in the
    # current schema; a role that may do neither gets no index, and no failure.
    for stmt in (
        "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public",
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    ):
        if schema is not None:
            break
        try:
            with conn.begin_nested():
                conn.exec_driver_sql(stmt)
        except Exception:
            continue
        schema = trgm_schema(conn)
    if schema is None:
        return "none"
    q = '"' + str(schema).replace('"', '""') + '"'
    conn.exec_driver_sql(
        f"CREATE INDEX IF NOT EXISTS {TRGM_INDEX} ON document USING gin (text {q}.gin_trgm_ops)"
    )
    return "pg_trgm"


def uninstall(conn: Connection) -> None:
    """Drop the index and its triggers (migration 0017's downgrade)."""
    if db.is_sqlite(conn):
        for name in TRIGGERS:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        conn.exec_driver_sql(f"DROP TABLE IF EXISTS {FTS}")
    else:
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {TRGM_INDEX}")
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {WORDS_INDEX}")
        conn.exec_driver_sql(f"DROP INDEX IF EXISTS {LONG_INDEX}")
