"""Document-label agreement (TREC-style DR/PR/NR, triage yes/no) for two or more raters.

A document is the unit and a document a rater did not judge is a missing rating. The multi-rater
coefficients come from ``corpusdb.agreement.labels.label_agreement``; this module adds what a
report needs around them: the pairwise tables and matrices, the documents raters disagree on, the
pooled confusion of categories, and bootstrap CIs at the report's confidence level.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np

from corpusdb.agreement.bootstrap import bootstrap_alpha, bootstrap_table, bootstrap_units
from corpusdb.agreement.coefficients import (
    cohen_kappa,
    contingency_table,
    gwet_ac1,
    krippendorff_alpha_table,
    percent_agreement,
    scott_pi,
)
from corpusdb.agreement.labels import (
    LEVEL_WEIGHTS,
    LabelAgreement,
    alpha_distance,
    label_agreement,
    label_ratings,
    numeric_values,
)
from corpusdb.agreement.multirater import ratings_to_counts
from corpusdb.agreement.results import AgreementInputError
from corpusdb.agreement.weights import agreement_weights
from corpusdb.basics.errors import InvalidInput
from corpusdb.reports.options import AgreementOptions, Rater
from guidelines.schema import Schema

POLICY = (
    "a document a rater did not judge is a missing rating: pairwise figures use the documents both "
    "judged; multi-rater coefficients use documents judged by two or more (documents judged once "
    "still count in the chance margins of Fleiss' kappa and AC1, Gwet's generalisation)"
)


def label_name(raters: Sequence[Rater], opts: AgreementOptions, schema: Schema | None) -> str:
    """The label asked for, else the schema's first document label, else the only one in the data."""
    if opts.label:
        return opts.label
    if schema is not None and schema.document_labels:
        return schema.document_labels[0].name
    seen = sorted({lb.name for r in raters for a in r.sets.values() for lb in a.labels})
    if len(seen) != 1:
        raise InvalidInput(f"name the document label to compare (--label); found {', '.join(seen) or 'none'}")
    return seen[0]


def _categories(name: str, schema: Schema | None) -> list[Any] | None:
    d = schema.document_label(name) if schema is not None else None
    return [str(v.value) for v in d.values] if d is not None else None


def compute_labels(
    raters: Sequence[Rater], opts: AgreementOptions, schema: Schema | None
) -> tuple[LabelAgreement, dict[str, Any]]:
    """The engine's result and the JSON body parts (pairs, matrices, rows, confusion, summary)."""
    name = label_name(raters, opts, schema)
    docs, names, ratings = label_ratings({r.name: r.sets for r in raters}, name)
    judged = [i for i, row in enumerate(ratings) if any(v is not None for v in row)]
    if not judged:
        raise InvalidInput(f"no visible set carries the document label {name!r}")
    docs = [docs[i] for i in judged]
    ratings = [ratings[i] for i in judged]
    cats = _categories(name, schema)
    if opts.types == "merged":  # --merge "DR,PR=REL" merges label values into a class
        seen = {v for row in ratings for v in row if v is not None}
        opts.check_merged_types(
            {str(v) for v in (*(cats or ()), *seen)}, f"values of the document label {name!r}"
        )
        ratings = [[None if v is None else opts.class_of(str(v)) for v in row] for row in ratings]
        cats = list(dict.fromkeys(opts.class_of(c) for c in cats)) if cats is not None else None
    if cats is not None:
        seen = {v for row in ratings for v in row if v is not None}
        cats = cats + sorted(seen - set(cats))  # values outside the schema still count (and show)
    level = opts.level
    if level in ("interval", "ratio"):
        if cats is None:
            cats = sorted({v for row in ratings for v in row if v is not None})
        try:
            cats = sorted(cats, key=float)  # numbers in their order (the schema may list them otherwise)
        except (TypeError, ValueError):
            numeric_values(cats, level)  # says which value is not a number
    try:
        la = label_agreement(ratings, annotators=names, categories=cats, level=level)
    except AgreementInputError as exc:
        raise InvalidInput(f"document label {name!r}: {exc}") from None
    cats = list(la.categories)
    weights: Any = LEVEL_WEIGHTS[level]
    if level in ("interval", "ratio"):
        weights = agreement_weights(weights, list(numeric_values(cats, level)))
    boot = {"n_resamples": opts.bootstrap, "seed": opts.seed, "confidence": opts.confidence}
    q = len(cats)
    cidx = {c: i for i, c in enumerate(cats)}
    pairs: list[dict[str, Any]] = []
    mats: dict[str, list[list[float | None]]] = {
        m: [
            [1.0 if m == "percent_agreement" and i == j else None for j in range(len(names))]
            for i in range(len(names))
        ]
        for m in ("cohen_kappa", "percent_agreement", "krippendorff_alpha")
    }
    pooled = np.zeros((q, q))
    only = np.zeros((2, q))
    for i, j in combinations(range(len(names)), 2):
        x = [row[i] for row in ratings]
        y = [row[j] for row in ratings]
        table, _ = contingency_table(x, y, cats)
        coeffs = {
            "percent_agreement": percent_agreement(table, weights),
            "cohen_kappa": cohen_kappa(table, weights),
            "scott_pi": scott_pi(table, weights),
            "gwet_ac1": gwet_ac1(table, weights),
            "krippendorff_alpha": krippendorff_alpha_table(table, weights),
        }
        if level != "nominal":
            # The same ordinal (interval, ratio) alpha as the multi-rater figure (one pair: the same
            # number), not a weighted one beside it under the same name.
            both = [[u, v] for u, v in zip(x, y, strict=True) if u is not None and v is not None]
            coeffs["krippendorff_alpha"] = label_agreement(
                both, annotators=[names[i], names[j]], categories=cats, level=level
            ).coefficients["krippendorff_alpha"]
        ci = None
        if opts.bootstrap and level == "nominal":
            per_doc = np.zeros((len(docs), q, q))
            both = [k for k in range(len(docs)) if x[k] is not None and y[k] is not None]
            per_doc[both, [cidx[x[k]] for k in both], [cidx[y[k]] for k in both]] = 1
            ci = {"cohen_kappa": bootstrap_table(per_doc, "cohen_kappa", **boot).to_dict()}
        for m in mats:
            mats[m][i][j] = mats[m][j][i] = coeffs[m].value
        pooled += table
        for k in range(len(docs)):
            if (x[k] is None) != (y[k] is None):
                only[0 if y[k] is None else 1, cidx[x[k] if y[k] is None else y[k]]] += 1
        pairs.append(
            {
                "a": names[i],
                "b": names[j],
                "documents": int(table.sum()),
                "table": [[int(v) for v in r] for r in table],
                "coefficients": {k: v.to_dict() for k, v in coeffs.items()},
                "ci": ci,
            }
        )
    n_pairs = len(pairs)
    if n_pairs > 1:
        pooled = pooled + pooled.T
        only = np.vstack([only.sum(axis=0)] * 2)
    confusion = {
        "orientation": "a_by_b" if n_pairs == 1 else "pooled_symmetric",
        "a": names[0] if n_pairs == 1 else None,
        "b": names[1] if n_pairs == 1 else None,
        "labels": [str(c) for c in cats],
        "table": [[int(v) for v in r] for r in pooled],
        "unmatched_a": [int(v) for v in only[0]],
        "unmatched_b": [int(v) for v in only[1]],
    }
    counts, _ = ratings_to_counts(ratings, cats)
    multi_boot: dict[str, Any] = {}
    if opts.bootstrap:
        for coef in (
            ("fleiss_kappa", "gwet_ac1", "percent_agreement")
            if level == "nominal"
            else ("percent_agreement",)
        ):
            multi_boot[coef] = bootstrap_units(counts, coef, **boot).to_dict()
        delta = alpha_distance(level, cats)  # fixed for nominal, interval and ratio; ordinal's is not
        if delta is not None:
            multi_boot["krippendorff_alpha"] = bootstrap_alpha(counts, delta, **boot).to_dict()
    doc_rows = []
    for d, row in zip(docs, ratings, strict=True):
        given = [v for v in row if v is not None]
        agree = sum(1 for u, v in combinations(given, 2) if u == v)
        npairs = len(given) * (len(given) - 1) // 2
        doc_rows.append(
            {
                "document": d,
                "value": agree / npairs if npairs else None,
                "n_raters": len(given),
                "ratings": {n: v for n, v in zip(names, row, strict=True)},
            }
        )
    per_cat = la.per_category
    type_rows = [
        {
            "name": str(c),
            "value": per_cat["fleiss_kappa"][str(c)].value,
            "krippendorff_alpha": per_cat["krippendorff_alpha"][str(c)].value,
            "ratings": int(counts[:, k].sum()),
        }
        for k, c in enumerate(cats)
    ]
    kappas = [
        (p["coefficients"]["cohen_kappa"]["value"], p)
        for p in pairs
        if p["coefficients"]["cohen_kappa"]["value"] is not None
    ]
    lo = min(kappas, key=lambda t: t[0], default=None)
    hi = max(kappas, key=lambda t: t[0], default=None)
    alpha = la.coefficients["krippendorff_alpha"]
    body = {
        "label": name,
        "categories": [str(c) for c in cats],
        "pairs": pairs,
        "matrices": {m: {"names": list(names), "values": v} for m, v in mats.items()},
        "multirater": {
            "coefficients": {
                v.name if k == "gwet_ac" else k: v.to_dict()  # gwet_ac1 / gwet_ac2
                for k, v in la.coefficients.items()
            },
            "per_category": {k: {c: v.to_dict() for c, v in d.items()} for k, d in per_cat.items()},
            "bootstrap": multi_boot or None,
            "units": len(docs),
            "policy": POLICY,
        },
        "per_type": {"measure": "fleiss_kappa_per_category", "rows": type_rows},
        "per_document": {"measure": "agreeing_rater_pairs", "rows": doc_rows},
        "confusion": confusion,
        "summary": {
            "measure": "krippendorff_alpha",
            "level": level,
            "value": alpha.value,
            "n_pairs": n_pairs,
            "ci": multi_boot.get("krippendorff_alpha"),
            # the summary's value is alpha over all raters; the pairs beside it are Cohen's kappa: say so
            "pair_measure": "cohen_kappa",
            "lowest_pair": {"a": lo[1]["a"], "b": lo[1]["b"], "value": lo[0], "measure": "cohen_kappa"}
            if lo
            else None,
            "highest_pair": {"a": hi[1]["a"], "b": hi[1]["b"], "value": hi[0], "measure": "cohen_kappa"}
            if hi
            else None,
        },
    }
    return la, body
