"""A session bound to one person for its whole life: it ends when the login is revoked or it sits idle.

Why a guard on the engine: every read and every save of the session goes through its engine, so a
check when each transaction begins covers every path (screens, workers, the command palette) without
any of them knowing. The check is one small query: on SQLite, that the person's ``login_password``
row is unchanged (not revoked, same generation); on PostgreSQL, ``corpusdb_login_valid`` through the
person's own role (a revoked role has lost its rights: any error counts as revoked). The idle time is
kept by the caller (``touch`` on each key or click) and checked by ``expired``.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from sqlalchemy import event

from corpusdb.basics.errors import CorpusError, PermissionDenied
from corpusdb.store.login_store import PersonStore


class SessionEnded(PermissionDenied):
    """The session is over (revoked, idle, logged out): nothing more is read or saved through it."""


class LoginSession:
    """The logged-in person: their ``Corpus`` (opened as them), and the session's end."""

    def __init__(
        self,
        corpus: Any,
        login: str,
        store: PersonStore,
        *,
        via: str,
        idle_timeout: timedelta | None,
    ) -> None:
        self.corpus = corpus
        self.login = login
        """The name typed (the annotator's name; on PostgreSQL the login role)."""
        self.store = store
        self.via = via
        self.idle_timeout = idle_timeout
        self.ended: str | None = None
        self._listeners: list[Callable[[str], None]] = []
        self._last_input = time.monotonic()
        self._internal = threading.local()
        event.listen(corpus.engine, "begin", self._on_begin)

    @property
    def annotator(self) -> str:
        return str(self.corpus.actor.name)

    # -- the guard ----------------------------------------------------------------------------------
    def _on_begin(self, conn: Any) -> None:
        if getattr(self._internal, "on", False):
            return
        if self.ended is not None:
            raise SessionEnded(f"session ended: {self.ended}")
        try:
            why = self.store.still_valid(conn)
        except CorpusError:
            raise
        except Exception:  # a revoked role lost its rights on the schema: it is revoked
            why = "your login was revoked"
        if why is not None:
            self._end(why, record=True, reason="revoked")
            raise SessionEnded(f"session ended: {why}")

    def check(self) -> None:
        """Raise ``SessionEnded`` unless the login still holds (one small read)."""
        from corpusdb.store import db

        with db.read(self.corpus.engine):
            pass

    # -- idle time ----------------------------------------------------------------------------------
    def touch(self) -> None:
        """A key or a click: the session is in use."""
        self._last_input = time.monotonic()

    def idle_seconds(self) -> float:
        return time.monotonic() - self._last_input

    def expired(self) -> bool:
        """True (and the session ended, logged out as idle) once idle past the timeout."""
        if self.ended is not None:
            return True
        if self.idle_timeout is None or self.idle_seconds() < self.idle_timeout.total_seconds():
            return False
        minutes = self.idle_timeout.total_seconds() / 60
        self._end(f"idle for {minutes:g} minutes", record=True, reason="idle")
        return True

    # -- the end --------------------------------------------------------------------------------------
    def on_end(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(why)`` once when the session ends (from whatever thread ends it)."""
        self._listeners.append(listener)

    def logout(self, reason: str = "logout") -> None:
        """End the session by choice (quit): recorded as a logout."""
        self._end("logged out", record=True, reason=reason)

    def _end(self, why: str, *, record: bool, reason: str | None = None) -> None:
        if self.ended is not None:
            return
        if record:
            with self._unguarded(), contextlib.suppress(Exception):  # a revoked role may not write
                self.store.logout(reason or why, self.via)
        self.ended = why
        for listener in self._listeners:
            with contextlib.suppress(Exception):
                listener(why)

    @contextlib.contextmanager
    def _unguarded(self) -> Any:
        self._internal.on = True
        try:
            yield
        finally:
            self._internal.on = False

    # -- where to resume ------------------------------------------------------------------------------
    def last_document(self) -> str | None:
        """The document this person's last session was on (None: none yet)."""
        return self.store.last_document()

    def remember_document(self, document: str) -> None:
        """Where to resume next time (saved at once: a killed session resumes there too)."""
        self.store.remember_document(document)
