"""Document-level bootstrap confidence intervals and paired tests between two systems.

Why documents: items within one document are not independent (one author, one topic, one annotator),
so resampling documents, not items, gives honest intervals (the BioRelEx script's own bootstrap
resamples sentences the same way). Every figure here is a function of summed per-document counts
(tp, fn, fp), so a resample is a weighted sum: ``multinomial weights @ rows``, no re-scoring.

Paired tests, both on the same documents:

* ``approximate_randomization`` (Noreen 1989; Yeh 2000): under H0 the two systems are exchangeable, so
  each document's rows are swapped between them with probability 1/2; p = (c + 1) / (R + 1), c = the
  shuffles with |Δ| ≥ the observed |Δ| (two-sided).
* ``paired_bootstrap`` (Berg-Kirkpatrick et al. 2012): resample documents; p = the share of samples
  whose Δ exceeds twice the observed Δ (one-sided, that the better system's lead is not chance).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from corpusdb.evaluation.counts import EvaluationInputError

Stat = Callable[[np.ndarray], np.ndarray]
METHODS = ("approximate_randomization", "paired_bootstrap")


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def stat_of(name: str) -> Stat:
    """A figure from summed counts (..., 3) = [tp, fn, fp]: precision, recall or f1."""

    def precision(s: np.ndarray) -> np.ndarray:
        return _ratio(s[..., 0], s[..., 0] + s[..., 2])

    def recall(s: np.ndarray) -> np.ndarray:
        return _ratio(s[..., 0], s[..., 0] + s[..., 1])

    def f1(s: np.ndarray) -> np.ndarray:
        return _ratio(2 * s[..., 0], 2 * s[..., 0] + s[..., 1] + s[..., 2])

    table = {"precision": precision, "recall": recall, "f1": f1}
    if name not in table:
        raise EvaluationInputError(f"no bootstrap for figure {name!r}; one of {', '.join(table)}")
    return table[name]


def rows_of(per_document: Mapping[str, Sequence[float]], documents: Sequence[str]) -> np.ndarray:
    """(documents, 3) array of [tp, fn, fp] in the given document order (0 where absent)."""
    return np.array([list(per_document.get(d, (0, 0, 0))) for d in documents], dtype=float).reshape(-1, 3)


def _weights(n: int, resamples: int, rng: np.random.Generator) -> np.ndarray:
    return rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(float)


@dataclass(frozen=True, slots=True)
class Interval:
    low: float | None
    high: float | None
    resamples: int
    confidence: float
    method: str = "document bootstrap, percentile interval"

    def to_dict(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "resamples": self.resamples,
                "confidence": self.confidence, "method": self.method}  # fmt: skip


def bootstrap_ci(
    rows: np.ndarray, figure: str = "f1", *, resamples: int = 1000, seed: int = 0, confidence: float = 0.95
) -> Interval:
    """Percentile CI of a figure over document resamples (samples where it is undefined are dropped)."""
    if not 0 < confidence < 1:
        raise EvaluationInputError(f"confidence must be between 0 and 1, got {confidence}")
    n = len(rows)
    if n == 0 or resamples <= 0:
        return Interval(None, None, resamples, confidence)
    rng = np.random.default_rng(seed)
    vals = stat_of(figure)(_weights(n, resamples, rng) @ rows)
    vals = vals[~np.isnan(vals)]
    if not len(vals):
        return Interval(None, None, resamples, confidence)
    a = (1 - confidence) / 2
    lo, hi = np.quantile(vals, [a, 1 - a])
    return Interval(float(lo), float(hi), resamples, confidence)


@dataclass(frozen=True, slots=True)
class PairedTest:
    figure: str
    value_a: float | None
    value_b: float | None
    difference: float | None
    p_value: float | None
    method: str
    resamples: int
    documents: int

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__slots__}


def paired_test(
    rows_a: np.ndarray, rows_b: np.ndarray, figure: str = "f1", *, method: str = "approximate_randomization",
    resamples: int = 10000, seed: int = 0,
) -> PairedTest:  # fmt: skip
    """Is system A's figure different from B's on the same documents? (see the module docstring)."""
    if method not in METHODS:
        raise EvaluationInputError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if rows_a.shape != rows_b.shape:
        raise EvaluationInputError("a paired test needs both systems' counts on the same documents")
    stat = stat_of(figure)
    fa, fb = stat(rows_a.sum(axis=0)), stat(rows_b.sum(axis=0))
    n = len(rows_a)
    if np.isnan(fa) or np.isnan(fb) or n == 0:
        return PairedTest(figure, _f(fa), _f(fb), None, None, method, resamples, n)
    observed = float(fa - fb)
    rng = np.random.default_rng(seed)
    if method == "approximate_randomization":
        swap = rng.random((resamples, n)) < 0.5
        d = rows_b - rows_a  # swapping a document moves d from a's sums to b's
        sa = rows_a.sum(axis=0) + swap.astype(float) @ d
        sb = rows_b.sum(axis=0) - swap.astype(float) @ d
        delta = np.nan_to_num(stat(sa) - stat(sb))
        p = (int((np.abs(delta) >= abs(observed) - 1e-12).sum()) + 1) / (resamples + 1)
    else:
        w = _weights(n, resamples, rng)
        delta = np.nan_to_num(stat(w @ rows_a) - stat(w @ rows_b))
        sign = 1.0 if observed >= 0 else -1.0
        p = float((sign * delta > 2 * abs(observed)).sum()) / resamples
    return PairedTest(figure, _f(fa), _f(fb), observed, float(p), method, resamples, n)


def _f(x: Any) -> float | None:
    x = float(x)
    return None if np.isnan(x) else x
