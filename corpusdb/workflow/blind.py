"""Blind test releases: what of a split's gold the release files show, and the participants' package.

Why pure functions over the snapshot: a release's files are a function of its stored snapshot
(``releases.render``), so a blind release keeps its full gold in the database (the snapshot, which a
shared task scores against) while every file it writes, now or re-exported later, comes from
:func:`public_snapshot`: for the blind split's documents, the texts and only the layers given to
participants (``--give spans`` for a GI-style task: entities given, relations withheld; default:
texts only). Decisions and change-log entries about those documents are withheld too (they name gold
items), and so are the counts of withheld items.

The participants' package (``participants/`` in the release folder) holds the blind split's texts and
given layers (``texts/<id>.txt``, ``texts/<id>.a1``), the schema (``schema.json``), and a README
naming the guidelines version and the validator command; ``corpusdb validate RUN --task
participants`` reads exactly this folder.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from corpusdb.basics.errors import InvalidInput

LAYERS: tuple[str, ...] = ("spans", "entities", "links", "relations", "labels", "notes")
"""The annotation layers of a release document (``annotations`` keys)."""
_NEEDS_SPANS = ("entities", "links", "relations", "notes")
"""Layers whose items refer to spans: given without spans they would point at nothing."""
PACKAGE = "participants"


def check_give(give: Iterable[str]) -> tuple[str, ...]:
    """The given layers in a stable order; refuses unknown names and layers that need withheld spans."""
    given = {g.strip() for g in give if g.strip()}
    unknown = sorted(given - set(LAYERS))
    if unknown:
        raise InvalidInput(f"--give: unknown layer(s) {', '.join(unknown)} (layers: {', '.join(LAYERS)})")
    dangling = [g for g in _NEEDS_SPANS if g in given and "spans" not in given]
    if dangling:
        raise InvalidInput(f"--give {', '.join(dangling)} refers to spans: give spans too")
    return tuple(x for x in LAYERS if x in given)


def blind_spec(split: str, give: Sequence[str], splits: Mapping[str, Sequence[str]]) -> dict[str, Any]:
    """What the snapshot records: ``{"split", "given", "withheld", "documents"}``."""
    if split not in splits:
        raise InvalidInput(
            f"--blind {split}: no such split among the released documents ({', '.join(sorted(splits)) or 'none'}); "
            "run `corpusdb split` first"
        )
    given = check_give(give)
    return {"split": split, "given": list(given), "withheld": [x for x in LAYERS if x not in given],
            "documents": len(splits[split])}  # fmt: skip


def blind_documents(snapshot: Mapping[str, Any]) -> set[str]:
    spec = snapshot.get("blind")
    if not spec:
        return set()
    return {d["id"] for d in snapshot["documents"] if (d.get("split") or "unsplit") == spec["split"]}


def _given(doc: Mapping[str, Any], given: Sequence[str]) -> dict[str, Any]:
    ann = doc.get("annotations") or {}
    kept = {k: v for k, v in ann.items() if k in given}
    out = {**doc, "annotations": kept, "decisions": []}
    out.pop("standoff", None)  # the gold's own file layout (.a1/.a2, lines) says where withheld items were
    return out


def public_snapshot(snapshot: Mapping[str, Any]) -> Mapping[str, Any]:
    """The snapshot as the release files show it: unchanged without ``blind``; else the blind split's
    documents stripped to their given layers, without decisions."""
    spec = snapshot.get("blind")
    if not spec:
        return snapshot
    hidden = blind_documents(snapshot)
    docs = [_given(d, spec["given"]) if d["id"] in hidden else d for d in snapshot["documents"]]
    return {**snapshot, "documents": docs}


def public_log(log: Mapping[str, Any], hidden: set[str]) -> Mapping[str, Any]:
    """The change log without the item-level entries and corrections of blind documents."""
    if not hidden:
        return log
    out = dict(log)
    for key in ("added", "removed", "changed", "corrections"):
        if isinstance(out.get(key), list):
            out[key] = [e for e in out[key] if not (isinstance(e, dict) and e.get("document") in hidden)]
    summary = dict(out.get("summary") or {})
    for key, name in (("items_added", "added"), ("items_removed", "removed"), ("items_changed", "changed"),
                      ("corrections", "corrections")):  # fmt: skip
        if key in summary and isinstance(out.get(name), list):
            summary[key] = len(out[name])
    if summary:
        out["summary"] = summary
    return out


def readme(snapshot: Mapping[str, Any]) -> str:
    spec = snapshot["blind"]
    given = ", ".join(spec["given"]) or "none (texts only)"
    return (
        f"# {snapshot['project']} {snapshot['version']}: the {spec['split']} split for participants\n\n"
        f"- schema: {snapshot['schema']} (`schema.json`), guidelines version {snapshot.get('guideline_version')}\n"
        f"- documents: {spec['documents']} (`texts/<id>.txt`)\n"
        f"- given layers: {given} (`texts/<id>.a1`, brat standoff)\n"
        f"- withheld (to predict): {', '.join(spec['withheld'])}\n\n"
        "Write one brat/BioNLP standoff file per document (`<id>.a2`, or `<id>.ann`; ids in `.a2` may refer to\n"
        "the given `.a1`), then check your run before submitting (no database needed):\n\n"
        "    corpusdb validate RUN_FOLDER --task participants\n\n"
        "Each problem is one line with its file and line; exit code 0 means the run is well formed.\n"
    )


def package_files(snapshot: Mapping[str, Any], standoff: Mapping[str, bytes]) -> dict[str, bytes]:
    """``participants/...``: from the public brat files of the blind split, the schema and a README."""
    spec = snapshot["blind"]
    prefix = f"brat/{spec['split']}/"
    files: dict[str, bytes] = {}
    given: dict[str, list[bytes]] = {}
    for path, body in sorted(standoff.items()):
        if not path.startswith(prefix):
            continue
        stem, _, ext = path[len(prefix) :].rpartition(".")
        if ext == "txt":
            files[f"{PACKAGE}/texts/{stem}.txt"] = body
        elif body:
            given.setdefault(stem, []).append(body)
    for stem, bodies in given.items():  # every given item in one .a1, as BioNLP tasks give entities
        files[f"{PACKAGE}/texts/{stem}.a1"] = b"".join(b if b.endswith(b"\n") else b + b"\n" for b in bodies)
    files[f"{PACKAGE}/schema.json"] = (
        json.dumps(snapshot["schema_definition"], sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    ).encode("utf-8")
    files[f"{PACKAGE}/README.md"] = readme(snapshot).encode("utf-8")
    return files
