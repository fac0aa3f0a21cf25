"""BioNLP-ST 2011 Bacteria Biotope (BB) events and Bacteria Gene Renaming (Rename) relations.

**BB 2011** (Bossy, Jourde, Bessières, van de Guchte and Nédellec 2011, *BioNLP Shared Task 2011 -
Bacteria Biotope*, Proceedings of the BioNLP Shared Task 2011 Workshop, ACL, the evaluation section;
the same metric in Bossy et al. 2012, *BioNLP Shared Task - The Bacteria Track*, BMC Bioinformatics
13(Suppl 11):S3). Each reference event is paired with at most one predicted event of the same type, one
to one, so that ΣS is largest; then

    recall = ΣS / |reference events|,   precision = ΣS / |predicted events|,

per event type (Localization, PartOf) and over both. The similarity of a predicted event p to a
reference event r, with every argument equivalent to the members of its reference coreference
(``Equiv``) set:

* ``Localization(Bacterium, Localization)``: S = B · J · T, where B = 1 if p's bacterium has exactly
  the boundaries of r's bacterium or of one of its equivalents, else 0 (strict bacterium boundaries);
  J = the largest character Jaccard |p ∩ e| / |p ∪ e| between p's location and r's location or an
  equivalent e (location boundaries by Jaccard); T = 1 if the location types are equal, 0.5 if not
  (type penalty).
* ``PartOf(Host, Part)``: both arguments are locations: S = J_host · T_host · J_part · T_part.

In :class:`corpusdb.evaluation.counts.Score` terms tp = ΣS, fn = |reference| - ΣS, fp = |predicted| - ΣS,
so P and R above are the usual formulas.

**Rename 2011** (Jourde et al. 2011, *BioNLP Shared Task 2011 - Bacteria Gene Interactions and Renaming*,
Proceedings of the BioNLP Shared Task 2011 Workshop, ACL): ``Renaming(Former, New)`` between gene
mentions (the ``.a1`` genes, matched by their boundaries, not their ids). *strict*: Former and New must
both match; *relaxed direction*: the pair matches in either direction. Counts are exact (tp/fn/fp of pairs).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from corpusdb.basics.records import Annotations, Relation, Span
from corpusdb.basics.unionfind import UnionFind
from corpusdb.evaluation.counts import EvaluationInputError, Score

BB_ROLES: dict[str, tuple[str, str]] = {
    "Localization": ("Bacterium", "Localization"),
    "PartOf": ("Host", "Part"),
}
TYPE_PENALTY = 0.5
EQUIV_TYPES = frozenset({"Equiv", "equiv", "coreference", "Coreference"})


def _chars(span: Span) -> frozenset[int]:
    return frozenset(i for s, e in span.fragments for i in range(s, e))


def jaccard(a: Span, b: Span) -> float:
    ca, cb = _chars(a), _chars(b)
    union = len(ca | cb)
    return len(ca & cb) / union if union else 0.0


def equivalents(ann: Annotations) -> dict[str, set[str]]:
    """Span id -> its coreference set (itself included), the closure of the ``Equiv`` links."""
    uf = UnionFind()
    for lk in ann.links:
        if lk.type in EQUIV_TYPES:
            uf.union(lk.source, lk.target)
    groups: dict[object, set[str]] = {}
    for s in ann.spans:
        groups.setdefault(uf.find(s.id), set()).add(s.id)
    return {s.id: groups[uf.find(s.id)] for s in ann.spans}


def _arg(rel: Relation, role: str) -> str | None:
    return next((a.ref for a in rel.args if a.role == role), None)


def _location_sim(ref: Annotations, eq: Mapping[str, set[str]], r_id: str, p: Span) -> float:
    r_span = ref.span(r_id)
    best = max((jaccard(ref.span(e), p) for e in eq.get(r_id, {r_id})), default=0.0)
    return best * (1.0 if p.type == r_span.type else TYPE_PENALTY)


def similarity(
    ref: Annotations, eq: Mapping[str, set[str]], r: Relation, pred: Annotations, p: Relation
) -> float:
    """S of predicted event ``p`` against reference event ``r`` (same type), as the docstring says."""
    roles = BB_ROLES[r.type]
    ids_r = [_arg(r, role) for role in roles]
    ids_p = [_arg(p, role) for role in roles]
    if None in ids_r or None in ids_p:
        return 0.0
    try:
        p_spans = [pred.span(i) for i in ids_p]  # type: ignore[arg-type]
    except KeyError:
        return 0.0
    if r.type == "Localization":
        bact = {ref.span(e).fragments for e in eq.get(ids_r[0], {ids_r[0]})}  # type: ignore[arg-type]
        if tuple(sorted(p_spans[0].fragments)) not in {tuple(sorted(f)) for f in bact}:
            return 0.0
        return _location_sim(ref, eq, ids_r[1], p_spans[1])  # type: ignore[arg-type]
    return _location_sim(ref, eq, ids_r[0], p_spans[0]) * _location_sim(ref, eq, ids_r[1], p_spans[1])  # type: ignore[arg-type]


def _events(ann: Annotations, etype: str) -> list[Relation]:
    return [r for r in ann.relations if r.type == etype]


def score_bb(
    reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations], *, answered_only: bool = False
) -> dict[str, Score]:
    """BB 2011 scores per event type and ``all``; a document without prediction scores 0 (a miss)."""
    from scipy.optimize import linear_sum_assignment  # the best one-to-one pairing (maximum ΣS)

    scores = {t: Score(t) for t in (*BB_ROLES, "all")}
    for doc, ref in reference.items():
        if answered_only and doc not in predicted:
            continue
        pred = predicted.get(doc, Annotations())
        eq = equivalents(ref)
        for etype in BB_ROLES:
            rs, ps = _events(ref, etype), _events(pred, etype)
            total = 0.0
            if rs and ps:
                try:
                    sim = np.array([[similarity(ref, eq, r, pred, p) for p in ps] for r in rs])
                except KeyError as exc:
                    raise EvaluationInputError(
                        f"reference document {doc!r}: a {etype} event refers to span {exc.args[0]!r}, which it lacks"
                    ) from None
                rows, cols = linear_sum_assignment(sim, maximize=True)
                total = float(sim[rows, cols].sum())
            for name in (etype, "all"):
                scores[name].add(doc, total, len(rs) - total, len(ps) - total)
    return scores


def _key(ann: Annotations, rel: Relation, role: str) -> tuple[tuple[int, int], ...] | None:
    ref = _arg(rel, role)
    try:
        return tuple(sorted(ann.span(ref).fragments)) if ref is not None else None
    except KeyError:
        return None


def renamings(ann: Annotations, relaxed: bool) -> set[Any]:
    """The Renaming pairs of a set, by the boundaries of Former and New (unordered when relaxed)."""
    out: set[Any] = set()
    for r in ann.relations:
        if r.type != "Renaming":
            continue
        f, n = _key(ann, r, "Former"), _key(ann, r, "New")
        if f is None or n is None:
            continue
        out.add(frozenset((f, n)) if relaxed else (f, n))
    return out


def score_rename(
    reference: Mapping[str, Annotations], predicted: Mapping[str, Annotations], *, answered_only: bool = False
) -> dict[str, Score]:
    """Rename 2011: ``strict`` and ``relaxed direction`` pair scores."""
    scores = {"strict": Score("strict"), "relaxed direction": Score("relaxed direction")}
    for doc, ref in reference.items():
        if answered_only and doc not in predicted:
            continue
        pred = predicted.get(doc, Annotations())
        scores["strict"].add_sets(doc, renamings(ref, False), renamings(pred, False))
        scores["relaxed direction"].add_sets(doc, renamings(ref, True), renamings(pred, True))
    return scores


def documents_of(parsed: Iterable[Any]) -> dict[str, Annotations]:
    """``{document id: annotations}`` from importers' ``ParsedDocument`` records."""
    return {p.document.external_id: p.annotations for p in parsed}
