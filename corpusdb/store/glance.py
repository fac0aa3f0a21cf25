"""A glance at an annotator's own list of documents, read with ``sqlite3`` alone.

Why (issue #25.11): ``corpusdb tui`` paints its first frame at once, but the annotator's document
list waited for SQLAlchemy, the store and the API to load (two thirds of the process's start-up).
This reads the same list (the user's own annotation sets: document and status, nothing of anyone
else's) from an SQLite file with the standard library, read-only, so the opening screen shows it
while the API loads; the real list, with counts and actions, replaces it when the project is open.
Anything unexpected (PostgreSQL, no such file, several projects and none named, a schema of another
revision, a user who is not an annotator) gives None: no glance, the usual wait.
"""

from __future__ import annotations

import os
from pathlib import Path

from corpusdb.basics.names import natural_key

DEFAULT_FILENAME = "corpusdb.sqlite"
"""The database file used when no ``--db`` nor ``CORPUSDB_URL`` names one (``db.default_url``)."""


def sqlite_file(db: str | os.PathLike[str] | None) -> Path | None:
    """The SQLite file ``db`` names, as ``db.default_url`` resolves it; None for another database."""
    s = str(db) if db is not None else os.environ.get("CORPUSDB_URL") or str(Path.cwd() / DEFAULT_FILENAME)
    if "://" in s:
        if not s.startswith("sqlite:///"):
            return None
        s = s[len("sqlite:///") :]
        if not s or s.startswith(":memory:"):
            return None
    return Path(s).expanduser().resolve()


def my_documents(
    db: str | os.PathLike[str] | None, project: str | None, user: str | None
) -> list[tuple[str, str]] | None:
    """``(document id, status)`` of ``user``'s own annotation sets in ``project`` (the only one when
    None), ids in natural order (``dev.2`` before ``dev.10``); None when it cannot be read so."""
    path = sqlite_file(db)
    if path is None or user is None or not path.is_file():
        return None
    import sqlite3

    try:
        conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=0.2)
    except sqlite3.Error:
        return None
    try:
        projects = conn.execute(
            "SELECT id FROM project" + (" WHERE name = ?" if project else ""), (project,) if project else ()
        ).fetchall()
        if len(projects) != 1:
            return None
        who = conn.execute(
            "SELECT id, role FROM annotator WHERE project_id = ? AND name = ?", (projects[0][0], user)
        ).fetchall()
        if len(who) != 1 or who[0][1] != "annotator":
            return None
        rows = conn.execute(
            "SELECT d.external_id, s.status FROM annotation_set s JOIN document d ON d.id = s.document_id "
            "WHERE s.annotator_id = ? AND s.kind = 'annotation'",
            (who[0][0],),
        ).fetchall()
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return sorted(((str(d), str(s)) for d, s in rows), key=lambda r: natural_key(r[0]))
