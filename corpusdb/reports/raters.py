"""Who is the outlier, and what did only one rater see: per-rater figures and one-sided items.

Why here and not in ``aggregate``: these read the raters' own items (texts, offsets, types) as well
as the pair results, where ``aggregate`` only folds pair results. The figures go into the JSON body
(``per_rater``, ``one_sided``, ``n`` in ``per_type`` rows) so every renderer shows the same numbers.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from corpusdb.reports.options import AgreementOptions, Rater
from corpusdb.reports.pairs import PairResult

if TYPE_CHECKING:
    from corpusdb.agreement.spans import SpanColumns

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
    cols = _ColumnView.build(raters, pairs, documents) if layer == "spans" else None
    if cols is not None:
        per_one: Mapping[str, int] = cols.one_sided_counts()
    else:
        one = _unmatched(raters, pairs, documents) if layer == "spans" else set()
        per_one = Counter(who for who, _, _ in one)
    rows = []
    for r in raters:
        f1s = [
            p.overall.f1 for p in pairs if r.name in (p.a, p.b) and p.documents and p.overall.f1 is not None
        ]
        if cols is not None:
            n = cols.items(r.name)
        else:
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
    if cols is not None:
        return summary, cols.one_sided(texts, fetch_texts)
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
    if layer == "spans" and raters and all(r.columns is not None for r in raters):
        for r in raters:  # counted on the type codes, as arrays
            c = r.columns
            assert c is not None
            codes = c.type[_rows_in(c, compared)]
            for code, k in enumerate(np.bincount(codes, minlength=len(c.type_names)).tolist()):
                if k:
                    n[opts.class_of(c.type_names[code])] += k
        return n
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
        c = r.columns if layer == "spans" else None
        if c is not None:  # the column path: rows per document from the offsets, no record
            for d, k in zip(c.doc_ids, np.diff(c.offsets).tolist(), strict=True):
                if d in compared:
                    n[d] += k
            continue
        for d, ann in r.sets.items():
            if d in compared:
                n[d] += len(_items(ann, layer))
    return n


def _rows_in(cols: SpanColumns, compared: set[str]) -> np.ndarray:
    """Mask over a rater's column rows: the spans of the compared documents."""
    keep = np.fromiter((d in compared for d in cols.doc_ids), dtype=bool, count=len(cols.doc_ids))
    return np.repeat(keep, np.diff(cols.offsets))


class _ColumnView:
    """The per-rater figures and one-sided spans computed on the raters' columns (layer spans read
    from the store): the same numbers as the record path above, without a record per span.

    A span is one-sided when no pair matched it (types ignored, the report's criterion), it lies in
    a compared document and has a text mention; span ids are unique in a set, so a column row
    stands for the (rater, document, id) key the record path uses.
    """

    def __init__(self, raters: Sequence[Rater], compared: set[str], matched: dict[str, np.ndarray]) -> None:
        self.raters = raters
        self.in_docs = {r.name: _rows_in(r.columns, compared) for r in raters}  # type: ignore[arg-type]
        self.one: dict[str, np.ndarray] = {}
        for r in raters:
            c = r.columns
            assert c is not None
            mention = np.ones(len(c.type), dtype=bool)
            empty = [row for row, f in c.fragments.items() if not f]
            mention[empty] = False
            self.one[r.name] = self.in_docs[r.name] & mention & ~matched[r.name]

    @classmethod
    def build(
        cls, raters: Sequence[Rater], pairs: Sequence[PairResult], documents: Sequence[str]
    ) -> _ColumnView | None:
        """The view, or None when a rater or a pair was not computed from columns."""
        if not raters or any(r.columns is None for r in raters):
            return None
        matched = {r.name: np.zeros(len(r.columns.type), dtype=bool) for r in raters}  # type: ignore[union-attr]
        for p in pairs:
            comp = p.types_ignored or p.spans
            if comp is None or comp._alignment is None:
                continue
            prep = comp._alignment[0]
            ma, mb = comp.matched_indices()
            for who, side, idx in ((p.a, prep.a, ma), (p.b, prep.b, mb)):
                src = getattr(side, "_ids_from", None)
                if src is None:  # this pair was compared on records
                    return None
                matched[who][src[1][idx]] = True
        return cls(raters, set(documents), matched)

    def items(self, name: str) -> int:
        return int(self.in_docs[name].sum())

    def one_sided_counts(self) -> dict[str, int]:
        return {n: int(m.sum()) for n, m in self.one.items() if m.any()}

    def one_sided(
        self,
        texts: Mapping[str, str] | None,
        fetch_texts: Callable[[Sequence[str]], Mapping[str, str]] | None,
    ) -> dict[str, Any]:
        """The first ``ONE_SIDED_CAP`` one-sided spans by (document, first fragment's start, rater,
        id), and their total: sorted on integer keys, the ids compared only among ties."""
        doc_names = sorted({d for r in self.raters for d in r.columns.doc_ids})  # type: ignore[union-attr]
        doc_rank = {d: i for i, d in enumerate(doc_names)}
        rater_rank = {n: i for i, n in enumerate(sorted(r.name for r in self.raters))}
        keys: list[np.ndarray] = []
        for ri, r in enumerate(self.raters):
            c = r.columns
            assert c is not None
            rows = np.flatnonzero(self.one[r.name])
            ranks = np.fromiter((doc_rank[d] for d in c.doc_ids), dtype=np.int64, count=len(c.doc_ids))
            doc = np.repeat(ranks, np.diff(c.offsets))[rows]
            first = c.start[rows].astype(np.int64)
            for row, frags in c.fragments.items():  # several fragments: the first one as stored
                j = int(np.searchsorted(rows, row))
                if frags and j < len(rows) and rows[j] == row:
                    first[j] = frags[0][0]
            n = len(rows)
            keys.append(np.stack([doc, first, np.full(n, rater_rank[r.name]), np.full(n, ri), rows]))
        allk = np.concatenate(keys, axis=1) if keys else np.zeros((5, 0), dtype=np.int64)
        total = allk.shape[1]
        order = np.lexsort((allk[2], allk[1], allk[0]))
        if total > ONE_SIDED_CAP:  # ties on the integer keys at the cap are ordered by id below
            last = allk[:3, order[ONE_SIDED_CAP - 1]]
            same = (allk[:3, order] == last[:, None]).all(axis=0)
            order = order[: int(np.flatnonzero(same).max()) + 1]
        picked = []
        for k in order.tolist():
            d, first, _, ri, row = allk[:, k].tolist()
            r = self.raters[ri]
            c = r.columns
            assert c is not None
            frags = c.fragments.get(row, ((int(c.start[row]), int(c.end[row])),))
            picked.append((doc_names[d], first, r.name, c.ids[row], c.type_names[int(c.type[row])], frags))
        picked.sort(key=lambda x: x[:4])
        picked = picked[:ONE_SIDED_CAP]
        if texts is None and fetch_texts is not None and picked:  # columns carry no text
            texts = fetch_texts(sorted({x[0] for x in picked}))
        rows_out = [
            {"document": d, "rater": who, "id": sid, "type": typ,
             "text": " ".join(texts[d][a:b] for a, b in frags) if texts and d in texts else "",
             "fragments": [list(f) for f in frags]}
            for d, _, who, sid, typ, frags in picked
        ]  # fmt: skip
        return {"total": total, "cap": ONE_SIDED_CAP, "rows": rows_out}
