"""Document (cluster) bootstrap confidence intervals for any agreement figure.

Items within a document are not independent (one annotator's habits, one text's difficulty), so
we resample *documents* with replacement, never items. Every figure here is a function of the
sum over documents of small per-document summaries (F1: matched/only-A/only-B counts; kappa: a
contingency table; alpha: a coincidence matrix; Fleiss/AC1: per-unit agreement terms), so a
replicate is one matrix product ``W @ summaries`` with W the (replicates x documents) resampling
counts; raw items are never touched again. Seeded (``numpy.random.default_rng(seed)``) and
reproducible; percentile or BCa (acceleration from the leave-one-document-out jackknife, which is
as cheap: ``total - summary_d``).

Why not ``scipy.stats.bootstrap``: it resamples observations and calls the statistic once per
replicate in Python; here a batch of replicates is one array operation on count summaries.
Note: Krippendorff's own KALPHA bootstrap resamples coincidence pairs, so its CIs differ.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np

from corpusdb.agreement._checks import as_counts, check_confidence
from corpusdb.agreement.alpha import alpha_statistic
from corpusdb.agreement.coefficients import table_statistic
from corpusdb.agreement.results import AgreementInputError, BootstrapCI

Method = Literal["percentile", "bca"]
Statistic = Callable[[np.ndarray], np.ndarray]


def cluster_bootstrap(
    summaries: np.ndarray,
    statistic: Statistic,
    *,
    n_resamples: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
    method: Method = "percentile",
    batch: int = 256,
) -> BootstrapCI:
    """Bootstrap CI of ``statistic(sum of summaries)`` resampling the first axis (documents).

    ``statistic`` maps a batch of summed summaries, shape (B, ...), to B values (NaN = undefined
    for that replicate; such replicates are dropped and counted in ``n_valid``).
    """
    check_confidence(confidence)
    if method not in ("percentile", "bca"):
        raise AgreementInputError(f"method must be 'percentile' or 'bca', got {method!r}")
    if n_resamples < 1:
        raise AgreementInputError("n_resamples must be at least 1")
    s = np.asarray(summaries, dtype=float)
    d = s.shape[0]
    shape = s.shape[1:]
    flat = s.reshape(d, int(np.prod(shape)))  # not (d, -1): that fails for d = 0 (a pair sharing no document)
    total = flat.sum(axis=0)
    est = float(statistic(total.reshape((1, *shape)))[0])

    def no_interval(n_valid: int, why: str) -> BootstrapCI:
        return BootstrapCI(
            _f(est), None, None, None, confidence, method, n_resamples, n_valid, d, seed, note=why
        )

    if d < 2:
        return no_interval(0, "fewer than two documents: nothing to resample")
    rng = np.random.default_rng(seed)
    values = np.empty(n_resamples)
    for b0 in range(0, n_resamples, batch):
        b = min(batch, n_resamples - b0)
        idx = rng.integers(0, d, size=(b, d))
        w = np.bincount((idx + (np.arange(b) * d)[:, None]).ravel(), minlength=b * d).reshape(b, d)
        values[b0 : b0 + b] = statistic((w @ flat).reshape((b, *shape)))
    ok = values[np.isfinite(values)]
    note = ""
    if len(ok) < n_resamples:
        note = f"{n_resamples - len(ok)} resamples had an undefined value and were dropped"
    if len(ok) < 2 or not math.isfinite(est):
        return no_interval(len(ok), note or "the statistic is undefined on the full data")
    alpha = 1 - confidence
    lo_q, hi_q = alpha / 2, 1 - alpha / 2
    if method == "bca":
        from scipy import stats  # heavy: only for BCa intervals

        prop = (np.sum(ok < est) + 0.5 * np.sum(ok == est)) / len(ok)
        z0 = stats.norm.ppf(min(max(prop, 1e-10), 1 - 1e-10))
        jack = statistic((total[None, :] - flat).reshape((d, *shape)))
        jack = jack[np.isfinite(jack)]
        diff = jack.mean() - jack
        den = 6 * (np.sum(diff**2) ** 1.5)
        acc = float(np.sum(diff**3) / den) if den > 0 else 0.0
        za, zb = stats.norm.ppf(lo_q), stats.norm.ppf(hi_q)
        lo_q = float(stats.norm.cdf(z0 + (z0 + za) / (1 - acc * (z0 + za))))
        hi_q = float(stats.norm.cdf(z0 + (z0 + zb) / (1 - acc * (z0 + zb))))
    lo, hi = np.quantile(ok, [lo_q, hi_q])
    return BootstrapCI(
        _f(est),
        float(lo),
        float(hi),
        float(ok.std(ddof=1)),
        confidence,
        method,
        n_resamples,
        len(ok),
        d,
        seed,
        note=note,
    )


def _f(x: float) -> float | None:
    return x if math.isfinite(x) else None


# --- ready-made statistics --------------------------------------------------------------------------


def f1_statistic(counts: np.ndarray) -> np.ndarray:
    """(B, 3) matched/only_a/only_b -> F1 = 2m / (2m + a + b)."""
    m, a, b = counts[..., 0], counts[..., 1], counts[..., 2]
    den = 2 * m + a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, 2 * m / den, np.nan)


def precision_statistic(counts: np.ndarray) -> np.ndarray:
    m, b = counts[..., 0], counts[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m + b > 0, m / (m + b), np.nan)


def recall_statistic(counts: np.ndarray) -> np.ndarray:
    m, a = counts[..., 0], counts[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(m + a > 0, m / (m + a), np.nan)


PRF_STATISTICS: dict[str, Statistic] = {
    "f1": f1_statistic,
    "precision": precision_statistic,
    "recall": recall_statistic,
}


def bootstrap_prf(
    per_document: np.ndarray, figure: Literal["f1", "precision", "recall"] = "f1", **options: object
) -> BootstrapCI:
    """CI of span/relation/link F1 (or P, R) from (documents, 3) matched/only_a/only_b counts.

    ``SpanComparison.per_document`` (overall) and ``per_document_types[:, t]`` (type t) fit.
    """
    if figure not in PRF_STATISTICS:
        raise AgreementInputError(f"figure must be f1, precision or recall, got {figure!r}")
    return cluster_bootstrap(np.asarray(per_document), PRF_STATISTICS[figure], **options)  # type: ignore[arg-type]


def bootstrap_table(
    per_document_tables: np.ndarray, coefficient: str = "cohen_kappa", **options: object
) -> BootstrapCI:
    """CI of a two-coder coefficient from per-document (documents, q, q) contingency tables.

    ``coefficient``: percent_agreement, cohen_kappa, scott_pi, bennett_s, gwet_ac1 or
    krippendorff_alpha (nominal).
    """
    return cluster_bootstrap(np.asarray(per_document_tables), table_statistic(coefficient), **options)  # type: ignore[arg-type]


def unit_summaries(counts: np.ndarray) -> np.ndarray:
    """Per-unit summaries of a units x categories counts matrix for the multi-rater statistics.

    Columns: [1, pa_i * [r_i >= 2], [r_i >= 2], r_ik / r_i (q), coincidences (q*q)].
    """
    c = as_counts(counts)
    r = c.sum(axis=1)
    c, r = c[r > 0], r[r > 0]
    two = r >= 2
    den = np.where(two, r * (r - 1), 1.0)
    pa_i = np.where(two, (c * (c - 1)).sum(axis=1) / den, 0.0)
    q = c.shape[1]
    co = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(q)[None]) / np.where(two, r - 1, np.inf)[
        :, None, None
    ]
    return np.concatenate(
        [
            np.ones((len(c), 1)),
            (pa_i * two)[:, None],
            two[:, None] * 1.0,
            c / r[:, None],
            co.reshape(len(c), -1),
        ],
        axis=1,
    )


def units_statistic(coefficient: str, q: int) -> Statistic:
    """Statistic over summed :func:`unit_summaries`: ``percent_agreement``, ``fleiss_kappa``,
    ``gwet_ac1``, ``brennan_prediger`` or ``krippendorff_alpha`` (nominal)."""
    alpha = alpha_statistic(1.0 - np.eye(q))

    def stat(t: np.ndarray) -> np.ndarray:
        n, pa_sum, n2 = t[:, 0], t[:, 1], t[:, 2]
        pi = t[:, 3 : 3 + q] / n[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            pa = pa_sum / n2
            if coefficient == "percent_agreement":
                return pa
            if coefficient == "krippendorff_alpha":
                return alpha(t[:, 3 + q :].reshape(-1, q, q))
            if coefficient == "fleiss_kappa":
                pe = (pi**2).sum(axis=1)
            elif coefficient == "gwet_ac1":
                pe = (pi * (1 - pi)).sum(axis=1) / (q - 1) if q > 1 else np.full_like(pa, np.nan)
            elif coefficient == "brennan_prediger":
                pe = np.full_like(pa, 1 / q)
            else:
                raise AgreementInputError(f"no unit statistic {coefficient!r}")
            out = (pa - pe) / (1 - pe)
        out[np.isclose(pe, 1.0)] = np.nan
        return out

    return stat


def bootstrap_units(
    counts: np.ndarray,
    coefficient: str = "fleiss_kappa",
    *,
    clusters: np.ndarray | None = None,
    **options: object,
) -> BootstrapCI:
    """CI of a multi-rater coefficient from units x categories counts.

    ``clusters`` gives each unit's document (units of one document are resampled together); by
    default each unit is its own cluster (document labels: a unit is a document).
    """
    s = unit_summaries(counts)
    c = as_counts(counts)
    keep = c.sum(axis=1) > 0
    if clusters is not None:
        cl = np.asarray(clusters)[keep]
        _, inv = np.unique(cl, return_inverse=True)
        grouped = np.zeros((inv.max() + 1, s.shape[1]))
        np.add.at(grouped, inv, s)
        s = grouped
    return cluster_bootstrap(s, units_statistic(coefficient, c.shape[1]), **options)  # type: ignore[arg-type]


def bootstrap_alpha(
    counts: np.ndarray, delta: np.ndarray, clusters: np.ndarray | None = None, **options: object
) -> BootstrapCI:
    """CI of Krippendorff's alpha with a fixed distance matrix (nominal/interval/ratio) from units x
    values counts, resampling clusters (documents) of units; per-cluster coincidence matrices."""
    c = as_counts(counts)
    q = c.shape[1]
    cl = np.arange(len(c)) if clusters is None else np.asarray(clusters)
    if len(cl) != len(c):
        raise AgreementInputError(f"{len(cl)} cluster labels for {len(c)} units")
    _, inv = np.unique(cl, return_inverse=True)
    r = c.sum(axis=1)
    co = (c[:, :, None] * c[:, None, :] - c[:, :, None] * np.eye(q)[None]) / np.where(r >= 2, r - 1, np.inf)[
        :, None, None
    ]
    per = np.zeros((inv.max() + 1 if len(inv) else 0, q, q))
    np.add.at(per, inv, co)
    return cluster_bootstrap(per, alpha_statistic(delta), **options)  # type: ignore[arg-type]
