"""Who is the outlier, and what did only one rater see: per-rater figures and one-sided items.

Why here and not in ``aggregate``: these read the raters' own items (texts, offsets, types) as well
as the pair results, where ``aggregate`` only folds pair results. The figures go into the JSON body
(``per_rater``, ``one_sided``, ``n`` in ``per_type`` rows) so every renderer shows the same numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from corpusdb.reports.loading import Rater
from corpusdb.reports.options import AgreementOptions
from corpusdb.reports.pairs import PairResult

ONE_SIDED_CAP = 200
"""One-sided items listed in the body (the total is always given): a report stays readable."""


def _items(ann: Any, layer: str) -> Sequence[Any]:
    return {"spans": ann.spans, "relations": ann.relations, "links": ann.links}.get(layer, ())


def _unmatched(
    raters: Sequence[Rater], pairs: Sequence[PairResult], documents: Sequence[str]
) -> set[tuple[str, str, str]]:
    """(rater, document, span id) of spans no other rater matched (types ignored, the report's
    criterion), over the documents compared. Spans without a text mention are left out, as in matching."""
    compared = set(documents)
    matched: set[tuple[str, str, str]] = set()
    for p in pairs:
        comp = p.types_ignored or p.spans
        if comp is None or comp._alignment is None:
            continue
        prep = comp._alignment[0]
        ma, mb = comp.matched_indices()
        for who, side, idx in ((p.a, prep.a, ma), (p.b, prep.b, mb)):
            for i in idx.tolist():
                matched.add((who, prep.doc_ids[int(side.doc[i])], side.ids[i]))
    out: set[tuple[str, str, str]] = set()
    for r in raters:
        for d, ann in r.sets.items():
            if d not in compared:
                continue
            for sp in ann.spans:
                if sp.fragments and (r.name, d, sp.id) not in matched:
                    out.add((r.name, d, sp.id))
    return out


def per_rater(
    raters: Sequence[Rater],
    pairs: Sequence[PairResult],
    documents: Sequence[str],
    layer: str,
    texts: Mapping[str, str] | None = None,
    fetch_texts: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The per-rater summary (mean F1 against every other rater, items, one-sided items) and, for
    spans, the one-sided items themselves (capped, with the total)."""
    compared = set(documents)
    one = _unmatched(raters, pairs, documents) if layer == "spans" else set()
    per_one = Counter(who for who, _, _ in one)
    rows = []
    for r in raters:
        f1s = [
            p.overall.f1 for p in pairs if r.name in (p.a, p.b) and p.documents and p.overall.f1 is not None
        ]
        n = sum(len(_items(ann, layer)) for d, ann in r.sets.items() if d in compared)
        rows.append({
            "name": r.name,
            "kind": r.kind,
            "mean_f1": sum(f1s) / len(f1s) if f1s else None,
            "min_f1": min(f1s) if f1s else None,
            "n_pairs": len(f1s),
            "items": n,
            "one_sided": per_one.get(r.name, 0) if layer == "spans" else None,
        })  # fmt: skip
    defined = [x for x in rows if x["mean_f1"] is not None]
    lowest = min(defined, key=lambda x: x["mean_f1"])["name"] if len(defined) >= 3 else None
    for x in rows:
        x["outlier"] = x["name"] == lowest
    summary = {"measure": "mean_f1_against_others", "lowest": lowest, "rows": rows}
    if layer != "spans":
        return summary, None
    spans = {(r.name, d, sp.id): sp for r in raters for d, ann in r.sets.items() for sp in ann.spans}
    items = []
    ordered = sorted(one, key=lambda k: (k[1], spans[k].fragments[0][0], k[0], k[2]))
    if texts is None and fetch_texts is not None:  # spans read as columns carry no text
        shown = {d for who, d, sid in ordered[:ONE_SIDED_CAP] if not spans[(who, d, sid)].text}
        texts = fetch_texts(sorted(shown)) if shown else None
    for who, d, sid in ordered:
        sp = spans[(who, d, sid)]
        text = sp.text or (" ".join(texts[d][a:b] for a, b in sp.fragments) if texts and d in texts else "")
        items.append({"document": d, "rater": who, "id": sid, "type": sp.type, "text": text,
                      "fragments": [list(f) for f in sp.fragments]})  # fmt: skip
    return summary, {"total": len(items), "cap": ONE_SIDED_CAP, "rows": items[:ONE_SIDED_CAP]}


def type_counts(
    raters: Sequence[Rater], documents: Sequence[str], layer: str, opts: AgreementOptions
) -> Counter[str]:
    """Items per (merged) type over every rater and compared document: the ``n`` of the per-type rows."""
    compared = set(documents)
    n: Counter[str] = Counter()
    for r in raters:
        for d, ann in r.sets.items():
            if d in compared:
                n.update(opts.class_of(x.type) for x in _items(ann, layer))
    return n


def document_counts(raters: Sequence[Rater], documents: Sequence[str], layer: str) -> Counter[str]:
    """Items per compared document over every rater: the ``n`` of the per-document rows (how much
    a document's F1 rests on: a low F1 over 4 items is not one over 400)."""
    compared = set(documents)
    n: Counter[str] = Counter()
    for r in raters:
        for d, ann in r.sets.items():
            if d in compared:
                n[d] += len(_items(ann, layer))
    return n
