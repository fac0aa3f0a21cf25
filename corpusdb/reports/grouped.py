"""Agreement split by guideline version, by split, or by annotator over time (a learning curve).

Why one agreement report per group rather than a new computation: every figure is then exactly the
figure ``corpusdb agree -d <those documents>`` gives, with its CI when asked.

* ``guideline``: a document belongs to the guideline version its annotation sets were made under
  (the highest when its sets differ, counted in ``mixed``), so a lead sees whether agreement rose
  after each amendment.
* ``split``: the document's split (``(none)`` when unsplit).
* ``time``: for each annotator, their documents in the order they submitted them, in consecutive
  windows of ``window`` documents; the figure is that annotator's mean F1 against every other rater
  on the window's documents (``per_rater``), so a rising line is learning.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from corpusdb.basics.errors import CorpusError

BY = ("guideline", "split", "time")
SCHEMA_ID = "corpusdb.agreement-by/1"


def _row(group: Any, docs: Sequence[str], body: Mapping[str, Any]) -> dict[str, Any]:
    s = body["summary"]
    return {"group": group, "documents": len(docs), "compared": len(body["documents"]), "value": s.get("value"),
            "n_pairs": s.get("n_pairs"), "ci": s.get("ci")}  # fmt: skip


def by_groups(
    groups: Mapping[Any, Sequence[str]], report: Callable[[Sequence[str]], Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """One row per group (in key order): the report over the group's documents."""
    rows = []
    for g in sorted(groups, key=lambda k: (isinstance(k, str), k)):
        docs = sorted(groups[g])
        try:
            body = report(docs)
        except CorpusError as exc:  # a group without two raters is a row saying so
            rows.append({"group": g, "documents": len(docs), "compared": 0, "value": None, "n_pairs": 0,
                         "ci": None, "note": str(exc)})  # fmt: skip
            continue
        rows.append(_row(g, docs, body))
    return rows


def learning_curve(
    submitted: Mapping[str, Sequence[tuple[Any, str]]],
    report: Callable[[Sequence[str]], Mapping[str, Any]],
    window: int,
) -> list[dict[str, Any]]:
    """Per annotator, per window of ``window`` documents in submission order: their mean F1 against
    the others on those documents."""
    rows = []
    for who in sorted(submitted):
        order = [d for _, d in sorted(submitted[who])]
        for i in range(0, len(order), window):
            docs = order[i : i + window]
            try:
                body = report(docs)
            except CorpusError as exc:
                rows.append({"annotator": who, "window": i // window + 1, "documents": len(docs), "value": None,
                             "note": str(exc)})  # fmt: skip
                continue
            mine = next((r for r in body["per_rater"]["rows"] if r["name"] == who), None)
            rows.append({"annotator": who, "window": i // window + 1, "first": docs[0], "last": docs[-1],
                         "documents": len(docs), "value": mine["mean_f1"] if mine else None})  # fmt: skip
    return rows


def group_documents(
    headers: Sequence[Any], by: str, splits: Mapping[str, str | None]
) -> tuple[dict[Any, list[str]], int]:
    """Documents per group (guideline version or split) from set headers; also how many documents
    had annotation sets made under different guideline versions."""
    versions: dict[str, set[int]] = defaultdict(set)
    for h in headers:
        if h.kind == "annotation":
            versions[h.document_external_id].add(h.guideline_version)
    groups: dict[Any, list[str]] = defaultdict(list)
    mixed = 0
    for d, vs in versions.items():
        if by == "guideline":
            mixed += len(vs) > 1
            groups[max(vs)].append(d)
        else:
            groups[splits.get(d) or "(none)"].append(d)
    return dict(groups), mixed
