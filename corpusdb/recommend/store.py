"""Suggestion rows: read, refresh with a model's proposals, insert a system's, and change status.

Every function runs inside the caller's transaction. Callers pass set ids the blindness gate cleared
(``corpusdb.services.access``); on PostgreSQL the ``suggestion`` table is ``SET_OWNED`` in ``corpusdb.store.rls``,
so the server applies the set's rules too. Status changes come only through ``corpusdb.services.suggestion_marks.apply_marks``, called
by ``Corpus.edit_set`` for the ``Mark`` changes of an action (so an accept and the item it makes are
one action, one transaction and one undo step).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, insert, select, update

from corpusdb.recommend.matcher import Proposal
from corpusdb.recommend.records import STATUSES, Suggestion
from corpusdb.services.base import utcnow_aware
from corpusdb.store import rls, tables

SG = tables.suggestion
RC = tables.recommender
S = tables.annotation_set
D = tables.document


def span_key(typ: str, fragments: Sequence[Sequence[int]]) -> str:
    return f"span:{typ}:" + ";".join(f"{a}-{b}" for a, b in fragments)


def _record(r: Any) -> Suggestion:
    frags = (
        tuple((int(a), int(b)) for a, b in r.fragments)
        if r.fragments
        else (((int(r.start), int(r.stop)),) if r.start >= 0 else ())
    )
    return Suggestion(
        id=int(r.id),
        set_id=int(r.set_id),
        document=str(r.external_id),
        recommender=str(r.name),
        version=str(r.version),
        kind=str(r.kind),
        type=str(r.type),
        fragments=frags,
        text=str(r.text),
        score=float(r.score),
        status=str(r.status),
        item=r.item_local_id,
        payload=r.payload or None,
    )


def _query():  # type: ignore[no-untyped-def]
    return (
        select(
            SG.c.id,
            SG.c.set_id,
            D.c.external_id,
            RC.c.name,
            SG.c.version,
            SG.c.kind,
            SG.c.type,
            SG.c.start,
            SG.c.stop,
            SG.c.fragments,
            SG.c.text,
            SG.c.score,
            SG.c.status,
            SG.c.item_local_id,
            SG.c.payload,
            SG.c.recommender_id,
            SG.c.key,
        )
        .join(RC, RC.c.id == SG.c.recommender_id)
        .join(S, S.c.id == SG.c.set_id)
        .join(D, D.c.id == S.c.document_id)
    )


def read(conn: Connection, set_ids: Sequence[int], *, status: str | None = None) -> list[Suggestion]:
    """The suggestions of these sets (already cleared by the gate), by set and position."""
    out: list[Suggestion] = []
    ids = list(set_ids)
    for i in range(0, len(ids), 500):
        q = _query().where(SG.c.set_id.in_(ids[i : i + 500]))
        if status is not None:
            q = q.where(SG.c.status == status)
        out += [_record(r) for r in conn.execute(q)]
    out.sort(key=lambda s: (s.set_id, s.start, s.end, s.type, s.recommender))
    return out


def _row(
    set_id: int, recommender_id: int, version: str, p: Proposal, now: Any, payload: Any = None
) -> dict[str, Any]:
    one = len(p.fragments) == 1
    return {
        "set_id": set_id,
        "recommender_id": recommender_id,
        "version": version,
        "kind": "span",
        "key": span_key(p.type, p.fragments),
        "type": p.type,
        "start": p.start,
        "stop": p.end,
        "fragments": None if one else [list(f) for f in p.fragments],
        "text": p.text,
        "score": float(p.score),
        "payload": payload,
        "status": "open",
        "created": now,
    }


def refresh(
    conn: Connection, set_id: int, recommender_id: int, version: str, proposals: Iterable[Proposal]
) -> bool:
    """Make the set's open suggestions of one recommender what it proposes now: new ones added, open
    ones no longer proposed removed, the rest given the new score and version. Accepted and rejected
    ones are kept and never proposed again. Returns whether anything changed."""
    rows = conn.execute(
        select(SG.c.id, SG.c.key, SG.c.status, SG.c.version, SG.c.score).where(
            SG.c.set_id == set_id, SG.c.recommender_id == recommender_id
        )
    ).all()
    have = {r.key: r for r in rows}
    now = utcnow_aware()
    want: dict[str, Proposal] = {}
    for p in proposals:
        want.setdefault(span_key(p.type, p.fragments), p)
    gone = [r.id for r in rows if r.status == "open" and r.key not in want]
    new = [_row(set_id, recommender_id, version, p, now) for k, p in want.items() if k not in have]
    changed = [
        (have[k].id, p.score)
        for k, p in want.items()
        if k in have and have[k].status == "open" and (have[k].version != version or have[k].score != p.score)
    ]
    if gone:
        rls.delete_rows(conn, SG, SG.c.id.in_(gone))  # team logins delete only through the server's rules
    if new:
        conn.execute(insert(SG), new)
    for sid, score in changed:
        conn.execute(update(SG).where(SG.c.id == sid).values(version=version, score=float(score)))
    return bool(gone or new or changed)


def add(
    conn: Connection, set_id: int, recommender_id: int, version: str, proposals: Iterable[Proposal]
) -> int:
    """Add proposals a set does not have yet (a system's predictions at assignment); returns how many."""
    have = set(
        conn.execute(
            select(SG.c.key).where(SG.c.set_id == set_id, SG.c.recommender_id == recommender_id)
        ).scalars()
    )
    now = utcnow_aware()
    rows = []
    for p in proposals:
        k = span_key(p.type, p.fragments)
        if k not in have:
            have.add(k)
            rows.append(_row(set_id, recommender_id, version, p, now))
    if rows:
        conn.execute(insert(SG), rows)
    return len(rows)


def relation_key(typ: str, args: Sequence[Mapping[str, Any]]) -> str:
    return f"relation:{typ}:" + ";".join(
        f"{a['role']}={a['type']}@" + ",".join(f"{x}-{y}" for x, y in a["fragments"]) for a in args
    )


def add_relations(
    conn: Connection, set_id: int, recommender_id: int, version: str, relations: Iterable[Mapping[str, Any]]
) -> int:
    """Add relation proposals a set does not have yet: each ``{type, args [{role, type, fragments,
    text}], label, tags, kind, score}``, its arguments named by place and type (the set's own spans
    have other ids). Returns how many."""
    have = set(
        conn.execute(
            select(SG.c.key).where(SG.c.set_id == set_id, SG.c.recommender_id == recommender_id)
        ).scalars()
    )
    now = utcnow_aware()
    rows = []
    for r in relations:
        k = relation_key(r["type"], r["args"])
        if k in have:
            continue
        have.add(k)
        rows.append(_relation_row(set_id, recommender_id, version, r, now))
    if rows:
        conn.execute(insert(SG), rows)
    return len(rows)


def _relation_row(
    set_id: int, recommender_id: int, version: str, r: Mapping[str, Any], now: Any
) -> dict[str, Any]:
    payload = {"args": [dict(a) for a in r["args"]], "label": r.get("label"), "tags": list(r.get("tags") or ()),
               "relation_kind": r.get("kind", "relation")}  # fmt: skip
    return {
        "set_id": set_id, "recommender_id": recommender_id, "version": version, "kind": "relation",
        "key": relation_key(r["type"], r["args"]), "type": r["type"], "start": -1, "stop": -1, "fragments": None,
        "text": " → ".join(str(a.get("text", "")) for a in r["args"]), "score": float(r.get("score", 1.0)),
        "payload": payload, "status": "open", "created": now,
    }  # fmt: skip


def refresh_relations(
    conn: Connection, set_id: int, recommender_id: int, version: str, relations: Iterable[Mapping[str, Any]]
) -> bool:
    """``refresh`` for a relation recommender: its open relation suggestions on the set become what
    it proposes now (accepted and rejected ones are kept, never proposed again)."""
    rows = conn.execute(
        select(SG.c.id, SG.c.key, SG.c.status, SG.c.version, SG.c.score).where(
            SG.c.set_id == set_id, SG.c.recommender_id == recommender_id
        )
    ).all()
    have = {r.key: r for r in rows}
    now = utcnow_aware()
    want: dict[str, Mapping[str, Any]] = {}
    for r in relations:
        want.setdefault(relation_key(r["type"], r["args"]), r)
    gone = [r.id for r in rows if r.status == "open" and r.key not in want]
    new = [_relation_row(set_id, recommender_id, version, r, now) for k, r in want.items() if k not in have]
    changed = [
        (have[k].id, float(r.get("score", 1.0)))
        for k, r in want.items()
        if k in have
        and have[k].status == "open"
        and (have[k].version != version or have[k].score != float(r.get("score", 1.0)))
    ]
    if gone:
        rls.delete_rows(conn, SG, SG.c.id.in_(gone))  # team logins delete only through the server's rules
    if new:
        conn.execute(insert(SG), new)
    for sid, score in changed:
        conn.execute(update(SG).where(SG.c.id == sid).values(version=version, score=score))
    return bool(gone or new or changed)


def counts(conn: Connection, set_ids: Sequence[int]) -> dict[int, dict[str, int]]:
    """Per set: how many suggestions are open, accepted, rejected."""
    from sqlalchemy import func

    out: dict[int, dict[str, int]] = {}
    ids = list(set_ids)
    for i in range(0, len(ids), 500):
        q = (
            select(SG.c.set_id, SG.c.status, func.count())
            .where(SG.c.set_id.in_(ids[i : i + 500]))
            .group_by(SG.c.set_id, SG.c.status)
        )
        for sid, status, n in conn.execute(q):
            out.setdefault(int(sid), dict.fromkeys(STATUSES, 0))[str(status)] = int(n)
    return out
