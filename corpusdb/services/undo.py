"""Undo and redo stacks kept in the database, per annotation set (table ``edit_history``).

Why in the store: the TUI's undo is an edit like any other (``corpusdb.services.edits``); keeping the stacks
next to the content, written in the same transaction as the action (``Corpus.edit_set(...,
history=...)``), means undo survives closing the app and never disagrees with the set: an edit
made outside the stacks (a script's ``edit_set`` without ``history``, a lead's ``replace_set``)
clears them, since their inverses no longer apply. The stacks are kept across submission: a set
reopened by a lead continues where its annotator stopped. Length is bounded (``LIMIT`` entries).

Blindness: only the set's owner reads its stacks (``Corpus.edit_history``); on PostgreSQL the
table is ``SET_OWNED`` (``corpusdb.store.rls``), so row-level security follows the set's readers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from sqlalchemy import Connection, func, insert, select

from corpusdb.basics.errors import InvalidInput
from corpusdb.services.base import utcnow_aware
from corpusdb.services.edits import Change, Mark, Put, Remove
from corpusdb.store import rls, tables

H = tables.edit_history
LIMIT = 200
"""Undo entries kept per set (the oldest go first)."""
Mode = Literal["do", "undo", "redo"]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One stack entry: what the action was, and the changes that revert it (undo stack) or repeat
    it (redo stack)."""

    description: str
    changes: tuple[Change, ...]
    version: int


@dataclass(frozen=True, slots=True)
class EditHistory:
    """A set's stacks, oldest first (the last entry is undone or redone next)."""

    undo: tuple[HistoryEntry, ...] = ()
    redo: tuple[HistoryEntry, ...] = ()


def change_to_json(ch: Change) -> dict[str, Any]:
    from corpusdb.services.items import item_to_json

    if isinstance(ch, Remove):
        return {"op": "remove", "kind": ch.kind, "key": ch.key}
    if isinstance(ch, Mark):
        return {"op": "mark", "suggestion": ch.suggestion, "status": ch.status, "previous": ch.previous,
                "item": ch.item}  # fmt: skip
    d: dict[str, Any] = {"op": "put", "item": item_to_json(ch.item)}
    if ch.position is not None:
        d["position"] = ch.position
    if ch.item.extra:
        d["extra"] = dict(ch.item.extra)
    return d


def change_from_json(d: Mapping[str, Any]) -> Change:
    from corpusdb.services.items import item_from_json

    if d.get("op") == "remove":
        return Remove(d["kind"], str(d["key"]))
    if d.get("op") == "mark":
        return Mark(int(d["suggestion"]), str(d["status"]), str(d["previous"]), d.get("item"))
    if d.get("op") != "put":
        raise InvalidInput(f"not a stored change: {dict(d)!r}")
    item = item_from_json(d["item"])
    if d.get("extra"):
        item = replace(item, extra=dict(d["extra"]))
    return Put(item, d.get("position"))


def _top(conn: Connection, set_id: int, stack: str) -> Any:
    return conn.execute(
        select(H.c.id, H.c.position, H.c.description)
        .where(H.c.set_id == set_id, H.c.stack == stack)
        .order_by(H.c.position.desc())
        .limit(1)
    ).first()


def _push(
    conn: Connection, set_id: int, stack: str, description: str, changes: Sequence[Change], version: int
) -> None:
    top = _top(conn, set_id, stack)
    conn.execute(
        insert(H).values(
            set_id=set_id,
            stack=stack,
            position=(top.position + 1) if top is not None else 1,
            description=description,
            changes=[change_to_json(c) for c in changes],
            version=version,
            created=utcnow_aware(),
        )
    )


def record(
    conn: Connection, set_id: int, mode: Mode, description: str, inverse: Sequence[Change], version: int
) -> None:
    """Update the stacks for one saved action (same transaction): ``do`` pushes its undo and clears
    redo; ``undo`` moves the top undo entry to redo (with ``inverse``, which repeats it); ``redo``
    the other way round."""
    if mode == "do":
        rls.delete_rows(conn, H, H.c.set_id == set_id, H.c.stack == "redo")
        _push(conn, set_id, "undo", description, inverse, version)
        n = conn.execute(
            select(func.count()).select_from(H).where(H.c.set_id == set_id, H.c.stack == "undo")
        ).scalar_one()
        if n > LIMIT:
            oldest = (
                select(H.c.id)
                .where(H.c.set_id == set_id, H.c.stack == "undo")
                .order_by(H.c.position)
                .limit(n - LIMIT)
                .scalar_subquery()
            )
            rls.delete_rows(conn, H, H.c.id.in_(oldest))
        return
    source, target = ("undo", "redo") if mode == "undo" else ("redo", "undo")
    top = _top(conn, set_id, source)
    if top is not None:
        description = top.description
        rls.delete_rows(conn, H, H.c.id == top.id)
    _push(conn, set_id, target, description, inverse, version)


def clear(conn: Connection, set_ids: Sequence[int]) -> None:
    """Forget the stacks (the content changed outside them)."""
    if set_ids:
        rls.delete_rows(conn, H, H.c.set_id.in_(list(set_ids)))


def read(conn: Connection, set_id: int) -> EditHistory:
    rows = conn.execute(
        select(H.c.stack, H.c.description, H.c.changes, H.c.version)
        .where(H.c.set_id == set_id)
        .order_by(H.c.stack, H.c.position)
    ).all()
    stacks: dict[str, list[HistoryEntry]] = {"undo": [], "redo": []}
    for stack, description, changes, version in rows:
        entry = HistoryEntry(description, tuple(change_from_json(c) for c in changes or ()), version)
        stacks[stack].append(entry)
    return EditHistory(tuple(stacks["undo"]), tuple(stacks["redo"]))
