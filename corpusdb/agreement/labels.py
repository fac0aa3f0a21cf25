"""Document-label agreement (TREC-style DR/PR/NR relevance, triage yes/no) for two or more annotators.

A document is a unit; a missing judgment is allowed. Everything comes from the coefficient
modules; this module only arranges the ratings and picks what applies: chance-corrected
multi-rater coefficients, Cohen/Scott/Bennett when there are exactly two annotators, per-category
Fleiss and alpha, a pairwise Cohen's kappa matrix, and (optionally) document bootstrap CIs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, TypeVar

import numpy as np

from corpusdb.agreement._checks import codes_to_counts, ratings_to_codes
from corpusdb.agreement.alpha import krippendorff_alpha, per_category_alpha
from corpusdb.agreement.bootstrap import bootstrap_alpha, bootstrap_units
from corpusdb.agreement.coefficients import bennett_s, cohen_kappa, contingency_table, scott_pi
from corpusdb.agreement.multirater import (
    brennan_prediger,
    conger_kappa,
    fleiss_kappa,
    gwet_ac,
    per_category_fleiss,
)
from corpusdb.agreement.results import AgreementInputError, BootstrapCI, Coefficient, _ToDict
from corpusdb.agreement.weights import agreement_weights
from corpusdb.basics.records import Annotations, DocLabel

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class PairwiseMatrix(_ToDict):
    """A square matrix of a pairwise measure between annotators (None where undefined)."""

    measure: str
    names: tuple[str, ...]
    values: tuple[tuple[float | None, ...], ...]

    def mean(self) -> float | None:
        """Mean over distinct pairs (ignoring undefined ones)."""
        vals = [self.values[i][j] for i, j in combinations(range(len(self.names)), 2)]
        ok = [v for v in vals if v is not None]
        return sum(ok) / len(ok) if ok else None


def pairwise_matrix(
    items: Mapping[str, T], measure: Callable[[T, T], float | None], *, name: str = "", symmetric: bool = True
) -> PairwiseMatrix:
    """Apply a pairwise measure to every pair of annotators (row = A, column = B).

    The diagonal is the measure of an annotator with itself. With ``symmetric`` only i <= j is
    computed and mirrored.
    """
    names = list(items)
    k = len(names)
    vals: list[list[float | None]] = [[None] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if symmetric and j < i:
                vals[i][j] = vals[j][i]
                continue
            vals[i][j] = measure(items[names[i]], items[names[j]])
    return PairwiseMatrix(
        name or getattr(measure, "__name__", "measure"), tuple(names), tuple(tuple(r) for r in vals)
    )


def label_ratings(
    sets: Mapping[str, Mapping[str, Annotations | Sequence[DocLabel]]], name: str
) -> tuple[list[str], list[str], list[list[str | None]]]:
    """Documents x annotators matrix of one label's values from annotator -> document -> labels.

    Returns (document ids, annotators, ratings); a document an annotator did not judge is None.
    Two values of the same label by one annotator on one document are an error.
    """
    annotators = list(sets)
    docs = sorted({d for per in sets.values() for d in per})
    ratings: list[list[str | None]] = []
    for d in docs:
        row: list[str | None] = []
        for a in annotators:
            item = sets[a].get(d)
            labels = item.labels if isinstance(item, Annotations) else (item or ())
            vals = [lb.value for lb in labels if lb.name == name]
            if len(set(vals)) > 1:
                raise AgreementInputError(
                    f"annotator {a!r} gave document {d!r} two values of {name!r}: {vals}"
                )
            row.append(vals[0] if vals else None)
        ratings.append(row)
    return docs, annotators, ratings


@dataclass(frozen=True, slots=True)
class LabelAgreement(_ToDict):
    coefficients: Mapping[str, Coefficient]
    per_category: Mapping[str, Mapping[str, Coefficient]]
    pairwise: PairwiseMatrix | None
    categories: tuple[Any, ...]
    annotators: tuple[str, ...]
    n_documents: int
    bootstrap: Mapping[str, BootstrapCI] = field(default_factory=dict)


def label_agreement(
    ratings: Sequence[Sequence[Any]],
    *,
    annotators: Sequence[str] | None = None,
    categories: Sequence[Any] | None = None,
    ordered: bool = False,
    level: str | None = None,
    n_resamples: int = 0,
    seed: int = 0,
) -> LabelAgreement:
    """All coefficients on documents x annotators ratings (None = not judged).

    ``ordered``: the categories (given in order, e.g. ["NR", "PR", "DR"]) are ordinal: alpha is
    ordinal and kappa/AC2 get linear weights. ``level`` (``nominal``, ``ordinal``, ``interval``,
    ``ratio``) says the same for any level: at ``interval`` or ``ratio`` the values are numbers
    (``"4"`` or 4), alpha uses Krippendorff's interval or ratio distance on them, and kappa/AC2 get
    Gwet's quadratic or ratio weights on them (the weights that give interval or ratio alpha).
    ``n_resamples`` > 0 adds document bootstrap CIs.
    """
    level = level or ("ordinal" if ordered else "nominal")
    if level not in LEVEL_WEIGHTS:
        raise AgreementInputError(f"level must be one of {', '.join(LEVEL_WEIGHTS)}, got {level!r}")
    ordered = level == "ordinal"
    if ordered and categories is None:
        raise AgreementInputError("ordered=True needs the categories in their order")
    codes, cats = ratings_to_codes(ratings, categories)
    n_ann = codes.shape[1]
    names = list(annotators) if annotators is not None else [f"annotator{i + 1}" for i in range(n_ann)]
    if len(names) != n_ann:
        raise AgreementInputError(f"{len(names)} annotator names for {n_ann} rating columns")
    counts = codes_to_counts(codes, len(cats))
    scores = numeric_values(cats, level) if level in ("interval", "ratio") else None
    weights: Any = LEVEL_WEIGHTS[level]
    if scores is not None:
        weights = agreement_weights(weights, list(scores))  # on the values, not on their ranks
    alpha_data = _codes_to_data(codes) if scores is None else _codes_to_values(codes, scores)
    coeffs: dict[str, Coefficient] = {
        "fleiss_kappa": fleiss_kappa(counts, weights, categories=cats),
        "gwet_ac": gwet_ac(counts, weights, categories=cats),
        "brennan_prediger": brennan_prediger(counts, weights, categories=cats),
        "krippendorff_alpha": krippendorff_alpha(
            alpha_data, level, value_domain=list(range(len(cats))) if scores is None else list(scores)
        ),
    }
    if n_ann >= 2 and len(cats) >= 1:
        coeffs["conger_kappa"] = conger_kappa(
            _codes_to_data(codes).T.tolist(), weights, categories=list(range(len(cats)))
        )
    if n_ann == 2:
        table, _ = contingency_table(
            [None if c < 0 else c for c in codes[:, 0]],
            [None if c < 0 else c for c in codes[:, 1]],
            list(range(len(cats))),
        )
        coeffs["cohen_kappa"] = cohen_kappa(table, weights)
        coeffs["scott_pi"] = scott_pi(table, weights)
        coeffs["bennett_s"] = bennett_s(table, weights)
    per_cat = {
        # named by category (``fleiss_kappa[PR]``), not by column index (``fleiss_kappa[0]``)
        "fleiss_kappa": dict(per_category_fleiss(counts, [str(c) for c in cats]).items()),
        "krippendorff_alpha": {
            str(cats[k]): v
            for k, v in per_category_alpha(_codes_to_data(codes), value_domain=list(range(len(cats)))).items()
        },
    }
    pairwise = None
    if n_ann >= 2:
        cols = {names[i]: [None if c < 0 else int(c) for c in codes[:, i]] for i in range(n_ann)}

        def kappa(x: list[Any], y: list[Any]) -> float | None:
            t, _ = contingency_table(x, y, list(range(len(cats))))
            return cohen_kappa(t, weights).value

        pairwise = pairwise_matrix(cols, kappa, name="cohen_kappa")
    boot: dict[str, BootstrapCI] = {}
    if n_resamples > 0:
        for name in ("fleiss_kappa", "gwet_ac1", "brennan_prediger", "percent_agreement"):
            if level == "nominal" or name == "percent_agreement":
                boot[name] = bootstrap_units(counts, name, n_resamples=n_resamples, seed=seed)
        delta = alpha_distance(level, cats)
        if delta is not None:
            boot["krippendorff_alpha"] = bootstrap_alpha(counts, delta, n_resamples=n_resamples, seed=seed)
    return LabelAgreement(coeffs, per_cat, pairwise, tuple(cats), tuple(names), codes.shape[0], boot)


LEVEL_WEIGHTS: dict[str, str | None] = {"nominal": None, "ordinal": "linear", "interval": "quadratic",
                                         "ratio": "ratio"}  # fmt: skip
"""The kappa/AC2 weights that go with each level of measurement (Gwet 2014: quadratic weights give
interval alpha, ratio weights ratio alpha; linear ones are the usual ordinal kappa)."""


def numeric_values(categories: Sequence[Any], level: str) -> np.ndarray:
    """The categories as numbers, for interval or ratio alpha (``"4"`` -> 4.0); says which is not."""
    out = []
    for c in categories:
        try:
            out.append(float(c))
        except (TypeError, ValueError):
            raise AgreementInputError(
                f"{level} alpha needs numeric values; {c!r} is not a number (use nominal or ordinal)"
            ) from None
    x = np.asarray(out)
    if level == "ratio" and (x < 0).any():
        raise AgreementInputError("ratio alpha needs values of 0 or more (a ratio scale has a true zero)")
    return x


def alpha_distance(level: str, categories: Sequence[Any]) -> np.ndarray | None:
    """alpha's distance matrix over the categories when it does not depend on the data (nominal,
    interval, ratio): what a bootstrap may hold fixed. Ordinal's depends on the margins: None."""
    if level == "ordinal":
        return None
    from corpusdb.agreement.alpha import distance_matrix

    scores = (
        numeric_values(categories, level) if level in ("interval", "ratio") else np.arange(len(categories))
    )
    return distance_matrix(level, scores, np.zeros(len(categories)))


def _codes_to_values(codes: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Documents x annotators int codes -> annotators x documents numeric values, NaN missing."""
    return np.where(codes < 0, np.nan, scores[np.clip(codes, 0, None)]).T


def _codes_to_data(codes: np.ndarray) -> np.ndarray:
    """Documents x annotators int codes -> annotators x documents float data with NaN missing."""
    return np.where(codes < 0, np.nan, codes.astype(float)).T
