"""What every part of the Python API shares: the engine, the project, the acting user, transactions.

Why: the facade ``corpusdb.api.Corpus`` is assembled from small mixins (projects, documents, sets,
workflow, interchange, agreement), one module each. They all need the same few things, kept here
so no mixin reaches past them to the engine or to another mixin's tables.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection, Engine, insert

from corpusdb.basics.errors import PermissionDenied
from corpusdb.store import db, tables


@dataclass(frozen=True, slots=True)
class Actor:
    """Who is acting. ``name`` None is the database owner (a lead running scripts or the CLI)."""

    name: str | None
    role: str
    id: int | None = None

    @property
    def label(self) -> str:
        return self.name if self.name is not None else "owner"

    @property
    def is_lead(self) -> bool:
        return self.role == "lead"

    @property
    def can_adjudicate(self) -> bool:
        return self.role in ("lead", "adjudicator")


OWNER = Actor(None, "lead")


def utcnow_aware() -> datetime:
    return datetime.now(UTC)


def aware(dt: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes; every datetime leaving the API is UTC-aware."""
    if dt is None:
        return None
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


class ServiceBase:
    """State shared by the API mixins. Subclasses add intent-named methods; nothing else."""

    engine: Engine
    project_id: int
    actor: Actor

    def __init__(self, engine: Engine, project_id: int, actor: Actor = OWNER) -> None:
        self.engine = engine
        self.project_id = project_id
        self.actor = actor

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with db.read(self.engine) as conn:
            yield conn

    @contextmanager
    def _write(self, *, holder: str | None = None) -> Iterator[Connection]:
        with db.write(self.engine, holder=holder) as conn:
            yield conn

    def _require(self, *roles: str, doing: str) -> None:
        if self.actor.role not in roles:
            raise PermissionDenied(
                f"{self.actor.label} ({self.actor.role}) may not {doing}; it needs the role {' or '.join(roles)}"
            )

    def _audit(self, conn: Connection, action: str, target: str = "", **detail: Any) -> None:
        conn.execute(
            insert(tables.audit_event).values(
                project_id=self.project_id,
                actor=self.actor.label,
                action=action,
                target=target,
                detail=detail or None,
                created=datetime.now(UTC),
            )
        )
