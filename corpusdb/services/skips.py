"""Skipping a document as irrelevant: an annotator's flag on their own set, with a reason.

Why a flag beside the set (table ``set_skip``) rather than a new set status: the set still goes
through the usual life (in progress, submitted, reopened by a lead); the skip only says "this
document should not be annotated, because ...". BB 2011 removed such documents from the corpus.
Decisions: the annotator may set or lift it until the set is submitted (after that a lead reopens
the set first); a document skipped by any annotator (skip submitted) is left out of agreement and
of releases, and listed with the reasons in ``corpusdb status``, the lead view and the manifest.
Blindness: a skip is part of the annotator's work: they see their own; adjudicators and leads see
it once the set is submitted (as they see its content), and only submitted skips exclude documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, insert, select, update

from corpusdb.basics.errors import Conflict, InvalidInput, PermissionDenied
from corpusdb.basics.records import SetInfo
from corpusdb.services import access
from corpusdb.services.base import Actor, ServiceBase, aware, utcnow_aware
from corpusdb.store import rls, tables

K = tables.set_skip
S = tables.annotation_set


@dataclass(frozen=True, slots=True)
class Skip:
    """One annotator's skip of one document."""

    document: str
    annotator: str
    set_id: int
    status: str
    reason: str
    created: datetime


def skipped_documents(conn: Connection, set_ids: Sequence[int]) -> dict[int, str]:
    """Set id -> reason, for those of ``set_ids`` that are skipped (no blindness: internal)."""
    out: dict[int, str] = {}
    ids = list(set_ids)
    for i in range(0, len(ids), 500):
        for sid, reason in conn.execute(
            select(K.c.set_id, K.c.reason).where(K.c.set_id.in_(ids[i : i + 500]))
        ):
            out[int(sid)] = str(reason)
    return out


def skipped_document_ids(
    conn: Connection, project_id: int, actor: Actor | None = None
) -> dict[int, list[tuple[str, str]]]:
    """Document id -> [(annotator, reason)] for the documents of the project an annotator skipped
    and submitted (before submission a skip is a draft its annotator may still lift).

    With an ``actor`` who is an annotator, only their own skips (blindness: another annotator's
    judgement of a document is theirs)."""
    D, A = tables.document, tables.annotator
    rows = conn.execute(
        select(S.c.document_id, A.c.name, K.c.reason)
        .join(S, S.c.id == K.c.set_id)
        .join(D, D.c.id == S.c.document_id)
        .outerjoin(A, A.c.id == S.c.annotator_id)
        .where(D.c.project_id == project_id, S.c.status == "submitted")
        .order_by(S.c.document_id, A.c.name)
    ).all()
    own_only = actor is not None and actor.role in ("annotator", "system")
    out: dict[int, list[tuple[str, str]]] = {}
    for doc_id, name, reason in rows:
        if own_only and name != actor.name:  # type: ignore[union-attr]
            continue
        out.setdefault(int(doc_id), []).append((str(name), str(reason)))
    return out


def excluded_list(
    conn: Connection, project_id: int, skipped: dict[int, list[tuple[str, str]]]
) -> list[dict[str, object]]:
    """The skipped documents as listed in reports and manifests: id, then who skipped and why."""
    D = tables.document
    if not skipped:
        return []
    names = dict(conn.execute(select(D.c.id, D.c.external_id).where(D.c.id.in_(list(skipped)))).all())
    return sorted(
        (
            {"document": names[d], "skipped_by": [{"annotator": a, "reason": r} for a, r in why]}
            for d, why in skipped.items()
            if d in names
        ),
        key=lambda x: str(x["document"]),
    )


class SkipsMixin(ServiceBase):
    """Flag my set's document as irrelevant (with a reason), lift the flag, list the flags."""

    def _own_open_set(self, conn: Connection, set_id: int, doing: str) -> SetInfo:
        info = access.readable_set(conn, self.project_id, self.actor, set_id)
        if info.kind != "annotation" or info.annotator != self.actor.name:
            raise PermissionDenied(f"only the set's annotator may {doing} (set {set_id})")
        if info.status == "submitted":
            raise Conflict(f"set {set_id} is submitted: a lead reopens it before its skip can change")
        return info

    def skip(self, set_id: int, reason: str) -> Skip:
        """Flag my set's document as irrelevant; ``reason`` is required (it is shown to the lead)."""
        why = " ".join((reason or "").split())
        if not why:
            raise InvalidInput("skipping a document needs a reason (why is it irrelevant?)")
        with self._write() as conn:
            info = self._own_open_set(conn, set_id, "skip its document")
            now = utcnow_aware()
            done = conn.execute(update(K).where(K.c.set_id == set_id).values(reason=why, created=now))
            if done.rowcount == 0:
                conn.execute(insert(K).values(set_id=set_id, reason=why, created=now))
            if info.status == "assigned":
                conn.execute(update(S).where(S.c.id == set_id).values(status="in_progress"))
            # The reason stays in set_skip (blind until submission), not in the project's trail.
            self._audit(conn, "skip", str(set_id), document=info.document_external_id)
            return Skip(info.document_external_id, self.actor.label, set_id, info.status, why, now)

    def unskip(self, set_id: int) -> None:
        """Lift my skip (until the set is submitted)."""
        with self._write() as conn:
            info = self._own_open_set(conn, set_id, "lift its skip")
            if rls.delete_rows(conn, K, K.c.set_id == set_id) == 0:
                raise Conflict(f"{info.document_external_id} is not skipped")
            self._audit(conn, "unskip", str(set_id), document=info.document_external_id)

    def skips(self, *, document: str | None = None) -> list[Skip]:
        """Skips this user may see: an annotator their own, adjudicators and leads every one."""
        with self._read() as conn:
            # The sets this user may read: an annotator's own; for others, submitted sets (a skip is
            # the annotator's judgement, blind like their content until submitted; RLS agrees). One
            # query driven by the skips, not every header: `status` asks on every run (issue #26).
            found = access.visible_joined(
                conn, self.project_id, self.actor, K, K.c.set_id, (K.c.reason, K.c.created), kind="annotation"
            )
        out = []
        for h, (reason, created) in found:
            if document is not None and h.document_external_id != document:
                continue
            when = aware(created) or utcnow_aware()
            out.append(Skip(h.document_external_id, h.annotator or "", h.id, h.status, reason, when))
        return sorted(out, key=lambda s: (s.document, s.annotator))
