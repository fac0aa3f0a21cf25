"""The project's trail: every recorded action (assign, reopen with its reason, guideline amendments,
imports, releases...) read back for leads and adjudicators."""

from __future__ import annotations

from sqlalchemy import select

from corpusdb.basics.records import AuditEvent
from corpusdb.services.base import ServiceBase, aware
from corpusdb.store import tables

E = tables.audit_event


class HistoryMixin(ServiceBase):
    def history(
        self,
        *,
        action: str | None = None,
        target: str | None = None,
        actor: str | None = None,
        limit: int = 100,
    ) -> list[AuditEvent]:
        """The newest recorded actions first, filtered as asked. Leads and adjudicators only: the
        trail names sets and who touched them, which annotators must not learn from each other."""
        self._require("lead", "adjudicator", doing="read the project's history")
        q = select(E).where(E.c.project_id == self.project_id)
        if action is not None:
            q = q.where(E.c.action == action)
        if target is not None:
            q = q.where(E.c.target == target)
        if actor is not None:
            q = q.where(E.c.actor == actor)
        q = q.order_by(E.c.id.desc()).limit(max(1, limit))
        with self._read() as conn:
            rows = conn.execute(q).all()
        return [AuditEvent(r.id, r.actor, r.action, r.target, r.detail or {}, aware(r.created)) for r in rows]  # type: ignore[arg-type]
