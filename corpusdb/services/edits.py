"""Edits to an annotation set as data: put or remove one item, each with its exact inverse.

Why: the TUI saves every action at once and offers undo/redo; adjudication writes gold item by
item. Expressing an action as a list of ``Change`` values lets the store apply it in one
transaction, check that no reference dangles, and hand back the inverse, so undo is just another
edit (it survives a restart and passes the same checks and locks).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, DocLabel, Entity, Link, Note, Relation, Span
from corpusdb.services.content import check_references

if TYPE_CHECKING:
    from guidelines.schema import Rules

ItemKind = Literal["span", "relation", "link", "note", "label", "entity"]
Item = Span | Relation | Link | Note | DocLabel | Entity
_FIELD: dict[str, str] = {
    "span": "spans",
    "relation": "relations",
    "link": "links",
    "note": "notes",
    "label": "labels",
    "entity": "entities",
}
PREFIX: dict[str, str] = {"span": "T", "relation": "R", "link": "L", "note": "#", "entity": "C"}


def kind_of(item: Item) -> ItemKind:
    if isinstance(item, Span):
        return "span"
    if isinstance(item, Relation):
        return "relation"
    if isinstance(item, Link):
        return "link"
    if isinstance(item, Note):
        return "note"
    if isinstance(item, DocLabel):
        return "label"
    if isinstance(item, Entity):
        return "entity"
    raise TypeError(f"not an annotation item: {item!r}")


def key_of(item: Item) -> str:
    """The item's key within its kind: the local id, or the name for a document label."""
    return item.name if isinstance(item, DocLabel) else item.id


@dataclass(frozen=True, slots=True)
class Put:
    """Add ``item``, or replace the item of the same kind and key in place."""

    item: Item
    position: int | None = None
    """Where to insert a new item (None: at the end); used by undo to restore order."""


@dataclass(frozen=True, slots=True)
class Remove:
    kind: ItemKind
    key: str


@dataclass(frozen=True, slots=True)
class Mark:
    """Set the status of one of the set's suggestions (``corpusdb.recommend``): accepting one is a
    ``Put`` of the item made from it plus this, in one action, so one undo takes both back.

    The set's items do not change; the store checks that the suggestion is still ``previous`` and
    writes ``status`` (and the audit trail), in the same transaction as the action's other changes."""

    suggestion: int
    status: str
    """``open``, ``accepted`` or ``rejected``."""
    previous: str
    item: str | None = None
    """Accepted: the local id of the item made from it."""


Change = Put | Remove | Mark


def apply_changes(ann: Annotations, changes: Sequence[Change]) -> tuple[Annotations, list[Change]]:
    """Apply ``changes`` in order; return the new content and the changes that undo them.

    Raises InvalidInput when the result would hold a dangling reference (remove the relations of
    a span before the span: ``dependents`` lists them).
    """
    lists: dict[str, list[Item]] = {f: list(getattr(ann, f)) for f in _FIELD.values()}
    inverse: list[Change] = []
    for ch in changes:
        if isinstance(ch, Mark):  # the suggestion's status, not an item: the store writes it
            inverse.append(Mark(ch.suggestion, ch.previous, ch.status, ch.item))
            continue
        if isinstance(ch, Put):
            kind = kind_of(ch.item)
            items = lists[_FIELD[kind]]
            key = key_of(ch.item)
            idx = next((i for i, it in enumerate(items) if key_of(it) == key), None)
            if idx is None:
                pos = len(items) if ch.position is None else max(0, min(ch.position, len(items)))
                items.insert(pos, ch.item)
                inverse.append(Remove(kind, key))
            else:
                inverse.append(Put(items[idx]))
                items[idx] = ch.item
        else:
            items = lists[_FIELD[ch.kind]]
            idx = next((i for i, it in enumerate(items) if key_of(it) == ch.key), None)
            if idx is None:
                raise InvalidInput(f"there is no {ch.kind} {ch.key!r} to remove")
            inverse.append(Put(items.pop(idx), position=idx))
            if ch.kind == "span":  # a removed mention or name leaves its entity (undo puts it back)
                ents = lists["entities"]
                for k, e in enumerate(ents):
                    if ch.key in e.members:  # type: ignore[union-attr]
                        inverse.append(Put(e))
                        ents[k] = replace(e, members=tuple(m for m in e.members if m != ch.key))  # type: ignore[union-attr, type-var]
    new = Annotations(
        spans=tuple(lists["spans"]),  # type: ignore[arg-type]
        relations=tuple(lists["relations"]),  # type: ignore[arg-type]
        links=tuple(lists["links"]),  # type: ignore[arg-type]
        notes=tuple(lists["notes"]),  # type: ignore[arg-type]
        labels=tuple(lists["labels"]),  # type: ignore[arg-type]
        extra=ann.extra,
        entities=tuple(lists["entities"]),  # type: ignore[arg-type]
    )
    check_references(new, "edit")
    inverse.reverse()
    return new, inverse


def refuse_groundings(ann: Annotations, changes: Sequence[Change], rules: Rules, schema_name: str) -> None:
    """Raise InvalidInput when ``changes`` add a grounding the schema does not allow.

    Why only additions: groundings imported before a guideline change stay readable and removable
    (validation warns about them); what an editor may not do is add new ones (issue #15.7)."""
    from corpusdb.basics.records import (
        grounding_key,  # BioNLP-ST lines name their database in the line's type
    )

    have: dict[tuple[str, str], set[str]] = {}
    for sp in ann.spans:
        have[("span", sp.id)] = {grounding_key(g) for g in sp.groundings}
    for en in ann.entities:
        have[("entity", en.id)] = {grounding_key(g) for g in en.groundings}
    allowed = {d.lower() for d in rules.grounding_databases}
    for ch in changes:
        if not isinstance(ch, Put) or not isinstance(ch.item, Span | Entity):
            continue
        kind = kind_of(ch.item)
        added = [
            k
            for g in ch.item.groundings
            if (k := grounding_key(g)) not in have.get((kind, ch.item.id), set())
        ]
        if not added:
            continue
        if not rules.groundings:
            raise InvalidInput(
                f"{kind} {ch.item.id}: schema {schema_name} does not use groundings ({added[0]} refused)"
            )
        bad = [r for r in added if allowed and r.split(":", 1)[0].lower() not in allowed]
        if bad:
            raise InvalidInput(
                f"{kind} {ch.item.id}: grounding {bad[0]!r} is not from a database of schema "
                f"{schema_name} ({', '.join(rules.grounding_databases)})"
            )


def dependents(ann: Annotations, local_id: str) -> list[Remove]:
    """Removals needed before ``local_id`` can go: relations, links and notes that point at it,
    transitively (an event whose argument is a removed event goes too)."""
    doomed = {local_id}
    out: list[Remove] = []
    changed = True
    while changed:
        changed = False
        for r in ann.relations:
            if r.id in doomed:
                continue
            if r.trigger in doomed or any(a.ref in doomed for a in r.args):
                doomed.add(r.id)
                out.append(Remove("relation", r.id))
                changed = True
    for lk in ann.links:
        if lk.source in doomed or lk.target in doomed:
            out.append(Remove("link", lk.id))
    for n in ann.notes:
        if n.target in doomed:
            out.append(Remove("note", n.id))
    return out


_NUM = re.compile(r"(\d+)$")


def next_id(ann: Annotations, kind: ItemKind, taken: Iterable[str] = ()) -> str:
    """A fresh local id for a new item (``T12`` after ``T11``), unique across the whole set."""
    prefix = PREFIX.get(kind, kind[0].upper())
    used = {s.id for s in ann.spans} | {r.id for r in ann.relations} | {lk.id for lk in ann.links}
    used |= {n.id for n in ann.notes} | {e.id for e in ann.entities} | set(taken)
    n = 0
    for u in used:
        if u.startswith(prefix):
            m = _NUM.search(u)
            if m and u[: m.start()] == prefix:
                n = max(n, int(m.group(1)))
    cand = f"{prefix}{n + 1}"
    while cand in used:
        n += 1
        cand = f"{prefix}{n + 1}"
    return cand


def with_id(item: Item, new_id: str) -> Item:
    """A copy of ``item`` under another local id (labels are keyed by name and keep it)."""
    if isinstance(item, DocLabel):
        return item
    return replace(item, id=new_id)
