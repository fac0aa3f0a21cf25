"""Corpus hygiene: delete a document, an annotation set, or an annotator created by mistake (a typo).

Why hard deletes with a trail rather than discard flags: every reader (blindness gate, agreement,
exports, the TUI) would have to learn to skip discarded rows, and one forgotten filter would bring
deleted data back; a delete is final in one transaction, and the project's audit trail records who
deleted what, when, why and how much went with it. Releases are untouched: a release keeps its own
snapshot, so it re-exports byte for byte after any delete, and the next release's change log lists
what disappeared.

A whole project goes only with its name typed again, only when it has no release (releases are never
deleted: export them first, or keep the project), and only with an archive file: the project's whole
audit trail, ending with the delete itself, is written there first (the trail lives in the project,
so it cannot stay in the database once the project is gone).

Refusals: only leads delete; every delete needs a reason; an annotator who has decided gold items or
made corrections cannot be deleted (their decisions are provenance); an annotator with sets is deleted
only with ``with_sets=True``, which deletes those sets too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select

from corpusdb.basics.errors import Conflict, NotFound, PermissionDenied, UsageError
from corpusdb.services.base import ServiceBase
from corpusdb.store import rls, tables

D = tables.document
S = tables.annotation_set
A = tables.annotator
DEC = tables.decision
COR = tables.correction
E = tables.audit_event


@dataclass(frozen=True, slots=True)
class Deleted:
    """What one delete removed."""

    what: str
    target: str
    sets: int
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"deleted": self.what, "target": self.target, "sets": self.sets, "reason": self.reason}

    def summary(self) -> str:
        return (
            f"deleted {self.what} {self.target} ({self.sets} annotation sets with it); reason: {self.reason}"
        )


def _reason(reason: str) -> str:
    if not reason or not reason.strip():
        raise UsageError("say why (--reason): the audit trail records every delete")
    return reason.strip()


def _count_sets(conn: Connection, where: Any) -> int:
    return int(conn.execute(select(func.count()).select_from(S).where(where)).scalar_one())


class HygieneMixin(ServiceBase):
    """Deleting what should not be there (leads); recorded in the audit trail, releases untouched."""

    def delete_document(self, external_id: str, *, reason: str) -> Deleted:
        """Delete a document with all its annotation sets and gold (one transaction)."""
        self._require("lead", doing="delete documents")
        why = _reason(reason)
        with self._write() as conn:
            pk = conn.execute(
                select(D.c.id).where(D.c.project_id == self.project_id, D.c.external_id == external_id)
            ).scalar()
            if pk is None:
                raise NotFound(f"no document {external_id!r} in this project")
            n = _count_sets(conn, S.c.document_id == pk)
            rls.delete_rows(conn, D, D.c.id == pk)
            self._audit(conn, "delete_document", external_id, sets=n, reason=why)
        return Deleted("document", external_id, n, why)

    def delete_set(self, set_id: int, *, reason: str) -> Deleted:
        """Delete one annotation set (an annotator's, a prediction or a gold set with its decisions)."""
        self._require("lead", doing="delete annotation sets")
        why = _reason(reason)
        with self._write() as conn:
            row = conn.execute(
                select(S.c.id, D.c.external_id, A.c.name, S.c.kind)
                .join(D, D.c.id == S.c.document_id)
                .outerjoin(A, A.c.id == S.c.annotator_id)
                .where(S.c.id == set_id, D.c.project_id == self.project_id)
            ).first()  # fmt: skip
            if row is None:
                raise NotFound(f"no annotation set {set_id} in this project")
            rls.delete_rows(conn, S, S.c.id == set_id)
            self._audit(
                conn, "delete_set", str(set_id), document=row[1], annotator=row[2], kind=row[3], reason=why
            )
        return Deleted("set", str(set_id), 1, why)

    def delete_annotator(self, name: str, *, reason: str, with_sets: bool = False) -> Deleted:
        """Delete an annotator (e.g. one created by a typo); their sets go too only with ``with_sets``."""
        self._require("lead", doing="delete annotators")
        why = _reason(reason)
        with self._write() as conn:
            pk = conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == name)
            ).scalar()
            if pk is None:
                raise NotFound(f"no annotator {name!r} in this project")
            if pk == self.actor.id:
                raise Conflict("you cannot delete yourself")
            decided = conn.execute(
                select(func.count()).select_from(DEC).where(DEC.c.decided_by_id == pk)
            ).scalar_one()
            corrected = conn.execute(
                select(func.count()).select_from(COR).where(COR.c.author_id == pk)
            ).scalar_one()
            if decided or corrected:
                raise Conflict(
                    f"{name} decided {decided} gold items and made {corrected} corrections: their provenance "
                    "must stay, so they cannot be deleted"
                )
            n = _count_sets(conn, S.c.annotator_id == pk)
            if n and not with_sets:
                raise Conflict(
                    f"{name} has {n} annotation sets: delete them too with --with-sets, or keep {name}"
                )
            rls.delete_rows(conn, S, S.c.annotator_id == pk)
            rls.delete_rows(conn, A, A.c.id == pk)
            self._audit(conn, "delete_annotator", name, sets=n, reason=why)
        return Deleted("annotator", name, n, why)

    def delete_project(self, *, confirm: str, reason: str, archive: str | os.PathLike[str]) -> Deleted:
        """Delete this whole project (one transaction) after writing its audit trail to ``archive``
        (JSON); refused when ``confirm`` is not the project's name or the project has releases."""
        import json

        self._require("lead", doing="delete the project")
        if self.actor.name is not None:
            raise PermissionDenied("only the database owner (no --as) may delete a whole project")
        why = _reason(reason)
        target = os.fspath(archive)
        if os.path.exists(target):
            raise Conflict(f"{target} exists: choose a new archive file")
        with self._write() as conn:
            name = conn.execute(
                select(tables.project.c.name).where(tables.project.c.id == self.project_id)
            ).scalar_one()
            if confirm != name:
                raise UsageError(f"type the project's name to delete it (--confirm {name})")
            rel = conn.execute(select(func.count()).select_from(tables.release)
                               .where(tables.release.c.project_id == self.project_id)).scalar_one()  # fmt: skip
            if rel:
                raise Conflict(
                    f"project {name} has {rel} releases, which are never deleted; keep the project"
                )
            n = _count_sets(
                conn, S.c.document_id.in_(select(D.c.id).where(D.c.project_id == self.project_id))
            )
            self._audit(conn, "delete_project", name, sets=n, reason=why)
            trail = [
                {"actor": r.actor, "action": r.action, "target": r.target, "detail": r.detail,
                 "created": r.created.isoformat()}
                for r in conn.execute(select(E).where(E.c.project_id == self.project_id).order_by(E.c.id))
            ]  # fmt: skip
            with open(target, "x", encoding="utf-8") as fh:
                json.dump({"project": name, "audit": trail}, fh, indent=1, ensure_ascii=False)
            # children first: sets name annotators without ON DELETE, so documents (and their sets) go first
            rls.delete_rows(conn, D, D.c.project_id == self.project_id)
            for table in (COR, E, tables.release, A, tables.guideline):
                rls.delete_rows(conn, table, table.c.project_id == self.project_id)
            rls.delete_rows(conn, tables.project, tables.project.c.id == self.project_id)
        return Deleted("project", name, n, why)
