"""A release's change log against the previous one, computed from the two snapshots (pure).

Why from snapshots and not from the live tables: releases are immutable, so "what changed between v1
and v2" must be answerable from what each release froze, whatever happened to the project since.
Gold local ids are stable, so an item is the same item across releases when its (kind, id) is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

KINDS = (("spans", "span"), ("relations", "relation"), ("links", "link"), ("labels", "label"),
         ("entities", "entity"))  # fmt: skip


def _items(doc: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    ann = doc.get("annotations") or {}
    out: dict[tuple[str, str], Any] = {}
    for field, kind in KINDS:
        for it in ann.get(field, ()):
            out[(kind, it["name"] if kind == "label" else it["id"])] = it
    return out


def diff(previous: Mapping[str, Any] | None, current: Mapping[str, Any],
         corrections: Sequence[Mapping[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """Documents added/removed/moved between splits, items added/removed/changed, and corrections."""
    prev_docs = {d["id"]: d for d in (previous or {}).get("documents", ())}
    cur_docs = {d["id"]: d for d in current.get("documents", ())}
    added_docs = sorted(set(cur_docs) - set(prev_docs))
    removed_docs = sorted(set(prev_docs) - set(cur_docs))
    moved = [
        {"document": d, "from": prev_docs[d].get("split"), "to": cur_docs[d].get("split")}
        for d in sorted(set(cur_docs) & set(prev_docs))
        if prev_docs[d].get("split") != cur_docs[d].get("split")
    ]
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    changed: list[dict[str, Any]] = []
    if previous is not None:
        for d in sorted(set(cur_docs) & set(prev_docs)):
            a, b = _items(prev_docs[d]), _items(cur_docs[d])
            for k in sorted(set(b) - set(a)):
                added.append({"document": d, "kind": k[0], "id": k[1], "item": b[k]})
            for k in sorted(set(a) - set(b)):
                removed.append({"document": d, "kind": k[0], "id": k[1], "item": a[k]})
            for k in sorted(set(a) & set(b)):
                if a[k] != b[k]:
                    changed.append({"document": d, "kind": k[0], "id": k[1], "before": a[k], "after": b[k]})
    return {
        "previous": (previous or {}).get("version"),
        "summary": {
            "documents_added": len(added_docs), "documents_removed": len(removed_docs),
            "documents_moved": len(moved), "items_added": len(added), "items_removed": len(removed),
            "items_changed": len(changed), "corrections": len(corrections),
        },
        "documents_added": added_docs,
        "documents_removed": removed_docs,
        "split_changes": moved,
        "items_added": added,
        "items_removed": removed,
        "items_changed": changed,
        "corrections": list(corrections),
    }  # fmt: skip


def markdown(version: str, log: Mapping[str, Any]) -> str:
    """The change log for people (CHANGELOG.md of the release)."""
    s = log["summary"]
    prev = log.get("previous")
    lines = [f"# Release {version}", ""]
    if prev is None:
        lines += ["First release.", ""]
    else:
        lines += [f"Changes since {prev}:", ""]
    lines += [
        f"- documents added: {s['documents_added']}, removed: {s['documents_removed']}, "
        f"moved between splits: {s['documents_moved']}",
        f"- gold items added: {s['items_added']}, removed: {s['items_removed']}, changed: {s['items_changed']}",
        f"- corrections: {s['corrections']}",
        "",
    ]
    if log["corrections"]:
        lines += ["## Corrections", ""]
        for c in log["corrections"]:
            lines.append(
                f"- {c['document']}: {c['action']} {c['kind']} {c['item_id']} by {c['author']} "
                f"({c['created'][:10]}): {c['reason']}"
            )
        lines.append("")
    for title, key in (("Documents added", "documents_added"), ("Documents removed", "documents_removed")):
        if log[key]:
            lines += [f"## {title}", "", *(f"- {d}" for d in log[key]), ""]
    if log["split_changes"]:
        lines += [
            "## Split changes",
            "",
            *(f"- {m['document']}: {m['from']} -> {m['to']}" for m in log["split_changes"]),
            "",
        ]
    for title, key in (("Items added", "items_added"), ("Items removed", "items_removed"),
                       ("Items changed", "items_changed")):  # fmt: skip
        if log[key]:
            lines += [f"## {title}", "", *(f"- {x['document']} {x['kind']} {x['id']}" for x in log[key]), ""]
    return "\n".join(lines)
