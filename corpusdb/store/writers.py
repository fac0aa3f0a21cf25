"""Who holds SQLite's write lock, so that a writer kept waiting by a long import says why and waits.

Why: SQLite has one writer at a time, and an import is one transaction (all or nothing) that may
hold the lock for minutes. An annotator's save that times out behind it used to fail with the raw
"database is locked". Now the long writer leaves a note beside the database file while it holds
the lock (``<file>-writer.json``: what it is, its process id, when it started); a writer that times
out finds the note, tells its listeners once ("waiting: an import ... is running") and keeps
waiting until the import commits or rolls back. Without a note (an ordinary writer stuck for more
than the busy timeout) the wait ends with a one-line ``DatabaseError``. PostgreSQL needs none of
this: its writers lock rows, not the database.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from corpusdb.basics.errors import DatabaseError

if TYPE_CHECKING:  # only a connection's user needs SQLAlchemy: the CLI listens here before any loads
    from sqlalchemy import Connection
    from sqlalchemy.exc import OperationalError

Listener = Callable[[str], None]
_listeners: list[Listener] = []


def on_wait(listener: Listener) -> Callable[[], None]:
    """Call ``listener(message)`` when a write starts waiting behind a long one; returns the undo."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener)


def note_path(conn: Connection) -> Path | None:
    """The note file of a SQLite database file (None for PostgreSQL and in-memory databases)."""
    if conn.dialect.name != "sqlite":
        return None
    database = conn.engine.url.database
    if not database or database == ":memory:":
        return None
    return Path(f"{database}-writer.json")


def holder_of(path: Path) -> str | None:
    """What holds the write lock per its note, or None (no note, or its process is gone)."""
    try:
        note = json.loads(path.read_text(encoding="utf-8"))
        pid = int(note["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # a crashed writer's note: its transaction is gone with it
    except PermissionError:
        pass  # alive, another user's process
    return f"{note.get('what', 'a long write')} (process {pid}, since {note.get('started', '?')})"


def _locked(exc: OperationalError) -> bool:
    return "database is locked" in str(exc.orig)


@contextmanager
def begin(conn: Connection, holder: str | None) -> Iterator[None]:
    """Begin the write transaction of ``conn``, waiting behind a noted long writer; commit at the end."""
    from sqlalchemy.exc import OperationalError

    path = note_path(conn)
    told = False
    while True:
        try:
            trans = conn.begin()
            break
        except OperationalError as exc:
            if path is None or not _locked(exc):
                raise
            conn.rollback()
            held = holder_of(path)
            if held is None:
                raise DatabaseError(
                    f"database {path.name.removesuffix('-writer.json')}: another process has held the write "
                    "lock too long; nothing was saved, try again"
                ) from exc
            if not told:
                for listener in list(_listeners):
                    listener(f"waiting: {held} is running; your change will be saved when it ends")
                told = True
    noting = holder is not None and path is not None
    try:
        with trans:
            if noting:
                _leave_note(path, holder)  # type: ignore[arg-type]
            yield
    finally:
        if noting:
            with suppress(OSError):  # (also when interrupted half-way through writing it)
                path.unlink(missing_ok=True)  # type: ignore[union-attr]


def _leave_note(path: Path, holder: str) -> None:
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    with suppress(OSError):  # a read-only folder: waiters get the plain "try again"
        path.write_text(
            json.dumps({"pid": os.getpid(), "what": holder, "started": started}), encoding="utf-8"
        )
