"""Store helpers the workflow mixins share: sources through the gate, the gold set, decisions.

Why one module: conflicts, merge, resolve, review, corrections and releases all need "the sets of
this document this actor may compare" and "this document's gold set and its decisions"; each helper
runs inside the caller's transaction and reads annotation content only through ``corpusdb.services.access``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Connection, insert, select, update

from corpusdb.basics.errors import Conflict, NotFound, PermissionDenied
from corpusdb.basics.records import Annotations, DecisionInfo, SetInfo
from corpusdb.services import access, content
from corpusdb.services.base import Actor, aware, utcnow_aware
from corpusdb.services.sets import bump_version, current_guideline_version, lock_set, read_contents
from corpusdb.store import db, tables
from corpusdb.workflow.types import SourceRef, SourceSet
from corpusdb.workflow.units import Source

S = tables.annotation_set
D = tables.document
A = tables.annotator
DEC = tables.decision

SourceSpec = Sequence[str | int] | None


def document_row(conn: Connection, project_id: int, document: str | int) -> tuple[int, str, str]:
    """(id, external id, text) of a document, or NotFound."""
    q = select(D.c.id, D.c.external_id, D.c.text).where(D.c.project_id == project_id)
    q = q.where(D.c.id == document) if isinstance(document, int) else q.where(D.c.external_id == document)
    row = conn.execute(q).first()
    if row is None:
        raise NotFound(f"no document {document!r} in this project")
    return int(row[0]), str(row[1]), str(row[2])


def ready_documents(conn: Connection, project_id: int, actor: Actor) -> list[tuple[int, str, int]]:
    """(document id, external id, number of annotation sets) of documents whose annotation sets are
    all submitted (at least one), in external-id order."""
    heads = access.set_headers(conn, project_id, actor, kind="annotation")
    by_doc: dict[int, list[SetInfo]] = {}
    for h in heads:
        by_doc.setdefault(h.document_id, []).append(h)
    out = [
        (d, hs[0].document_external_id, len(hs))
        for d, hs in by_doc.items()
        if all(h.status == "submitted" for h in hs)
    ]
    return sorted(out, key=lambda t: t[1])


def require_ready(conn: Connection, project_id: int, actor: Actor, doc_id: int, external_id: str) -> None:
    heads = access.set_headers(conn, project_id, actor, document_ids=[doc_id], kind="annotation")
    _refuse_unready(external_id, heads)


def _refuse_unready(external_id: str, heads: Sequence[SetInfo]) -> None:
    waiting = [h.annotator or "?" for h in heads if h.status != "submitted"]
    if waiting:
        raise PermissionDenied(
            f"document {external_id} is not ready for adjudication: {', '.join(waiting)} "
            "has not submitted yet (annotation sets stay hidden until every annotator has submitted)"
        )


@dataclass(slots=True)
class Loaded:
    """One document with what adjudication needs, read in bulk through the gate."""

    doc_id: int
    external_id: str
    text: str
    sources: list[Source]
    gold: SetInfo | None
    gold_ann: Annotations
    decisions: list[DecisionInfo]


def _chunks(ids: Sequence[int], n: int = 500) -> Iterable[list[int]]:
    for i in range(0, len(ids), n):
        yield list(ids[i : i + n])


def _pick_sources(infos: Sequence[SetInfo], sources: SourceSpec, conn: Connection, project_id: int,
                  actor: Actor) -> list[SetInfo]:  # fmt: skip
    """The sets of one document to compare: its submitted annotation sets, or the named ones."""
    if sources is None:
        chosen = [i for i in infos if i.kind == "annotation" and i.status == "submitted"]
    else:
        chosen = []
        for spec in sources:
            if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
                found = [i for i in infos if i.id == int(spec)]
                if not found:
                    access.readable_set(
                        conn, project_id, actor, int(spec)
                    )  # NotFound / refusal if not readable
                    continue  # a set of another document
            else:
                found = [i for i in infos if i.annotator == spec and i.kind in ("annotation", "prediction")]
                if not found:
                    continue  # this source did not annotate this document
            info = sorted(found, key=lambda i: i.kind)[0]  # an annotation set before a prediction
            if info.kind == "gold":
                raise Conflict("the gold set cannot be one of its own sources")
            if info.kind == "annotation" and info.status != "submitted":
                raise PermissionDenied(f"set {info.id} of {info.annotator} is not submitted")
            chosen.append(info)
        chosen = list({i.id: i for i in chosen}.values())
    return sorted(chosen, key=lambda i: (i.kind != "annotation", i.annotator or "", i.id))


def load_documents(conn: Connection, project_id: int, actor: Actor, documents: Sequence[str | int] | None,
                   sources: SourceSpec = None) -> list[Loaded]:  # fmt: skip
    """The named documents (each must be ready: PermissionDenied otherwise), or every ready one, with
    their sources, gold set and decisions, in a handful of queries whatever their number."""
    if documents is None:
        docs = [(d, ext) for d, ext, _ in ready_documents(conn, project_id, actor)]
    else:
        docs = []
        for d in documents:
            pk, ext, _ = document_row(conn, project_id, d)
            docs.append((pk, ext))
        heads: dict[int, list[SetInfo]] = {}
        for chunk in _chunks([pk for pk, _ in docs]):
            for h in access.set_headers(conn, project_id, actor, document_ids=chunk, kind="annotation"):
                heads.setdefault(h.document_id, []).append(h)
        for pk, ext in docs:
            _refuse_unready(ext, heads.get(pk, []))
    ids = [pk for pk, _ in docs]
    visible: dict[int, list[SetInfo]] = {}
    texts: dict[int, str] = {}
    for chunk in _chunks(ids):
        for info in access.visible_sets(conn, project_id, actor, document_ids=chunk):
            visible.setdefault(info.document_id, []).append(info)
        texts.update(
            {int(r[0]): str(r[1]) for r in conn.execute(select(D.c.id, D.c.text).where(D.c.id.in_(chunk)))}
        )
    chosen = {pk: _pick_sources(visible.get(pk, []), sources, conn, project_id, actor) for pk in ids}
    golds = {pk: next((i for i in visible.get(pk, []) if i.kind == "gold"), None) for pk in ids}
    wanted = [i for pk in ids for i in chosen[pk]] + [g for g in golds.values() if g is not None]
    body = {s.info.id: s.annotations for s in read_contents(conn, wanted)}
    decisions: dict[int, list[DecisionInfo]] = {}
    gold_ids = [g.id for g in golds.values() if g is not None]
    by_gold = {g.id: pk for pk, g in golds.items() if g is not None}
    for gid, d in load_decisions(conn, gold_ids, with_ids=True):
        decisions.setdefault(by_gold[gid], []).append(d)
    return [
        Loaded(
            pk, ext, texts[pk],
            [Source(SourceSet(i.annotator, i.id, i.kind), body[i.id]) for i in chosen[pk]],
            golds[pk], body[golds[pk].id] if golds[pk] is not None else Annotations(),  # type: ignore[union-attr]
            decisions.get(pk, []),
        )
        for pk, ext in docs
    ]  # fmt: skip


def gold_info(conn: Connection, project_id: int, actor: Actor, doc_id: int) -> SetInfo | None:
    found = access.visible_sets(conn, project_id, actor, document_ids=[doc_id], kind="gold")
    return found[0] if found else None


def gold_content(conn: Connection, info: SetInfo | None) -> Annotations:
    if info is None:
        return Annotations()
    return read_contents(conn, [info])[0].annotations


def write_gold(conn: Connection, info: SetInfo, new: Annotations, *, status: str | None = None) -> int:
    """Replace the gold set's content (same transaction) and advance its version."""
    # A concurrent gold writer waits here (not on a unique index) and then finds the version moved on.
    if lock_set(conn, info.id) != info.version:
        bump_version(conn, info.id, info.version)  # raises StaleVersion: ``new`` was built on old content
    content.delete_annotations(conn, [info.id])
    content.insert_annotations(conn, info.id, new)
    values: dict[str, Any] = {}
    if status is not None and status != info.status:
        values["status"] = status
        values["submitted"] = utcnow_aware() if status == "submitted" else None
    return bump_version(conn, info.id, info.version, **values)


@dataclass(slots=True)
class GoldWrite:
    """The new state of one document's gold set and the decisions that made it (see ``write_golds``)."""

    doc_id: int
    set_id: int | None
    """None: the gold set does not exist yet."""
    status: str
    old_status: str | None
    content: Annotations
    changed: bool
    decisions: list[tuple[Any, ...]]
    """(item kind, gold local id or '', method, decided by, sources, reason[, before, after]), in order."""
    superseded: list[tuple[int, int]] = field(default_factory=list)
    """(id of a decision no longer in force, index in ``decisions`` of the one that revised or undid it)."""
    version: int | None = None
    """The gold set's version this write was built on (None: unchecked); another writer's commit
    since then makes ``write_golds`` raise ``GoldRaced`` instead of overwriting it."""


class GoldRaced(Conflict):
    """Another writer changed (or created) this gold set after the caller read it: nothing of this
    write is kept. Callers that decide from a fresh reading (``resolve``, ``merge``...) read again
    and retry, so the loser of a race sees the winner's decisions instead of overwriting them."""

    def __init__(self, documents: Sequence[int], *, created: bool = False) -> None:
        what = "created" if created else "changed"
        super().__init__(
            f"the gold set of {len(documents)} document(s) was {what} by another writer meanwhile; "
            "nothing of this change was saved: read it again and decide again"
        )
        self.documents = tuple(documents)


def _check_versions(conn: Connection, writes: Sequence[GoldWrite]) -> None:
    """Compare-and-set, first half: lock the gold rows about to be written and check each is still
    at the version its write was built on. On PostgreSQL (read committed) a concurrent writer waits
    here for the first one's commit and then sees the new version; on SQLite writers already queue
    at ``BEGIN IMMEDIATE``, so this only confirms what was read."""
    want = {w.set_id: w for w in writes if w.set_id is not None and w.version is not None}
    moved: list[int] = []
    for chunk in _chunks(sorted(want)):  # type: ignore[arg-type]
        q = select(S.c.id, S.c.version).where(S.c.id.in_(chunk)).order_by(S.c.id).with_for_update()
        now = {int(r[0]): r[1] for r in conn.execute(q)}
        moved += [want[i].doc_id for i in chunk if now.get(i) != want[i].version]
    if moved:
        raise GoldRaced(moved)


GOLD_SET_COLS = ("id", "document_id", "annotator_id", "kind", "status", "guideline_version", "version",
                 "created", "updated", "submitted", "extra")  # fmt: skip
DECISION_COLS = ("id", "gold_set_id", "item_kind", "item_local_id", "method", "decided_by_id", "sources", "reason",
                 "created", "before", "after")  # fmt: skip


def write_golds(conn: Connection, project_id: int, writes: Sequence[GoldWrite]) -> list[list[int]]:
    """Write many gold sets and their decisions in a few statements (inside the caller's transaction):
    create the missing sets, rewrite changed contents, advance versions, insert decisions. Returns the
    new decision ids, per write."""
    now = utcnow_aware()
    ts = db.timestamp_param(conn, now)
    _check_versions(conn, writes)
    new = [w for w in writes if w.set_id is None]
    gv = current_guideline_version(conn, project_id) if new else 0
    for w, pk in zip(new, db.allocate_ids(conn, "annotation_set", len(new)), strict=True):
        w.set_id = pk
    try:
        db.executemany(conn, "annotation_set", GOLD_SET_COLS, [
            (w.set_id, w.doc_id, None, "gold", w.status, gv, 1, ts, ts, ts if w.status == "submitted" else None,
             orjson.dumps(dict(w.content.extra)).decode() if w.content.extra else None)
            for w in new
        ])  # fmt: skip
    except Exception as exc:  # one gold set per document: another writer created it meanwhile
        if not db.unique_violation(exc):
            raise
        raise GoldRaced([w.doc_id for w in new], created=True) from exc
    fresh = {id(w) for w in new}
    old = [w for w in writes if id(w) not in fresh and (w.changed or w.status != w.old_status or w.decisions)]
    content.delete_annotations(conn, [w.set_id for w in old if w.changed])  # type: ignore[misc]
    content.insert_many(conn, [(w.set_id, w.content) for w in writes if w.changed or id(w) in fresh])  # type: ignore[misc]
    for status in {w.status for w in old}:
        ids = [w.set_id for w in old if w.status == status]
        for chunk in _chunks(ids):  # type: ignore[arg-type]
            conn.execute(
                update(S).where(S.c.id.in_(chunk))
                .values(version=S.c.version + 1, updated=now, status=status,
                        submitted=now if status == "submitted" else None)
            )  # fmt: skip
    rows = [(w.set_id, d) for w in writes for d in w.decisions]
    ids = db.allocate_ids(conn, "decision", len(rows))
    db.executemany(conn, "decision", DECISION_COLS, [
        (pk, gid, d[0], d[1], d[2], d[3], orjson.dumps(d[4]).decode(), d[5], ts, *(_js(x) for x in d[6:8]),
         *((None,) * (8 - len(d))))
        for pk, (gid, d) in zip(ids, rows, strict=True)
    ])  # fmt: skip
    out: list[list[int]] = []
    it = iter(ids)
    for w in writes:
        out.append([next(it) for _ in w.decisions])
    for w, new_ids in zip(writes, out, strict=True):
        for old_id, k in w.superseded:
            conn.execute(update(DEC).where(DEC.c.id == old_id).values(superseded_by_id=new_ids[k]))
    return out


def _js(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


# -- decisions ----------------------------------------------------------------------------------------


def add_decision(conn: Connection, gold_set_id: int, *, item_kind: str, item_id: str, method: str,
                 actor: Actor, sources: Iterable[SourceRef | dict[str, Any]], reason: str | None) -> int:  # fmt: skip
    """Record how a gold item was decided; ``item_id`` '' records a refusal (no gold item)."""
    src = [s.to_dict() if isinstance(s, SourceRef) else dict(s) for s in sources]
    return int(
        conn.execute(
            insert(DEC)
            .values(gold_set_id=gold_set_id, item_kind=item_kind, item_local_id=item_id, method=method,
                    decided_by_id=actor.id, sources=src, reason=reason, created=utcnow_aware())
            .returning(DEC.c.id)
        ).scalar_one()
    )  # fmt: skip


def load_decisions(conn: Connection, gold_set_ids: Sequence[int], *, with_ids: bool = False) -> list[Any]:
    """Decisions of these gold sets, oldest first (``with_ids``: as (gold set id, decision) pairs)."""
    if not gold_set_ids:
        return []
    out: list[Any] = []
    for chunk in _chunks(list(gold_set_ids)):
        q = (
            select(DEC.c.id, D.c.external_id, DEC.c.item_kind, DEC.c.item_local_id, DEC.c.method, A.c.name,
                   DEC.c.sources, DEC.c.reason, DEC.c.created, DEC.c.gold_set_id, DEC.c.superseded_by_id,
                   DEC.c.before, DEC.c.after)
            .join(S, S.c.id == DEC.c.gold_set_id)
            .join(D, D.c.id == S.c.document_id)
            .outerjoin(A, A.c.id == DEC.c.decided_by_id)
            .where(DEC.c.gold_set_id.in_(chunk))
        )  # fmt: skip
        for r in conn.execute(q):
            info = DecisionInfo(
                id=r[0], document_external_id=r[1], item_kind=r[2], item_id=r[3], method=r[4], decided_by=r[5],
                sources=tuple(r[6] or ()), reason=r[7], created=aware(r[8]),  # type: ignore[arg-type]
                superseded_by=r[10], before=r[11], after=r[12],
            )  # fmt: skip
            out.append((r[9], info))
    out.sort(key=lambda x: x[1].id)
    return out if with_ids else [d for _, d in out]


def decided_index(decisions: Sequence[DecisionInfo]) -> dict[tuple[int, str], DecisionInfo]:
    """(source set id, source local id) -> the decision in force that used that source item."""
    out: dict[tuple[int, str], DecisionInfo] = {}
    for d in decisions:
        if not d.in_force:
            continue
        for s in d.sources:
            if "set_id" in s and s.get("local_id"):
                out[(int(s["set_id"]), str(s["local_id"]))] = d
    return out


def latest_by_item(decisions: Sequence[DecisionInfo]) -> dict[tuple[str, str], DecisionInfo]:
    """(item kind, gold local id) -> the decision that produced the item as it is now."""
    out: dict[tuple[str, str], DecisionInfo] = {}
    for d in decisions:
        if d.item_id and d.in_force:
            out[(d.item_kind, d.item_id)] = d
    return out
