"""Corrections: changes to gold after a release, each with a mandatory reason and author.

Why a record of its own besides the decision: a release's change log must list what changed since the
previous release and why (BioCreative II.5 relabelled two test articles after every system found
them relevant). A correction stores the item before and after, the release it follows, the reason and
the author; it is applied to gold in the same transaction and leaves a ``corrected`` decision.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, insert, select

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.basics.records import Annotations, DocLabel
from corpusdb.services.base import Actor, ServiceBase, aware, utcnow_aware
from corpusdb.services.edits import Put, Remove, apply_changes, dependents, kind_of, next_id
from corpusdb.services.items import item_to_json
from corpusdb.store import tables
from corpusdb.workflow import store
from corpusdb.workflow.types import CorrectionInfo, Item
from guidelines.schema import Schema
from guidelines.validate import validate

C = tables.correction
R = tables.release
A = tables.annotator
D = tables.document
ACTIONS = ("add", "change", "delete")


def latest_release(conn: Connection, project_id: int) -> tuple[int, str] | None:
    row = conn.execute(
        select(R.c.id, R.c.version).where(R.c.project_id == project_id).order_by(R.c.id.desc()).limit(1)
    ).first()
    return (int(row[0]), str(row[1])) if row else None


def _find(ann: Annotations, key: str, kind: str | None) -> tuple[str, Item] | None:
    pools: list[tuple[str, tuple[Any, ...]]] = [
        ("span", ann.spans),
        ("relation", ann.relations),
        ("link", ann.links),
        ("entity", ann.entities),
    ]
    for k, items in pools:
        if kind in (None, k):
            for it in items:
                if it.id == key:
                    return k, it
    if kind in (None, "label"):
        for lb in ann.labels:
            if lb.name == key:
                return "label", lb
    return None


def load_corrections(conn: Connection, project_id: int, *, after_release_id: int | Any | None = ...,
                     document_id: int | None = None) -> list[CorrectionInfo]:  # fmt: skip
    """Corrections in order; ``after_release_id`` filters on the release they follow (None: before any)."""
    rel = R.alias("rel")
    q = (
        select(C.c.id, D.c.external_id, C.c.action, C.c.item_kind, C.c.item_local_id, C.c.before, C.c.after,
               C.c.reason, A.c.name, rel.c.version, C.c.created)
        .join(D, D.c.id == C.c.document_id)
        .join(A, A.c.id == C.c.author_id)
        .outerjoin(rel, rel.c.id == C.c.after_release_id)
        .where(C.c.project_id == project_id)
        .order_by(C.c.id)
    )  # fmt: skip
    if after_release_id is not ...:
        q = q.where(
            C.c.after_release_id.is_(None)
            if after_release_id is None
            else C.c.after_release_id == after_release_id
        )
    if document_id is not None:
        q = q.where(C.c.document_id == document_id)
    return [
        CorrectionInfo(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], aware(r[10]))  # type: ignore[arg-type]
        for r in conn.execute(q)
    ]


class CorrectionsMixin(ServiceBase):
    """Correcting released gold (leads and adjudicators)."""

    def correct(
        self,
        document: str | int,
        *,
        action: str,
        reason: str,
        item: Item | None = None,
        key: str | None = None,
        kind: str | None = None,
        author: str | None = None,
    ) -> CorrectionInfo:
        """Add, change or delete one gold item (a document label too), with a reason and an author.

        ``add``: ``item`` (its id is replaced by a fresh gold id; a label keeps its name).
        ``change``: ``key`` (gold local id or label name) and the new ``item``.
        ``delete``: ``key``; relations, links and notes that point at it must go first.
        ``author`` defaults to the acting user; the database owner must name one.
        """
        self._require("lead", "adjudicator", doing="correct gold")
        if action not in ACTIONS:
            raise UsageError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
        if not reason or not reason.strip():
            raise InvalidInput("a correction needs a reason (it goes into the next release's change log)")
        who = author or self.actor.name
        if who is None:
            raise UsageError(
                "name the author of the correction (--author NAME): the owner is nobody in particular"
            )
        schema = self.schema()  # type: ignore[attr-defined]
        with self._write() as conn:
            author = self._author(conn, who)
            doc_id, cid = self._correct_in(
                conn, document, [(action, item, key, kind)], reason, author, schema
            )[0]
            return next(c for c in load_corrections(conn, self.project_id, document_id=doc_id) if c.id == cid)

    def _author(self, conn: Connection, who: str) -> Actor:
        row = conn.execute(
            select(A.c.id, A.c.role).where(A.c.project_id == self.project_id, A.c.name == who)
        ).first()
        if row is None:
            raise NotFound(f"no annotator named {who!r} in this project")
        return Actor(who, row[1], row[0])

    def _correct_in(
        self,
        conn: Connection,
        document: str | int,
        requests: Sequence[tuple[str, Item | None, str | None, str | None]],
        reason: str,
        author: Actor,
        schema: Schema,
    ) -> list[tuple[int, int]]:
        """Apply ``(action, item, key, kind)`` corrections to one document's gold in the caller's
        transaction (one rewrite of gold; one correction, decision and audit event per item);
        returns ``(document id, correction id)`` of each."""
        doc_id, ext, text = store.document_row(conn, self.project_id, document)
        gold = store.gold_info(conn, self.project_id, self.actor, doc_id)
        if gold is None:
            raise NotFound(f"document {ext} has no gold set to correct")
        ann = store.gold_content(conn, gold)
        used = {d.item_id for d in store.load_decisions(conn, [gold.id]) if d.item_kind != "label"}
        planned = []
        for action, item, key, kind in requests:
            before, after, change, item_kind, item_id = self._plan(ann, action, item, key, kind, used)
            ann, _ = apply_changes(ann, [change])
            used.add(item_id)
            if action != "delete":
                bad = [v for v in validate(schema, ann, text)
                       if v.severity == "error" and (v.item_kind, v.item_id) == (item_kind, item_id)]  # fmt: skip
                if bad:
                    raise InvalidInput(
                        f"{ext}: the corrected {item_kind} breaks the schema: {bad[0].message}"
                    )
            planned.append((action, before, after, item_kind, item_id))
        store.write_gold(conn, gold, ann)
        rel = latest_release(conn, self.project_id)
        out = []
        for action, before, after, item_kind, item_id in planned:
            cid = conn.execute(
                insert(C).values(project_id=self.project_id, document_id=doc_id,
                                 after_release_id=rel[0] if rel else None, item_kind=item_kind,
                                 item_local_id=item_id, action=action, before=before, after=after, reason=reason,
                                 author_id=author.id, created=utcnow_aware()).returning(C.c.id)
            ).scalar_one()  # fmt: skip
            store.add_decision(conn, gold.id, item_kind=item_kind, item_id=item_id, method="corrected",
                               actor=author, sources=[{"correction": int(cid)}], reason=reason)  # fmt: skip
            self._audit(
                conn,
                "correct",
                f"{ext} {item_kind} {item_id}",
                change=action,
                reason=reason,
                author=author.name,
            )
            out.append((doc_id, int(cid)))
        return out

    def _plan(self, ann: Annotations, action: str, item: Item | None, key: str | None, kind: str | None,
              used: set[str]) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None, Any, str, str]:  # fmt: skip
        if action == "add":
            if item is None:
                raise UsageError("adding needs the item")
            k = kind_of(item)
            if isinstance(item, DocLabel):
                if any(lb.name == item.name for lb in ann.labels):
                    raise Conflict(f"gold already has the label {item.name}: change it instead")
                new_item: Item = item
            else:
                new_item = replace(item, id=next_id(ann, k, used), extra={})  # type: ignore[type-var]
            key_out = new_item.name if isinstance(new_item, DocLabel) else new_item.id
            return None, item_to_json(new_item), Put(new_item), k, key_out
        if key is None:
            raise UsageError(f"{action} needs the key of the gold item (its local id, or a label's name)")
        found = _find(ann, key, kind)
        if found is None:
            raise NotFound(f"gold has no {kind or 'item'} {key!r}")
        k, old = found
        if action == "delete":
            deps = dependents(ann, key) if k != "label" else []
            if deps:
                raise InvalidInput(
                    f"{key} is used by {', '.join(d.key for d in deps)}: correct those first (delete or change them)"
                )
            return item_to_json(old), None, Remove(k, key), k, key  # type: ignore[arg-type]
        if item is None:
            raise UsageError("changing needs the new item")
        if kind_of(item) != k:
            raise InvalidInput(f"{key} is a {k}; the new item is a {kind_of(item)}")
        new_item = item if isinstance(item, DocLabel) else replace(item, id=key)  # type: ignore[type-var]
        if isinstance(new_item, DocLabel) and new_item.name != key:
            raise InvalidInput(f"a label keeps its name: {new_item.name!r} is not {key!r}")
        return item_to_json(old), item_to_json(new_item), Put(new_item), k, key

    def corrections(self, document: str | int | None = None) -> list[CorrectionInfo]:
        """Every correction, oldest first."""
        self._require("lead", "adjudicator", doing="read corrections")
        with self._read() as conn:
            doc_id = store.document_row(conn, self.project_id, document)[0] if document is not None else None
            return load_corrections(conn, self.project_id, document_id=doc_id)
