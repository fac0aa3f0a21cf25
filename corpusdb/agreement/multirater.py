"""Multi-rater coefficients with missing ratings: Fleiss, Gwet's AC1/AC2, Brennan-Prediger, Conger.

Input is a subjects x categories matrix of rater counts (``counts``; rows may sum to different
numbers when ratings are missing) or, for Conger's kappa, subjects x raters ``ratings``
(None/NaN = missing); :func:`ratings_to_counts` converts.

Why hand-written: statsmodels' ``fleiss_kappa`` asserts equal raters per subject, returns no SE
and has no weights; AC1/AC2, Brennan-Prediger and Conger exist only in irrCAC (GPL, pins an old
scipy: usable as a test oracle at most). Formulas follow Gwet (2014, *Handbook of Inter-Rater
Reliability*, 4th ed.) and Gwet (2008) for the variance; the Fleiss SE under H0 is Fleiss, Nee &
Landis (1979). Subjects rated by fewer than two raters count in the chance-agreement margins
but not in observed agreement (Gwet's generalisation).

Wikipedia's worked example (10 subjects, 14 raters):

>>> counts = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
...           [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
>>> round(fleiss_kappa(counts).value, 3)
0.21
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from corpusdb.agreement._checks import (
    as_counts,
    check_confidence,
    codes_to_counts,
    ratings_to_codes,
)
from corpusdb.agreement.coefficients import CI, UNDEFINED_ONE_CATEGORY, Weights, _result
from corpusdb.agreement.results import AgreementInputError, Coefficient
from corpusdb.agreement.weights import resolve_weights

NO_PAIRS = "no subject was rated by two or more raters"


def ratings_to_counts(ratings: Any, categories: Sequence[Any] | None = None) -> tuple[np.ndarray, list[Any]]:
    """Subjects x raters ratings (None/NaN missing) -> subjects x categories counts and the categories.

    >>> ratings_to_counts([["a", "b"], ["a", None]])
    (array([[1., 1.],
           [1., 0.]]), ['a', 'b'])
    """
    codes, cats = ratings_to_codes(ratings, categories)
    return codes_to_counts(codes, len(cats)), cats


class _Prep:
    """The shared quantities of Gwet's generalised formulas for one counts matrix."""

    def __init__(self, counts: Any, weights: Weights, categories: Sequence[Any] | None) -> None:
        c = as_counts(counts)
        q = c.shape[1]
        if categories is not None and len(categories) != q:
            raise AgreementInputError(f"{len(categories)} categories given for {q} count columns")
        cats: Sequence[Any] = list(categories) if categories is not None else list(range(1, q + 1))
        self.w = resolve_weights(weights, cats)
        r = c.sum(axis=1)
        self.counts = c[r > 0]  # subjects nobody rated carry no information
        self.r = self.counts.sum(axis=1)
        self.n = self.counts.shape[0]
        self.q = q
        self.two = self.r >= 2
        self.n2 = int(self.two.sum())
        cw = self.counts @ self.w.T
        self.sum_q = (self.counts * (cw - 1)).sum(axis=1)
        den = np.where(self.two, self.r * (self.r - 1), 1.0)
        self.pa_i = np.where(self.two, self.sum_q / den, 0.0)
        self.pa = float(self.pa_i[self.two].mean()) if self.n2 else math.nan
        self.pi = (self.counts / self.r[:, None]).mean(axis=0) if self.n else np.zeros(q)


def _finish(
    name: str,
    value: float,
    prep: _Prep,
    pe: float,
    pe_i: np.ndarray | None,
    confidence: float,
    ci: str,
    note: str = "",
    **details: Any,
) -> Coefficient:
    """Gwet's linearised variance: var = sum (c*_i - c)^2 / (n (n-1))."""
    n = prep.n
    c_i = (n / prep.n2) * (prep.pa_i - pe * prep.two) / (1 - pe)
    if pe_i is not None:
        c_i = c_i - 2 * (1 - value) * (pe_i - pe) / (1 - pe)
    se = math.sqrt(((c_i - value) ** 2).sum() / (n * (n - 1))) if n > 1 else None
    return _result(
        name,
        value,
        prep.pa,
        pe,
        se,
        n,
        confidence,
        ci,
        note,
        se_method="Gwet (2008) linearisation",
        subjects_with_2_or_more=prep.n2,
        **details,
    )


def fleiss_kappa(
    counts: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    method: Literal["fleiss", "randolph"] = "fleiss",
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Fleiss' kappa, generalised to missing ratings and weights (Gwet 2014, ch. 5).

    With every subject rated by the same m raters and no weights it equals Fleiss (1971) and
    statsmodels, and ``details["se0"]`` is the Fleiss-Nee-Landis (1979) SE under H0, from which
    ``z`` and ``p`` (normal) come. Otherwise z and p use Gwet's SE with t (n-1 df). The CI always
    uses Gwet's SE (the H0 SE is for testing kappa = 0 only).
    ``method="randolph"`` gives Randolph's free-marginal kappa (chance 1/q, Brennan-Prediger).
    """
    check_confidence(confidence)
    if method == "randolph":
        res = brennan_prediger(counts, weights, categories=categories, confidence=confidence, ci=ci)
        return replace(res, name="randolph_kappa")
    if method != "fleiss":
        raise AgreementInputError(f"method must be 'fleiss' or 'randolph', got {method!r}")
    prep = _Prep(counts, weights, categories)
    if prep.n2 == 0:
        return Coefficient("fleiss_kappa", None, n=prep.n, note=NO_PAIRS)
    pe = float((prep.w * np.outer(prep.pi, prep.pi)).sum())
    if math.isclose(pe, 1.0):
        return Coefficient(
            "fleiss_kappa",
            None,
            n=prep.n,
            observed=prep.pa,
            expected=pe,
            note=UNDEFINED_ONE_CATEGORY.replace("both coders", "all raters"),
        )
    value = (prep.pa - pe) / (1 - pe)
    piw = (prep.w @ prep.pi + prep.w.T @ prep.pi) / 2
    pe_i = (prep.counts @ piw) / prep.r
    res = _finish("fleiss_kappa", value, prep, pe, pe_i, confidence, ci)
    equal = prep.n2 == prep.n and np.allclose(prep.r, prep.r[0])
    if equal and np.allclose(prep.w, np.eye(prep.q)):
        m = float(prep.r[0])
        pj = prep.counts.sum(axis=0) / prep.counts.sum()
        qj = 1 - pj
        s = float((pj * qj).sum())
        var0 = 2 / (prep.n * m * (m - 1)) * (s**2 - float((pj * qj * (qj - pj)).sum())) / s**2
        se0 = math.sqrt(var0) if var0 > 0 else None
        if se0:
            from scipy import stats

            z = value / se0
            return replace(
                res,
                z=z,
                p=float(2 * stats.norm.sf(abs(z))),
                details={
                    **res.details,
                    "se0": se0,
                    "z_method": "kappa / SE0, Fleiss, Nee & Landis (1979), normal",
                },
            )
    return res


def gwet_ac(
    counts: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Gwet's AC1 (AC2 when weighted) for any number of raters, missing ratings allowed."""
    check_confidence(confidence)
    prep = _Prep(counts, weights, categories)
    name = "gwet_ac1" if np.allclose(prep.w, np.eye(prep.q)) else "gwet_ac2"
    if prep.n2 == 0:
        return Coefficient(name, None, n=prep.n, note=NO_PAIRS)
    if prep.q < 2:
        return Coefficient(
            name, None, n=prep.n, note="one category only: AC1's chance agreement is undefined"
        )
    tw = prep.w.sum()
    k = tw / (prep.q * (prep.q - 1))
    pe = float(k * (prep.pi * (1 - prep.pi)).sum())
    value = (prep.pa - pe) / (1 - pe)
    pe_i = k * (prep.counts @ (1 - prep.pi)) / prep.r
    return _finish(name, value, prep, pe, pe_i, confidence, ci)


def brennan_prediger(
    counts: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Brennan & Prediger's coefficient (Bennett's S for many raters): chance = sum(w)/q^2."""
    check_confidence(confidence)
    prep = _Prep(counts, weights, categories)
    if prep.n2 == 0:
        return Coefficient("brennan_prediger", None, n=prep.n, note=NO_PAIRS)
    if prep.q < 2:
        return Coefficient("brennan_prediger", None, n=prep.n, note="one category only: uniform chance is 1")
    pe = float(prep.w.sum() / prep.q**2)
    value = (prep.pa - pe) / (1 - pe)
    return _finish("brennan_prediger", value, prep, pe, None, confidence, ci)


def conger_kappa(
    ratings: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Conger's (1980) kappa: Fleiss' observed agreement, chance from each rater's own margins.

    Needs raw ratings (subjects x raters) because chance agreement depends on who rated what.
    """
    check_confidence(confidence)
    codes, cats = ratings_to_codes(ratings, categories)
    codes = codes[(codes >= 0).any(axis=1)]
    n, r = codes.shape
    q = len(cats)
    if r < 2:
        raise AgreementInputError("Conger's kappa needs at least two rater columns")
    prep = _Prep(codes_to_counts(codes, q), weights, cats if categories is not None else None)
    w = prep.w
    if prep.n2 == 0:
        return Coefficient("conger_kappa", None, n=n, note=NO_PAIRS)
    onehot = np.zeros((n, r, q))
    ii, gg = np.nonzero(codes >= 0)
    onehot[ii, gg, codes[ii, gg]] = 1.0
    classif = onehot.sum(axis=0)  # raters x categories
    ng = classif.sum(axis=1)
    if np.any(ng == 0):
        raise AgreementInputError("every rater column must hold at least one rating for Conger's kappa")
    pgk = classif / ng[:, None]
    pbar = pgk.mean(axis=0)
    s2 = (pgk.T @ pgk - r * np.outer(pbar, pbar)) / (r - 1)
    pe = float((w * (np.outer(pbar, pbar) - s2 / r)).sum())
    if math.isclose(pe, 1.0):
        return Coefficient(
            "conger_kappa", None, n=n, observed=prep.pa, expected=pe, note=UNDEFINED_ONE_CATEGORY
        )
    value = (prep.pa - pe) / (1 - pe)
    present = (codes >= 0).astype(float)
    lam = np.zeros((n, r))
    for k in range(q):
        lam_k = np.zeros((n, r))
        for l_ in range(q):
            lam_k += w[k, l_] * (onehot[:, :, l_] - (present - ng[None, :] / n) * pgk[None, :, l_])
        lam_k *= n / ng[None, :]
        lam += lam_k * (r * pgk[:, k].mean() - pgk[None, :, k])
    pe_i = lam.sum(axis=1) / (r * (r - 1))
    return _finish("conger_kappa", value, prep, pe, pe_i, confidence, ci)


def per_category_fleiss(counts: Any, categories: Sequence[Any] | None = None) -> dict[Any, Coefficient]:
    """Fleiss' kappa of each category j against the rest (the data dichotomised as j / not j).

    kappa_j = 1 - sum_i x_ij (m_i - x_ij) / (sum_i m_i (m_i - 1) p_j q_j); with equal m the SE under
    H0 is sqrt(2 / (N m (m-1))) (Fleiss 1971) and gives z and p.
    """
    c = as_counts(counts)
    cats = list(categories) if categories is not None else list(range(c.shape[1]))
    if len(cats) != c.shape[1]:
        raise AgreementInputError(f"{len(cats)} categories given for {c.shape[1]} count columns")
    out: dict[Any, Coefficient] = {}
    m = c.sum(axis=1)
    for j, cat in enumerate(cats):
        two = np.stack([c[:, j], m - c[:, j]], axis=1)
        res = fleiss_kappa(two)
        out[cat] = replace(res, name=f"fleiss_kappa[{cat}]")
    return out
