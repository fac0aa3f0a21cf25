"""Two-rater coefficients from a square count table (rows = coder A, columns = coder B).

Cohen's kappa (plain and weighted) comes from statsmodels' ``cohens_kappa`` with its
Fleiss-Cohen-Everitt (1969) standard error, z and p (the plain one by a copy of its arithmetic,
bit-identical and tested so, which spares the agreement report statsmodels' ~1.5 s import).
statsmodels has no Scott's pi, Bennett's S
(Brennan-Prediger), Gwet's AC1/AC2, per-category kappa or a standard error for alpha, so those are
written here from Gwet (2014, *Handbook of Inter-Rater Reliability*, 4th ed.) and checked against
the values R's irrCAC prints (``../shared/reference/agreement_vectors.json``).

Weights are *agreement* weights (1 on the diagonal, see :mod:`corpusdb.agreement.weights`). Given
a bare table the category scores are its ranks 1..q; pass ``categories`` to use numeric values.

Artstein & Poesio (2008), example 1 (p. 558):

>>> t = [[20, 10], [20, 50]]
>>> round(cohen_kappa(t).value, 3), round(scott_pi(t).value, 3), round(bennett_s(t).value, 3)
(0.348, 0.341, 0.4)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from corpusdb.agreement._checks import as_table, check_confidence, interval, is_missing
from corpusdb.agreement.results import AgreementInputError, Coefficient
from corpusdb.agreement.weights import WeightName, resolve_weights

CI = Literal["t", "normal"]
Weights = WeightName | str | np.ndarray | Sequence[Sequence[float]] | None

UNDEFINED_ONE_CATEGORY = (
    "chance agreement is 1 (both coders used one and the same category for every unit): "
    "the coefficient is undefined (0/0), although observed agreement is perfect"
)
NO_UNITS = "no unit was rated by both coders"


def contingency_table(
    a: Sequence[Any], b: Sequence[Any], categories: Sequence[Any] | None = None
) -> tuple[np.ndarray, list[Any]]:
    """Cross-tabulate two coders' labels; pairs where either label is missing (None/NaN) are dropped.

    >>> contingency_table(["x", "y", None, "y"], ["x", "x", "y", "y"])
    (array([[1., 0.],
           [1., 1.]]), ['x', 'y'])
    """
    if len(a) != len(b):
        raise AgreementInputError(f"the two coders rated different numbers of units ({len(a)} and {len(b)})")
    pairs = [(x, y) for x, y in zip(a, b, strict=True) if not is_missing(x) and not is_missing(y)]
    if categories is None:
        seen = {v for p in pairs for v in p}
        try:
            cats: list[Any] = sorted(seen)
        except TypeError:
            cats = sorted(seen, key=str)
    else:
        cats = list(categories)
    index = {c: i for i, c in enumerate(cats)}
    table = np.zeros((len(cats), len(cats)))
    for x, y in pairs:
        if x not in index or y not in index:
            raise AgreementInputError(f"label {x if x not in index else y!r} is not among the categories")
        table[index[x], index[y]] += 1
    return table, cats


def _prepare(
    table: Any, weights: Weights, categories: Sequence[Any] | None, confidence: float
) -> tuple[np.ndarray, np.ndarray]:
    """The inputs every two-rater coefficient checks, in this order: the confidence level, the table,
    the categories (one per row), the weights; gives the table and the agreement weights."""
    check_confidence(confidence)
    t = as_table(table)
    q = t.shape[0]
    if categories is not None and len(categories) != q:
        raise AgreementInputError(f"{len(categories)} categories given for a {q}x{q} table")
    cats: Sequence[Any] = list(categories) if categories is not None else list(range(1, q + 1))
    return t, resolve_weights(weights, cats)


def _result(
    name: str,
    value: float,
    pa: float,
    pe: float,
    se: float | None,
    n: int,
    confidence: float,
    ci: str,
    note: str = "",
    se_method: str = "Gwet (2014) linearisation",
    **details: Any,
) -> Coefficient:
    """The coefficient ``value`` from observed ``pa`` and chance ``pe`` agreement with its SE: the
    interval, z and p, and ``details`` after ``se_method`` and ``ci`` (two raters and many)."""
    lo, hi, z, p = interval(value, se, n, confidence, ci)
    return Coefficient(
        name,
        float(value),
        se=None if se is None else float(se),
        ci_low=lo,
        ci_high=hi,
        z=z,
        p=p,
        n=n,
        observed=float(pa),
        expected=float(pe),
        note=note,
        details={"se_method": se_method, "ci": ci, **details},
    )


def _degenerate(
    name: str, n: int, note: str, pa: float | None = None, pe: float | None = None
) -> Coefficient:
    return Coefficient(name, None, n=n, observed=pa, expected=pe, note=note)


def _margins(t: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    n = float(t.sum())
    p = t / n
    return n, p, p.sum(axis=1), p.sum(axis=0)


def percent_agreement(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Observed (weighted) agreement, not chance-corrected; SE sqrt((sum p w^2 - pa^2)/n) as irrCAC."""
    t, w = _prepare(table, weights, categories, confidence)
    if t.sum() == 0:
        return _degenerate("percent_agreement", 0, NO_UNITS)
    n, p, _, _ = _margins(t)
    pa = float((w * p).sum())
    var = ((p * w**2).sum() - pa**2) / n
    return _result("percent_agreement", pa, pa, 0.0, math.sqrt(max(var, 0.0)), int(n), confidence, ci)


def cohen_kappa(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    level_disagreement: Sequence[float] | None = None,
    confidence: float = 0.95,
    ci: CI = "normal",
) -> Coefficient:
    """Cohen's kappa, weighted when ``weights`` (agreement weights) or ``level_disagreement`` is given.

    Value, SE (``std_kappa``), SE under H0 (``std_kappa0``), ``z = kappa / SE0`` and the two-sided
    p come from statsmodels (equal to SAS PROC FREQ). The CI is kappa -+ q * SE with q from the
    normal (``ci="normal"``, statsmodels/SAS) or Student t with n-1 df (``ci="t"``, irrCAC).
    ``level_disagreement`` is R irr's numeric weight vector: the disagreement for categories that
    are 0, 1, 2... levels apart (statsmodels ``wt="toeplitz"``).

    >>> k = cohen_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]], "linear")   # SAS PROC FREQ example
    >>> round(k.value, 4), round(k.se, 4), round(k.z, 4)
    (0.4701, 0.1457, 3.2971)
    """
    t, w = _prepare(table, weights, categories, confidence)
    if level_disagreement is not None and weights is not None:
        raise AgreementInputError("give either weights or level_disagreement, not both")
    n = int(t.sum())
    if n == 0:
        return _degenerate("cohen_kappa", 0, NO_UNITS)
    _, p, row, col = _margins(t)
    weighted = weights is not None or level_disagreement is not None
    if level_disagreement is not None:
        v = np.asarray(level_disagreement, dtype=float)
        if v.shape != (t.shape[0],) or v[0] != 0:
            raise AgreementInputError(
                f"level_disagreement needs {t.shape[0]} values starting with 0 (distance 0 = agreement)"
            )
        dis = np.abs(np.subtract.outer(np.arange(t.shape[0]), np.arange(t.shape[0])))
        w = 1 - v[dis] / (v.max() if v.max() > 0 else 1.0)
    pa = float((w * p).sum())
    pe = float((w * np.outer(row, col)).sum())
    name = "weighted_kappa" if weighted else "cohen_kappa"
    if math.isclose(pe, 1.0):
        return _degenerate(name, n, UNDEFINED_ONE_CATEGORY, pa, pe)
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if not weighted:
            res = simple_kappa_statsmodels(t)
        else:
            from statsmodels.stats.inter_rater import cohens_kappa as _sm_cohens_kappa  # heavy (pandas)

            if level_disagreement is not None:
                res = _sm_cohens_kappa(t, weights=np.asarray(level_disagreement, float), wt="toeplitz")
            else:
                res = _sm_cohens_kappa(t, weights=1 - w)
    value = float(res["kappa"])
    se = float(res["std_kappa"]) if np.isfinite(res["std_kappa"]) else None
    # Capped at 1 like pi and alpha (kappa cannot exceed 1); statsmodels/SAS print the raw
    # bound, kept in details as ``ci_high_uncapped`` for comparing with them.
    lo, raw_hi, _, _ = interval(value, se, n, confidence, ci, cap=False)
    hi = None if raw_hi is None else min(1.0, raw_hi)
    se0 = float(res["std_kappa0"]) if np.isfinite(res["std_kappa0"]) and res["std_kappa0"] > 0 else None
    note = ""
    if np.isclose(row.max(), 1.0) or np.isclose(col.max(), 1.0):
        note = (
            "one coder used a single category: kappa is 0 by construction whatever the other did "
            "(chance agreement equals observed agreement)"
        )
    return Coefficient(
        name,
        value,
        se=se,
        ci_low=lo,
        ci_high=hi,
        z=float(res["z_value"]) if se0 else None,
        p=float(res["pvalue_two_sided"]) if se0 else None,
        n=n,
        observed=pa,
        expected=pe,
        note=note,
        details={
            "se_method": "Fleiss, Cohen & Everitt (1969) via statsmodels",
            "ci": ci,
            "se0": se0,
            "ci_high_uncapped": raw_hi,
            "kappa_max": float(res["kappa_max"]),
            "pvalue_one_sided": float(res["pvalue_one_sided"]) if se0 else None,
        },
    )


def warm_up() -> None:
    """Import what :func:`simple_kappa_statsmodels` needs (scipy.special, ~0.15 s): the agreement
    loader calls it while its reader threads wait on the database, so the report does not wait."""
    from scipy.special import ndtr  # noqa: F401


def simple_kappa_statsmodels(table: np.ndarray) -> dict[str, Any]:
    """statsmodels' ``cohens_kappa(table)`` (unweighted) with the same operations in the same order,
    so every figure is bit-identical (a test compares them): the agreement report's type kappa
    then needs neither statsmodels nor scipy.stats, which took about 1.5 s to import."""
    from scipy.special import ndtr  # the ufunc scipy.stats.norm.sf calls, without scipy.stats

    table = np.asarray(table, float)
    agree = np.diag(table).sum()
    nobs = table.sum()
    probs = table / nobs
    probs_diag = np.diag(probs)
    freq_row = table.sum(1) / nobs
    freq_col = table.sum(0) / nobs
    prob_exp = freq_col * freq_row[:, None]
    agree_exp = np.diag(prob_exp).sum()
    kappa = (agree / nobs - agree_exp) / (1 - agree_exp)
    term_a = (probs_diag * (1 - (freq_row + freq_col) * (1 - kappa)) ** 2).sum()
    term_b = probs * (freq_col[:, None] + freq_row) ** 2
    d_idx = np.arange(table.shape[0])
    term_b[d_idx, d_idx] = 0
    term_b = (1 - kappa) ** 2 * term_b.sum()
    term_c = (kappa - agree_exp * (1 - kappa)) ** 2
    var_kappa = (term_a + term_b - term_c) / (1 - agree_exp) ** 2 / nobs
    term_c0 = freq_col * freq_row * (freq_col + freq_row)
    var_kappa0 = agree_exp + agree_exp**2 - term_c0.sum()
    var_kappa0 /= (1 - agree_exp) ** 2 * nobs
    kappa_max = (np.minimum(freq_row, freq_col).sum() - agree_exp) / (1 - agree_exp)
    std_kappa0 = np.sqrt(var_kappa0)
    z = kappa / std_kappa0
    return {
        "kappa": kappa,
        "kappa_max": kappa_max,
        "std_kappa": np.sqrt(var_kappa),
        "std_kappa0": std_kappa0,
        "z_value": z,
        "pvalue_one_sided": ndtr(-z),
        "pvalue_two_sided": ndtr(-np.abs(z)) * 2,
    }


def scott_pi(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Scott's pi: chance from the coders' pooled margins, pe = sum w_kl pi_k pi_l."""
    t, w = _prepare(table, weights, categories, confidence)
    if t.sum() == 0:
        return _degenerate("scott_pi", 0, NO_UNITS)
    n, p, row, col = _margins(t)
    pi = (row + col) / 2
    pa = float((w * p).sum())
    pe = float((w * np.outer(pi, pi)).sum())
    if math.isclose(pe, 1.0):
        return _degenerate("scott_pi", int(n), UNDEFINED_ONE_CATEGORY, pa, pe)
    value = (pa - pe) / (1 - pe)
    se = _scott_se(p, w, row, col, pa, pe, value, n)
    return _result("scott_pi", value, pa, pe, se, int(n), confidence, ci)


def _scott_se(
    p: np.ndarray,
    w: np.ndarray,
    row: np.ndarray,
    col: np.ndarray,
    pa: float,
    pe: float,
    value: float,
    n: float,
) -> float | None:
    """Gwet's linearised SE of Scott's pi (also used for alpha on a table)."""
    pbk = (w @ col + w.T @ row) / 2
    term = (p * (w - (1 - value) * (pbk[:, None] + pbk[None, :])) ** 2).sum()
    var = (term - (pa - 2 * (1 - value) * pe) ** 2) / (n * (1 - pe) ** 2)
    return math.sqrt(var) if var >= 0 else None


def bennett_s(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Bennett, Alpert & Goldstein's S (= Brennan-Prediger): chance is uniform, pe = sum(w)/q^2."""
    t, w = _prepare(table, weights, categories, confidence)
    q = t.shape[0]
    if t.sum() == 0:
        return _degenerate("bennett_s", 0, NO_UNITS)
    if q < 2:
        return _degenerate("bennett_s", int(t.sum()), "one category only: uniform chance agreement is 1")
    n, p, _, _ = _margins(t)
    pa = float((w * p).sum())
    pe = float(w.sum() / q**2)
    value = (pa - pe) / (1 - pe)
    var = ((p * w**2).sum() - pa**2) / (n * (1 - pe) ** 2)
    return _result("bennett_s", value, pa, pe, math.sqrt(max(var, 0.0)), int(n), confidence, ci)


def gwet_ac1(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Gwet's AC1 (AC2 when weighted): pe = T_w/(q(q-1)) sum pi_k (1 - pi_k); SE from Gwet (2008).

    >>> round(gwet_ac1([[8, 1], [0, 1]]).value, 4)   # Gwet (2008) hand example
    0.8658
    """
    t, w = _prepare(table, weights, categories, confidence)
    q = t.shape[0]
    name = "gwet_ac1" if weights is None or np.allclose(w, np.eye(q)) else "gwet_ac2"
    if t.sum() == 0:
        return _degenerate(name, 0, NO_UNITS)
    if q < 2:
        return _degenerate(name, int(t.sum()), "one category only: AC1's chance agreement is undefined")
    n, p, row, col = _margins(t)
    pi = (row + col) / 2
    tw = w.sum()
    pa = float((w * p).sum())
    pe = float(tw * (pi * (1 - pi)).sum() / (q * (q - 1)))
    value = (pa - pe) / (1 - pe)
    inner = w - 2 * (1 - value) * tw * (1 - (pi[:, None] + pi[None, :]) / 2) / (q * (q - 1))
    var = ((p * inner**2).sum() - (pa - 2 * (1 - value) * pe) ** 2) / (n * (1 - pe) ** 2)
    return _result(name, value, pa, pe, math.sqrt(max(var, 0.0)), int(n), confidence, ci)


def krippendorff_alpha_table(
    table: Any,
    weights: Weights = None,
    *,
    categories: Sequence[Any] | None = None,
    confidence: float = 0.95,
    ci: CI = "t",
) -> Coefficient:
    """Krippendorff's alpha for two coders without missing values, from their table (Gwet 2014, 2.4).

    alpha = (pa - pe)/(1 - pe) with pa = (1 - 1/2n) pa0 + 1/2n, pe as Scott's; with weights
    1 - w it equals alpha with distance 1 - w. The SE is Gwet's (the one irrCAC prints).
    """
    t, w = _prepare(table, weights, categories, confidence)
    if t.sum() == 0:
        return _degenerate("krippendorff_alpha", 0, NO_UNITS)
    n, p, row, col = _margins(t)
    pi = (row + col) / 2
    pa0 = float((w * p).sum())
    eps = 1 / (2 * n)
    pa = (1 - eps) * pa0 + eps
    pe = float((w * np.outer(pi, pi)).sum())
    if math.isclose(pe, 1.0):
        return _degenerate("krippendorff_alpha", int(n), UNDEFINED_ONE_CATEGORY, pa, pe)
    value = (pa - pe) / (1 - pe)
    se = _scott_se(p, w, row, col, pa0, pe, (pa0 - pe) / (1 - pe), n)
    return _result("krippendorff_alpha", value, pa, pe, se, int(n), confidence, ci)


def per_category_kappa(table: Any, categories: Sequence[Any] | None = None) -> dict[Any, Coefficient]:
    """Cohen's kappa of each category against all others (the table dichotomised as k / not k).

    Equals 2(p_kk - p_k+ p_+k)/(p_k+ + p_+k - 2 p_k+ p_+k); SE, z and p from statsmodels.
    """
    t = as_table(table)
    q = t.shape[0]
    cats = list(categories) if categories is not None else list(range(q))
    if len(cats) != q:
        raise AgreementInputError(f"{len(cats)} categories given for a {q}x{q} table")
    n = t.sum()
    out: dict[Any, Coefficient] = {}
    for k, cat in enumerate(cats):
        a = t[k, k]
        b = t[k].sum() - a
        c = t[:, k].sum() - a
        d = n - a - b - c
        res = cohen_kappa([[a, b], [c, d]])
        out[cat] = replace(res, name=f"cohen_kappa[{cat}]")
    return out


def specific_agreement(table: Any, categories: Sequence[Any] | None = None) -> dict[Any, float | None]:
    """Specific (positive) agreement 2 n_kk / (n_k+ + n_+k) per category; not chance-corrected."""
    t = as_table(table)
    cats = list(categories) if categories is not None else list(range(t.shape[0]))
    den = t.sum(axis=1) + t.sum(axis=0)
    return {c: (float(2 * t[k, k] / den[k]) if den[k] else None) for k, c in enumerate(cats)}


# --- vectorised values for the bootstrap: tables of shape (B, q, q) -> (B,) -------------------------


def table_statistic(name: str) -> Any:
    """A function mapping a batch of tables (B, q, q) to the coefficient's values (NaN where undefined).

    Names: ``percent_agreement``, ``cohen_kappa``, ``scott_pi``, ``bennett_s``, ``gwet_ac1``,
    ``krippendorff_alpha`` (nominal). Used by :mod:`corpusdb.agreement.bootstrap`.
    """

    def stat(tables: np.ndarray) -> np.ndarray:
        t = np.asarray(tables, dtype=float)
        n = t.sum(axis=(1, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            p = t / n[:, None, None]
            row, col = p.sum(axis=2), p.sum(axis=1)
            pa = np.trace(p, axis1=1, axis2=2)
            q = t.shape[1]
            if name == "percent_agreement":
                return pa
            if name == "cohen_kappa":
                pe = (row * col).sum(axis=1)
            elif name == "bennett_s":
                pe = np.full_like(pa, 1 / q)
            else:
                pi = (row + col) / 2
                if name == "scott_pi":
                    pe = (pi**2).sum(axis=1)
                elif name == "gwet_ac1":
                    pe = (pi * (1 - pi)).sum(axis=1) / (q - 1) if q > 1 else np.full_like(pa, np.nan)
                elif name == "krippendorff_alpha":
                    pe = (pi**2).sum(axis=1)
                    eps = 1 / (2 * n)
                    pa = (1 - eps) * pa + eps
                else:
                    raise AgreementInputError(f"no vectorised table statistic {name!r}")
            out = (pa - pe) / (1 - pe)
        out[np.isclose(pe, 1.0) | (n == 0)] = np.nan
        return out

    return stat
