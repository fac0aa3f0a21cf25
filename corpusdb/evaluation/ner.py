"""Named-entity scoring under the bio-NER matching criteria, with partial credit where the literature
gives it: Tsai et al. 2006, *Various criteria in the evaluation of biomedical named entity recognition*,
BMC Bioinformatics 7:92, for the criteria; Smith et al. 2008, *Overview of BioCreative II gene mention
recognition*, Genome Biology 9(Suppl 2):S2, for GENETAG's alternative boundaries.

Criteria (a reference span r and a predicted span p; ``corpusdb.agreement.spans`` has the same names):

``exact``, ``left``, ``right``, ``left_or_right``, ``approximate`` (one contains the other), ``overlap``
(any character in common, full credit; formerly named ``partial``, still accepted, which is NOT
SemEval-2013's half-credit partial: see :func:`score_semeval`), ``jaccard`` (character Jaccard >= the threshold): credit 1 or 0.
``fragment``: per-token credit, |tokens(r) ∩ tokens(p)| / |tokens(r) ∪ tokens(p)| (tokens are
``\\w+|[^\\w\\s]``, :mod:`corpusdb.agreement.tokens`), so "p21ras" against "p21ras proteins" earns 1/2
instead of the all-or-nothing 0 of a token-set match.
``core``: core-term matching: p earns 1 when it covers r's core term (``RefSpan.core``, by default r
itself) and lies inside r's widest acceptable extent.

GENETAG-style alternatives: a reference span may carry alternative acceptable boundaries
(``RefSpan.alternatives``); a prediction earns the best credit over the main boundaries and every
alternative, and counts once. Types are ``required``, ``ignored`` or ``merged`` (equal after mapping
the user's classes, e.g. protein+DNA+RNA -> macromolecule), as in agreement.

Pairing is one to one, maximising the summed credit (``scipy.optimize.linear_sum_assignment`` per
document, the exact assignment). Then tp = Σcredit, recall = Σcredit / |reference|, precision =
Σcredit / |predicted| (fn = |reference| - Σcredit, fp = |predicted| - Σcredit). Per type: a pair's
credit goes to the reference span's type (recall side) and, for fp, to the predicted span's type.
With binary criteria, no alternatives and no core terms, the counts equal the agreement engine's
matched / only-A / only-B (tested).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from corpusdb.agreement.tokens import tokenize
from corpusdb.basics.records import Annotations, Fragments, Span
from corpusdb.evaluation.counts import EvaluationInputError, Score

CRITERIA = (
    "exact",
    "left",
    "right",
    "left_or_right",
    "approximate",
    "overlap",
    "partial",
    "fragment",
    "jaccard",
    "core",
)
TYPE_MODES = ("required", "ignored", "merged")


@dataclass(frozen=True, slots=True)
class RefSpan:
    """A reference mention with optional alternative boundaries and core term (GENETAG's ``Correct``)."""

    span: Span
    alternatives: tuple[Fragments, ...] = ()
    core: Fragments | None = None


ALTERNATIVE_OF = "AlternativeOf"
CORE_OF = "CoreOf"


def reference_spans(ann: Annotations) -> list[RefSpan]:
    """A reference set's spans with GENETAG-style extras written as span attributes (brat ``A`` lines):
    a span with ``AlternativeOf=T1`` is an acceptable alternative boundary of ``T1``, one with
    ``CoreOf=T1`` is ``T1``'s core term; neither counts as a mention of its own."""
    alts: dict[str, list[Fragments]] = {}
    cores: dict[str, Fragments] = {}
    main: list[Span] = []
    for s in ann.spans:
        alt, core = s.attributes.get(ALTERNATIVE_OF), s.attributes.get(CORE_OF)
        if isinstance(alt, str):
            alts.setdefault(alt, []).append(s.fragments)
        elif isinstance(core, str):
            cores[core] = s.fragments
        else:
            main.append(s)
    return [RefSpan(s, tuple(alts.get(s.id, ())), cores.get(s.id)) for s in main]


def _chars(fr: Fragments) -> frozenset[int]:
    return frozenset(i for s, e in fr for i in range(s, e))


def _tokens(fr: Fragments, tokens: np.ndarray) -> frozenset[int]:
    out: set[int] = set()
    for s, e in fr:
        first = int(np.searchsorted(tokens[:, 1], s, side="right"))
        last = int(np.searchsorted(tokens[:, 0], e, side="left"))
        out.update(range(first, last))
    return frozenset(out)


def credit(r: Fragments, p: Fragments, criterion: str, *, jaccard: float = 0.5, tokens: np.ndarray | None = None,
           core: Fragments | None = None, extent: Fragments | None = None) -> float:  # fmt: skip
    """The credit a predicted extent ``p`` earns against reference boundaries ``r`` (0..1)."""
    rs, re_ = min(s for s, _ in r), max(e for _, e in r)
    ps, pe = min(s for s, _ in p), max(e for _, e in p)
    if criterion == "exact":
        return float(sorted(r) == sorted(p))
    if criterion == "left":
        return float(rs == ps)
    if criterion == "right":
        return float(re_ == pe)
    if criterion == "left_or_right":
        return float(rs == ps or re_ == pe)
    cr, cp = _chars(r), _chars(p)
    if criterion == "approximate":
        return float(bool(cr & cp) and (cr <= cp or cp <= cr))
    if criterion in ("overlap", "partial"):  # "partial" is the old name, kept for scripts
        return float(bool(cr & cp))
    if criterion == "jaccard":
        return float(len(cr & cp) / len(cr | cp) >= jaccard - 1e-12) if cr | cp else 0.0
    if criterion == "fragment":
        if tokens is None:
            raise EvaluationInputError("criterion 'fragment' needs the document texts")
        tr, tp = _tokens(r, tokens), _tokens(p, tokens)
        return len(tr & tp) / len(tr | tp) if tr | tp else 0.0
    if criterion == "core":
        return float(_chars(core or r) <= cp and cp <= _chars(extent or r))
    raise EvaluationInputError(f"unknown criterion {criterion!r}; expected one of {', '.join(CRITERIA)}")


def _type_map(types: str, classes: Mapping[str, Iterable[str]] | None) -> dict[str, str]:
    if types not in TYPE_MODES:
        raise EvaluationInputError(f"types must be one of {', '.join(TYPE_MODES)}, got {types!r}")
    if types != "merged":
        return {}
    if not classes:
        raise EvaluationInputError("types 'merged' needs classes, e.g. {'macromolecule': ['protein', 'DNA']}")
    return {m: cls for cls, members in classes.items() for m in members}


def score_ner(
    reference: Mapping[str, Sequence[RefSpan | Span]], predicted: Mapping[str, Sequence[Span]], *,
    criterion: str = "exact", types: str = "required", classes: Mapping[str, Iterable[str]] | None = None,
    jaccard: float = 0.5, texts: Mapping[str, str] | None = None, answered_only: bool = False,
) -> dict[str, Score]:  # fmt: skip
    """Scores per (merged) type and ``all``; see the module docstring."""
    from scipy.optimize import linear_sum_assignment  # exact one-to-one pairing of largest summed credit

    if criterion not in CRITERIA:
        raise EvaluationInputError(f"unknown criterion {criterion!r}; expected one of {', '.join(CRITERIA)}")
    tmap = _type_map(types, classes)

    def typ(t: str) -> str:
        return tmap.get(t, t)

    scores: dict[str, Score] = {"all": Score("all")}
    for doc, refs in reference.items():
        if answered_only and doc not in predicted:
            continue
        rr = [
            x if isinstance(x, RefSpan) else RefSpan(x)
            for x in refs
            if (x.span if isinstance(x, RefSpan) else x).fragments
        ]
        pp = [s for s in predicted.get(doc, ()) if s.fragments]
        tokens = None
        if criterion == "fragment":
            if texts is None or doc not in texts:
                raise EvaluationInputError(f"criterion 'fragment' needs the text of document {doc!r}")
            tokens = tokenize(texts[doc])
        c = np.zeros((len(rr), len(pp)))
        # only pairs whose extents overlap can earn credit: a cheap vectorised filter before the loop
        r_lo = np.array(
            [min(s for o in (r.span.fragments, *r.alternatives) for s, _ in o) for r in rr]
        ).reshape(-1, 1)
        r_hi = np.array(
            [max(e for o in (r.span.fragments, *r.alternatives) for _, e in o) for r in rr]
        ).reshape(-1, 1)
        p_lo = np.array([p.start for p in pp]).reshape(1, -1)
        p_hi = np.array([p.end for p in pp]).reshape(1, -1)
        near = (
            (p_lo < np.maximum(r_hi, r_lo + 1)) & (np.maximum(p_hi, p_lo + 1) > r_lo) if rr and pp else None
        )
        for i, r in enumerate(rr):
            options = (r.span.fragments, *r.alternatives)
            extent = tuple(f for o in options for f in o)
            for j in np.flatnonzero(near[i]).tolist() if near is not None else ():
                p = pp[j]
                if types != "ignored" and typ(r.span.type) != typ(p.type):
                    continue
                c[i, j] = max(credit(o, p.fragments, criterion, jaccard=jaccard, tokens=tokens, core=r.core,
                                     extent=extent) for o in options)  # fmt: skip
        got_r = np.zeros(len(rr))
        got_p = np.zeros(len(pp))
        if c.size and c.any():
            ri, pi = linear_sum_assignment(c, maximize=True)
            got_r[ri], got_p[pi] = c[ri, pi], c[ri, pi]
        for i, r in enumerate(rr):
            for name in ("all", typ(r.span.type)):
                scores.setdefault(name, Score(name)).add(doc, got_r[i], 1 - got_r[i], 0)
        for j, p in enumerate(pp):
            for name in ("all", typ(p.type)):
                scores.setdefault(name, Score(name)).add(doc, fp=1 - got_p[j])
        for name in ("all",):
            scores[name].per_document.setdefault(doc, [0, 0, 0])
    return scores


SEMEVAL_SCHEMES = {
    "strict": "strict",
    "exact": "exact",
    "partial": "partial (half credit)",
    "ent_type": "type",
}
"""SemEval-2013 task 9.1 schemes (nervaluate's names) -> the score names reports print."""


def score_semeval(
    reference: Mapping[str, Sequence[Span]],
    predicted: Mapping[str, Sequence[Span]],
    *,
    answered_only: bool = False,
) -> dict[str, Score]:
    """The four SemEval-2013 schemes (``corpusdb.agreement.spans.semeval_counts``, which agrees with
    nervaluate) as scores per document: tp = COR + PAR/2, fn = POS - tp, fp = ACT - tp, so precision
    and recall are SemEval's. ``partial (half credit)`` is SemEval's partial; the ``overlap`` criterion
    (any overlap, full credit) is not."""
    from corpusdb.agreement.spans import semeval_counts

    out = {name: Score(name) for name in SEMEVAL_SCHEMES.values()}
    for doc, refs in reference.items():
        if answered_only and doc not in predicted:
            continue
        counts = semeval_counts({doc: (list(refs), list(predicted.get(doc, ())))})
        for scheme, name in SEMEVAL_SCHEMES.items():
            c = counts[scheme]
            tp = c["COR"] + 0.5 * c["PAR"]  # type: ignore[operator]
            out[name].add(doc, tp, c["POS"] - tp, c["ACT"] - tp)  # type: ignore[operator]
    return out
