"""Agreement weight matrices (1 on the diagonal, 0 = total disagreement) for weighted coefficients.

Why hand-written: statsmodels only knows linear/quadratic/toeplitz *disagreement* weights for
Cohen's kappa, and no library outside the GPL ``irrCAC`` package (a test oracle at most: it pins an
old scipy) has Gwet's families, which weighted AC2, Fleiss, Scott and alpha share. The definitions
follow Gwet (2014), *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3, on category scores
(the sorted numeric categories, or 1..q for labels).

>>> agreement_weights("linear", [1, 2, 3])
array([[1. , 0.5, 0. ],
       [0.5, 1. , 0.5],
       [0. , 0.5, 1. ]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from corpusdb.agreement.results import AgreementInputError

WeightName = Literal["identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar"]
WEIGHT_NAMES: tuple[str, ...] = (
    "identity",
    "linear",
    "quadratic",
    "ordinal",
    "radical",
    "ratio",
    "circular",
    "bipolar",
)


def category_scores(categories: Sequence[object]) -> np.ndarray:
    """Numeric scores of the categories: their values when all are numbers, else 1..q (Gwet's rule)."""
    if all(
        isinstance(c, int | float | np.integer | np.floating) and not isinstance(c, bool) for c in categories
    ):
        return np.asarray(categories, dtype=float)
    return np.arange(1, len(categories) + 1, dtype=float)


def agreement_weights(name: WeightName | str, categories: Sequence[object]) -> np.ndarray:
    """The q x q agreement-weight matrix of a named family for these categories (in this order)."""
    q = len(categories)
    if q == 0:
        raise AgreementInputError("weights need at least one category")
    x = category_scores(categories)
    k, l_ = np.meshgrid(x, x, indexing="ij")
    span = x.max() - x.min()
    if name == "identity" or q == 1:
        if name not in WEIGHT_NAMES:
            raise AgreementInputError(f"unknown weights {name!r}; expected one of {', '.join(WEIGHT_NAMES)}")
        return np.eye(q)
    if name == "linear":
        return 1 - np.abs(k - l_) / span
    if name == "quadratic":
        return 1 - ((k - l_) / span) ** 2
    if name == "radical":
        return 1 - np.sqrt(np.abs(k - l_)) / np.sqrt(span)
    if name == "ratio":
        if np.any(x == 0) or np.any(k + l_ == 0):
            raise AgreementInputError("ratio weights are undefined when a category score is 0")
        return 1 - ((k - l_) / (k + l_)) ** 2 / (span / (x.max() + x.min())) ** 2
    if name == "ordinal":
        # Ordinal weights use category *ranks*, not scores (Gwet 2014, eq. 3.6.1).
        i, j = np.meshgrid(np.arange(q), np.arange(q), indexing="ij")
        n_kl = np.abs(i - j) + 1
        d = n_kl * (n_kl - 1) / 2
        return 1 - d / d.max()
    if name == "circular":
        d = np.sin(np.pi * (k - l_) / (span + 1)) ** 2
        return 1 - d / d.max()
    if name == "bipolar":
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (k - l_) ** 2 / ((k + l_ - 2 * x.min()) * (2 * x.max() - k - l_))
        d[np.eye(q, dtype=bool)] = 0.0
        return 1 - d / d.max()
    raise AgreementInputError(f"unknown weights {name!r}; expected one of {', '.join(WEIGHT_NAMES)}")


def resolve_weights(
    weights: WeightName | str | np.ndarray | Sequence[Sequence[float]] | None, categories: Sequence[object]
) -> np.ndarray:
    """A checked q x q agreement-weight matrix from a family name, a matrix, or ``None`` (identity)."""
    q = len(categories)
    if weights is None:
        return np.eye(q)
    if isinstance(weights, str):
        return agreement_weights(weights, categories)
    w = np.asarray(weights, dtype=float)
    if w.shape != (q, q):
        raise AgreementInputError(f"weights must be a {q}x{q} matrix for {q} categories, got shape {w.shape}")
    if not np.allclose(np.diag(w), 1.0):
        raise AgreementInputError(
            "agreement weights must be 1 on the diagonal (full credit for equal values)"
        )
    return w
