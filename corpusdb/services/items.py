"""Annotation items as plain JSON and back: the release format, corrections' before/after, the CLI.

Why our own small codec: the release JSON is a documented, versioned format, so its item layout
must not follow whatever a dataclass happens to hold. Keys are fixed; empty fields are left out, so
the output is compact and byte-stable (callers dump with sorted keys).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Argument, DocLabel, Entity, Link, Note, Relation, Span
from corpusdb.services.content import grounding_from_json, grounding_to_json

Item = Span | Relation | Link | DocLabel | Note | Entity


def item_to_json(item: Item) -> dict[str, Any]:
    """One item as JSON data (``kind`` says which)."""
    if isinstance(item, Span):
        d: dict[str, Any] = {"kind": "span", "id": item.id, "type": item.type,
                             "fragments": [list(f) for f in item.fragments], "text": item.text}  # fmt: skip
        if item.attributes:
            d["attributes"] = dict(item.attributes)
        if item.groundings:
            d["groundings"] = [grounding_to_json(g) for g in item.groundings]
    elif isinstance(item, Relation):
        d = {"kind": "relation", "id": item.id, "type": item.type,
             "args": [[a.role, a.ref] for a in item.args]}  # fmt: skip
        if item.label is not None:
            d["label"] = item.label
        if item.tags:
            d["tags"] = list(item.tags)
        if item.attributes:
            d["attributes"] = dict(item.attributes)
        if item.trigger is not None:
            d["trigger"] = item.trigger
        if item.kind != "relation":
            d["relation_kind"] = item.kind
    elif isinstance(item, Link):
        d = {"kind": "link", "id": item.id, "type": item.type, "source": item.source, "target": item.target}
        if item.group is not None:
            d["group"] = item.group
    elif isinstance(item, DocLabel):
        d = {"kind": "label", "name": item.name, "value": item.value}
    elif isinstance(item, Entity):
        d = {"kind": "entity", "id": item.id, "type": item.type, "members": list(item.members)}
        if item.attributes:
            d["attributes"] = dict(item.attributes)
        if item.groundings:
            d["groundings"] = [grounding_to_json(g) for g in item.groundings]
    elif isinstance(item, Note):
        d = {"kind": "note", "id": item.id, "type": item.type, "target": item.target, "text": item.text}
    else:
        raise TypeError(f"not an annotation item: {item!r}")
    return d


def item_from_json(d: Mapping[str, Any], kind: str | None = None) -> Item:
    """The inverse of :func:`item_to_json`; ``kind`` may be given when ``d`` lacks it (CLI input)."""
    k = d.get("kind", kind)
    try:
        if k == "span":
            return Span(
                id=str(d.get("id", "")),
                type=str(d["type"]),
                fragments=tuple((int(a), int(b)) for a, b in d.get("fragments", ())),
                text=str(d.get("text", "")),
                attributes=dict(d.get("attributes") or {}),
                groundings=tuple(grounding_from_json(g) for g in d.get("groundings") or ()),
            )
        if k == "relation":
            return Relation(
                id=str(d.get("id", "")),
                type=str(d["type"]),
                args=tuple(Argument(str(r), str(x)) for r, x in d.get("args", ())),
                label=None if d.get("label") is None else int(d["label"]),
                tags=tuple(d.get("tags") or ()),
                attributes=dict(d.get("attributes") or {}),
                trigger=d.get("trigger"),
                kind=d.get("relation_kind", "relation"),
            )
        if k == "link":
            return Link(
                str(d.get("id", "")), str(d["type"]), str(d["source"]), str(d["target"]), d.get("group")
            )
        if k == "label":
            return DocLabel(str(d["name"]), str(d["value"]))
        if k == "entity":
            return Entity(
                id=str(d.get("id", "")),
                type=str(d["type"]),
                members=tuple(str(m) for m in d.get("members", ())),
                attributes=dict(d.get("attributes") or {}),
                groundings=tuple(grounding_from_json(g) for g in d.get("groundings") or ()),
            )
        if k == "note":
            return Note(
                str(d.get("id", "")), str(d.get("type", "AnnotatorNotes")), str(d["target"]), str(d["text"])
            )
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidInput(f"not a valid {k or 'annotation'} item: {dict(d)!r} ({exc})") from exc
    raise InvalidInput(f"an item needs a kind (span, relation, link or label), got {k!r}")


def annotations_to_json(ann: Annotations) -> dict[str, Any]:
    """A whole set's items, by kind (empty kinds left out)."""
    out: dict[str, Any] = {}
    for name in ("spans", "relations", "links", "labels", "notes", "entities"):
        items = getattr(ann, name)
        if items:
            out[name] = [_strip_kind(item_to_json(i)) for i in items]
    return out


def annotations_from_json(d: Mapping[str, Any]) -> Annotations:
    kinds = {"spans": "span", "relations": "relation", "links": "link", "labels": "label", "notes": "note",
             "entities": "entity"}  # fmt: skip
    parts = {name: tuple(item_from_json(x, kind) for x in d.get(name, ())) for name, kind in kinds.items()}
    return Annotations(**parts)  # type: ignore[arg-type]


def _strip_kind(d: dict[str, Any]) -> dict[str, Any]:
    d.pop("kind", None)
    return d
