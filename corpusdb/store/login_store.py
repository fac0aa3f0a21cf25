"""Where logins are counted and recorded: failures and lockouts per name, audit events, the resume point.

Two doors, one interface each, because on PostgreSQL they are two different connections:

* ``GateStore`` answers before anyone is logged in: the state of a name (failures, lockout) and a
  failure to record. On SQLite it is the database file; on PostgreSQL it is the gatekeeper role,
  which may call the login functions and nothing else (``corpusdb.store.login_pgsql``).
* ``PersonStore`` is used once logged in, through the person's own connection: the login itself
  (which clears the count), logout, whether the login still holds, the last document.

The policy (how many failures lock, for how long) is the caller's (``LoginPolicy``); the stores
only apply it atomically, so two session processes failing at once still count two failures.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import Engine, insert, select, update

from corpusdb.basics.controls import clean
from corpusdb.store import db, tables

S = tables.login_state
PW = tables.login_password
A = tables.annotator
E = tables.audit_event

MAX_NAME = 64
"""A name typed on the login screen is kept (state rows, audit events) to this many characters."""


def typed_name(name: str) -> str:
    """A name as typed, fit for the trail: no control characters, no surrounding blanks, bounded."""
    return clean(name).strip()[:MAX_NAME]


@dataclass(frozen=True, slots=True)
class NameState:
    failures: int = 0
    locked_until: datetime | None = None

    def locked(self, now: datetime) -> bool:
        return self.locked_until is not None and self.locked_until > now


class GateStore(Protocol):
    def state(self, name: str) -> NameState: ...

    def failed(
        self, name: str, reason: str, via: str, max_failures: int, lockout: timedelta
    ) -> NameState: ...


class PersonStore(Protocol):
    def succeeded(self, name: str, via: str) -> None: ...

    def logout(self, reason: str, via: str) -> None: ...

    def still_valid(self, conn: Any) -> str | None:
        """None while the login holds, else why not (checked on the session's own connection)."""
        ...

    def last_document(self) -> str | None: ...

    def remember_document(self, document: str) -> None: ...


def _now() -> datetime:
    return datetime.now(UTC)


class SqliteGate:
    """Failures and lockouts in the project's SQLite file (``login_state``), with their audit events."""

    def __init__(self, engine: Engine, project_id: int) -> None:
        self.engine = engine
        self.project_id = project_id

    def state(self, name: str) -> NameState:
        with db.read(self.engine) as conn:
            row = conn.execute(
                select(S.c.failures, S.c.locked_until).where(
                    S.c.project_id == self.project_id, S.c.name == name
                )
            ).first()
        return NameState(row.failures, aware(row.locked_until)) if row else NameState()

    def failed(self, name: str, reason: str, via: str, max_failures: int, lockout: timedelta) -> NameState:
        now = _now()
        with db.write(self.engine) as conn:
            row = conn.execute(
                select(S.c.id, S.c.failures, S.c.locked_until).where(
                    S.c.project_id == self.project_id, S.c.name == name
                )
            ).first()
            failures = (row.failures if row else 0) + 1
            locked = aware(row.locked_until) if row else None
            newly_locked = failures >= max_failures and not (locked is not None and locked > now)
            if newly_locked:
                locked = now + lockout
            values = {"failures": failures, "locked_until": locked, "updated": now}
            if row is None:
                conn.execute(insert(S).values(project_id=self.project_id, name=name, **values))
            else:
                conn.execute(update(S).where(S.c.id == row.id).values(**values))
            _audit(conn, self.project_id, name, "login_failed", reason=reason, failures=failures, via=via)
            if newly_locked:
                assert locked is not None
                _audit(conn, self.project_id, name, "login_locked", until=locked.isoformat(), via=via)
        return NameState(failures, locked)


class SqlitePerson:
    """A logged-in person on SQLite: their ``login_password`` row must stay as it was at login."""

    def __init__(self, engine: Engine, project_id: int, name: str, login_id: int, generation: int) -> None:
        self.engine = engine
        self.project_id = project_id
        self.name = name
        self.login_id = login_id
        self.generation = generation

    def succeeded(self, name: str, via: str) -> None:
        with db.write(self.engine) as conn:
            conn.execute(
                update(S)
                .where(S.c.project_id == self.project_id, S.c.name == name)
                .values(failures=0, locked_until=None, updated=_now())
            )
            _audit(conn, self.project_id, self.name, "login", via=via)

    def logout(self, reason: str, via: str) -> None:
        with db.write(self.engine) as conn:
            _audit(conn, self.project_id, self.name, "logout", reason=reason, via=via)

    def still_valid(self, conn: Any) -> str | None:
        row = conn.execute(select(PW.c.generation, PW.c.revoked).where(PW.c.id == self.login_id)).first()
        if row is None or row.revoked is not None:
            return "your login was revoked"
        if row.generation != self.generation:
            return "your password was changed"
        return None

    def last_document(self) -> str | None:
        with db.read(self.engine) as conn:
            return conn.execute(
                select(S.c.last_document).where(S.c.project_id == self.project_id, S.c.name == self.name)
            ).scalar()

    def remember_document(self, document: str) -> None:
        with db.write(self.engine) as conn:
            done = conn.execute(
                update(S)
                .where(S.c.project_id == self.project_id, S.c.name == self.name)
                .values(last_document=document, updated=_now())
            ).rowcount
            if not done:
                conn.execute(
                    insert(S).values(
                        project_id=self.project_id, name=self.name, last_document=document, updated=_now()
                    )
                )


def _audit(conn: Any, project_id: int, actor: str, action: str, **detail: Any) -> None:
    conn.execute(
        insert(E).values(
            project_id=project_id, actor=actor, action=action, target=actor, detail=detail, created=_now()
        )
    )


def aware(dt: datetime | None) -> datetime | None:
    """SQLite and some drivers return naive datetimes; a login's lockout times are UTC (a copy of
    ``services.base.aware``: the store sits below the services)."""
    if dt is None:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
