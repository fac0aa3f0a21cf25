"""A system's false positives and false negatives, item by item, with the pairing its metric uses.

Why beside the scorers, not inside them: the scores are sums that bootstraps resample by document;
the lists are what a participant reads to fix their system (shared-task feedback, issue 28). Each
function pairs exactly as its scorer does, so the lists add up to the scorer's counts:

* ``bb`` (BioNLP-ST 2011 BB): the one-to-one pairing of largest ΣS per document and event type
  (:func:`corpusdb.evaluation.bb2011.score_bb`). A reference event whose paired credit is below 1 (or
  that is unpaired) is a false negative carrying its credit, a predicted event likewise a false
  positive: the fn count is Σ(1 - credit) over the first list, fp over the second.
* ``rename``: the strict ``Renaming(Former, New)`` pairs by boundaries; credit 0 each.
* ``ner``: spans under the exact criterion with types required (the task's metric); credit 0 each.
* ``biorelex``: *Relation Extraction (any)*, the official counting: a gold interaction none of whose
  name pairs is predicted is a false negative (one per interaction); a predicted name pair no gold
  interaction consumed is a false positive (one per name pair).

An item is ``{"document", "type", "item", "credit"}``; ``item`` is readable text (the spans' text and
offsets), never an id of the other side.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from corpusdb.basics.records import Annotations, Relation, Span

ERROR_METRICS = ("bb", "rename", "ner", "biorelex")


def _span(s: Span) -> str:
    where = ";".join(f"{a}-{b}" for a, b in s.fragments)
    return f"'{s.text}' {where}"


def _event(ann: Annotations, r: Relation) -> str:
    parts = []
    for a in r.args:
        try:
            parts.append(f"{a.role}: {_span(ann.span(a.ref))}")
        except KeyError:
            parts.append(f"{a.role}: {a.ref}")
    return f"{r.type}({', '.join(parts)})"


def _item(doc: str, typ: str, item: str, credit: float = 0.0) -> dict[str, Any]:
    return {"document": doc, "type": typ, "item": item, "credit": round(float(credit), 6)}


def bb_errors(reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    from scipy.optimize import linear_sum_assignment

    from corpusdb.evaluation.bb2011 import BB_ROLES, _events, equivalents, similarity

    fps: list[dict[str, Any]] = []
    fns: list[dict[str, Any]] = []
    for doc, ref in reference.items():
        pred = predicted.get(doc, Annotations())
        eq = equivalents(ref)
        for etype in BB_ROLES:
            rs, ps = _events(ref, etype), _events(pred, etype)
            got_r = [0.0] * len(rs)
            got_p = [0.0] * len(ps)
            if rs and ps:
                sim = np.array([[similarity(ref, eq, r, pred, p) for p in ps] for r in rs])
                for i, j in zip(*linear_sum_assignment(sim, maximize=True), strict=True):
                    got_r[i] = got_p[j] = float(sim[i, j])
            fns += [_item(doc, etype, _event(ref, r), c) for r, c in zip(rs, got_r, strict=True) if c < 1]
            fps += [_item(doc, etype, _event(pred, p), c) for p, c in zip(ps, got_p, strict=True) if c < 1]
    return fps, fns


def rename_errors(reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    from corpusdb.evaluation.bb2011 import _key

    def pairs(ann: Annotations) -> dict[Any, str]:
        out: dict[Any, str] = {}
        for r in ann.relations:
            if r.type == "Renaming":
                f, n = _key(ann, r, "Former"), _key(ann, r, "New")
                if f is not None and n is not None:
                    out.setdefault((f, n), _event(ann, r))
        return out

    fps: list[dict[str, Any]] = []
    fns: list[dict[str, Any]] = []
    for doc, ref in reference.items():
        rp, pp = pairs(ref), pairs(predicted.get(doc, Annotations()))
        fns += [_item(doc, "Renaming", rp[k]) for k in rp if k not in pp]
        fps += [_item(doc, "Renaming", pp[k]) for k in pp if k not in rp]
    return fps, fns


def ner_errors(reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    def spans(ann: Annotations) -> dict[Any, Span]:
        return {(s.type, tuple(sorted(s.fragments))): s for s in ann.spans}

    fps: list[dict[str, Any]] = []
    fns: list[dict[str, Any]] = []
    for doc, ref in reference.items():
        rs, ps = spans(ref), spans(predicted.get(doc, Annotations()))
        fns += [_item(doc, k[0], _span(s)) for k, s in rs.items() if k not in ps]
        fps += [_item(doc, k[0], _span(s)) for k, s in ps.items() if k not in rs]
    return fps, fns


def biorelex_errors(reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations], texts: Mapping[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:  # fmt: skip
    from corpusdb.evaluation.adapters import sentence_from_records
    from corpusdb.evaluation.biorelex import _name_pairs

    fps: list[dict[str, Any]] = []
    fns: list[dict[str, Any]] = []
    for doc, ref in reference.items():
        t = sentence_from_records(doc, texts.get(doc, ""), ref)
        p = sentence_from_records(doc, texts.get(doc, ""), predicted.get(doc, Annotations()))
        pred_pairs: set[tuple[str, str]] = set()
        for it in p.interactions:
            pred_pairs |= _name_pairs(p, it)
        consumed: set[tuple[str, str]] = set()
        for it in t.interactions:
            pairs = _name_pairs(t, it)
            hit = pairs & pred_pairs
            consumed |= hit
            if not hit:
                a = "/".join(n.text for n in t.clusters[it.a].names)
                b = "/".join(n.text for n in t.clusters[it.b].names)
                fns.append(_item(doc, it.type or "bind", f"{a} -- {b}"))
        fps += [_item(doc, "bind", f"{a} -- {b}") for a, b in sorted(pred_pairs - consumed)]
    return fps, fns


def error_lists(
    metric: str, reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations],
    texts: Mapping[str, str] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """``{"false_positives": [...], "false_negatives": [...], "pairing": ...}`` for ``metric``."""
    if metric == "bb":
        fps, fns = bb_errors(reference, predicted)
        how = "BB 2011 one-to-one pairing of largest similarity; items with credit below 1 (credit given)"
    elif metric == "rename":
        fps, fns = rename_errors(reference, predicted)
        how = "strict Renaming(Former, New) pairs by boundaries"
    elif metric == "ner":
        fps, fns = ner_errors(reference, predicted)
        how = "spans, exact boundaries and type"
    elif metric == "biorelex":
        fps, fns = biorelex_errors(reference, predicted, texts or {})
        how = "Relation Extraction (any): gold interactions without a predicted name pair; unmatched predicted name pairs"
    else:
        raise ValueError(f"no error lists for metric {metric!r} (have: {', '.join(ERROR_METRICS)})")
    return {"pairing": how, "false_positives": fps, "false_negatives": fns}
