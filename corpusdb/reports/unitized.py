"""Unitizing measures over a project's spans: Krippendorff's alpha_u and Mathet et al.'s gamma.

Why a report of its own: both judge where the units are *and* what they are, without a matching
criterion, so they sit beside the pairwise-F1 report rather than inside it. The engines are
:mod:`corpusdb.agreement.unitizing` and :mod:`corpusdb.agreement.gamma` (checked against published
examples and pygamma-agreement); this module lays a project's spans out as their continua.

* ``alpha_u``: the documents the raters share are laid end to end as one continuum (character
  offsets); each span fragment is a unit of its type; overlapping same-type fragments of one rater
  are merged (alpha_u needs a partition: a rater's overlapping units cannot be told apart). Each
  document's own alpha_u (its continuum alone, every rater at once: the per-document agreement of all
  annotators, not of pairs) is listed under ``per_document``.
* ``gamma``: one continuum per document (the alignment is a document's); the corpus figure is the
  mean of the documents' gamma, each document's figure listed. Its expected disorder is sampled
  (``samples`` continua, seeded); ``sample_documents`` draws that many documents (seeded) when the
  corpus is too large for the alignment's integer program on every document.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

MEASURES = ("alpha_u", "gamma")
SCHEMA_ID = "corpusdb.unitizing/1"


@dataclass(frozen=True, slots=True)
class GammaOptions:
    """Gamma's settings, stated in every output: dissimilarity d = alpha * d_pos + beta * d_cat
    (d_pos the squared positional distance of Mathet et al. 2015, d_cat 0/1), delta_empty the cost of
    leaving a unit unaligned, ``samples`` random continua for the expected disorder."""

    alpha: float = 1.0
    beta: float = 1.0
    delta_empty: float = 1.0
    samples: int = 30

    def to_dict(self) -> dict[str, Any]:
        return {
            "dissimilarity": "combined: alpha * positional (squared, Mathet et al. 2015) + beta * categorical (0/1)",
            "alpha": self.alpha,
            "beta": self.beta,
            "delta_empty": self.delta_empty,
            "sampler": "statistical (Mathet et al. 2015; pygamma-agreement's default)",
            "samples": self.samples,
        }


def shared_documents(raters: Sequence[Any]) -> list[str]:
    """Documents every rater has a set for (the unitizing measures need all observers on each)."""
    if not raters:
        return []
    common = set(raters[0].sets)
    for r in raters[1:]:
        common &= set(r.sets)
    return sorted(common)


def compute(
    measure: str,
    raters: Sequence[Any],
    lengths: Mapping[str, int],
    *,
    gamma: GammaOptions | None = None,
    sample_documents: int | None = None,
    seed: int = 0,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, Any]:
    """The body of a ``corpusdb.unitizing/1`` report (raters: ``Rater`` with full records)."""
    from corpusdb.agreement.results import AgreementInputError

    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}, not {measure!r}")
    names = [r.name for r in raters]
    if len(names) < 2:
        raise AgreementInputError(f"{measure} needs two raters or more; found {names or 'none'}")
    docs = shared_documents(raters)
    notes = []
    if sample_documents is not None and 0 < sample_documents < len(docs):
        import numpy as np

        rng = np.random.default_rng(seed)
        picked = sorted(rng.choice(len(docs), size=sample_documents, replace=False).tolist())
        notes.append(f"a seeded sample of {sample_documents} of {len(docs)} shared documents (seed {seed})")
        docs = [docs[i] for i in picked]
    if not docs:
        raise AgreementInputError(f"raters {', '.join(names)} share no document")
    body: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "measure": measure,
        "raters": names,
        "documents": docs,
        "sample": {"documents": sample_documents, "seed": seed} if sample_documents else None,
        "notes": notes,
    }
    if measure == "alpha_u":
        from corpusdb.agreement.unitizing import unitizing_alpha_spans

        res = unitizing_alpha_spans(
            [(lengths[d], {r.name: r.sets[d].spans for r in raters}) for d in docs], observers=names
        )
        body["value"] = res.alpha
        body["options"] = {
            "definition": "Krippendorff 1995/2004 (section 12.4), per category and pooled",
            "continuum": "the shared documents end to end, in characters",
            "overlaps": "one rater's overlapping same-type fragments are merged",
        }
        body["per_category"] = [
            {
                "category": c.category,
                "value": c.alpha,
                "do": c.do,
                "de": c.de,
                "n_units": c.n_units,
                "note": c.note,
            }
            for c in res.per_category.values()
        ]
        if res.note:
            notes.append(res.note)
        rows_u = []
        for k, d in enumerate(docs):  # each document's own alpha_u, over every rater (not pairs)
            per_doc = {r.name: r.sets[d].spans for r in raters}
            n_units = sum(
                1 for sp in (s for v in per_doc.values() for s in v) for b, e in sp.fragments if e > b
            )
            if not n_units:
                rows_u.append(
                    {"document": d, "value": None, "units": 0, "do": None, "de": None, "note": "no units"}
                )
            else:
                rd = unitizing_alpha_spans([(lengths[d], per_doc)], observers=names)
                rows_u.append({"document": d, "value": rd.alpha, "units": n_units,
                               "do": sum(c.do for c in rd.per_category.values()),
                               "de": sum(c.de for c in rd.per_category.values()), "note": rd.note})  # fmt: skip
            if progress:
                progress(k + 1, len(docs), f"alpha_u: {d}")
        body["per_document"] = rows_u
        return body
    from corpusdb.agreement.gamma import gamma_agreement

    g = gamma or GammaOptions()
    rows, values = [], []
    for k, d in enumerate(docs):
        units = [
            (r.name, b, e, sp.type)
            for r in raters
            for sp in r.sets[d].spans
            for b, e in sp.fragments
            if e > b
        ]
        if not units:
            rows.append({"document": d, "value": None, "units": 0, "note": "no units"})
        else:
            res_g = gamma_agreement(units, alpha=g.alpha, beta=g.beta, delta_empty=g.delta_empty,
                                    n_samples=g.samples, seed=seed + k)  # fmt: skip
            rows.append({"document": d, "value": res_g.gamma, "units": len(units),
                         "best_alignment_disorder": res_g.best_alignment_disorder,
                         "expected_disorder": res_g.expected_disorder, "note": res_g.note})  # fmt: skip
            if res_g.gamma is not None:
                values.append(res_g.gamma)
        if progress:
            progress(k + 1, len(docs), f"gamma: {d}")
    body["value"] = sum(values) / len(values) if values else None
    body["options"] = {
        **g.to_dict(),
        "seed": f"{seed} + the document's position in the list",
        "corpus": "mean of the documents' gamma (one continuum each)",
    }
    body["per_document"] = rows
    return body
