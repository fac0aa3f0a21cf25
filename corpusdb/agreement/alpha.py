"""Krippendorff's alpha at any level, with missing values, a standard error, per category, and at scale.

The value comes from the ``krippendorff`` package (0.9) whenever its (N, V, V) work arrays fit in
memory. ``krippendorff`` 0.9 allocates about 2.5 GB at 10^6 units, so for larger inputs we compute
the coincidence matrix ourselves, chunk by chunk, as ``o = sum_u n_u n_u^T - diag(n_u)) / (m_u - 1)``
(one BLAS product per chunk, O(N V^2) time and O(chunk V) memory) and alpha = 1 - D_o / D_e from it.
Tests check both engines agree. The package has no standard error, per-category alpha or unitizing
alpha; the SE here is Gwet's linearisation (Gwet 2014; irrCAC prints it), see ``se`` below.

Krippendorff (2011), reliability data "C" (4 observers, 12 units, missing values):

>>> nan = float("nan")
>>> c = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
...      [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, 3],
...      [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, nan],
...      [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
>>> [round(krippendorff_alpha(c, lv).value, 3) for lv in ("nominal", "ordinal", "interval", "ratio")]
[0.743, 0.815, 0.849, 0.797]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Literal

import numpy as np

from corpusdb.agreement._checks import as_counts, check_confidence, encode_rows, interval
from corpusdb.agreement.results import AgreementInputError, Coefficient

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")
Engine = Literal["auto", "krippendorff", "coincidence"]
SE = Literal["gwet", "gwet_dist"] | None

#: Above this many N*V*V cells the ``auto`` engine leaves the ``krippendorff`` package (~160 MB).
PACKAGE_CELL_LIMIT = 20_000_000
CHUNK_UNITS = 500_000


# --- coincidences -------------------------------------------------------------------------------


def coincidences_from_counts(counts: np.ndarray, chunk: int = CHUNK_UNITS) -> np.ndarray:
    """The V x V coincidence matrix from units x values counts; units with < 2 values are ignored."""
    v = counts.shape[1]
    o = np.zeros((v, v))
    for s in range(0, counts.shape[0], chunk):
        c = np.asarray(counts[s : s + chunk], dtype=float)
        m = c.sum(axis=1)
        keep = m >= 2
        c, m = c[keep], m[keep]
        if not len(c):
            continue
        cw = c / (m - 1)[:, None]
        o += cw.T @ c
        o -= np.diag(cw.sum(axis=0))
    return o


def _codes_chunk_counts(codes: np.ndarray, v: int) -> np.ndarray:
    """(M coders, n units) int codes, -1 = missing -> (n, V) counts."""
    n = codes.shape[1]
    out = np.zeros(n * v, dtype=np.float64)
    for row in codes:
        ok = row >= 0
        idx = np.nonzero(ok)[0] * v + row[ok]
        out += np.bincount(idx, minlength=n * v)
    return out.reshape(n, v)


def distance_matrix(level: Level | str | np.ndarray, domain: np.ndarray, n_v: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference functions delta^2 as a V x V matrix (or a given matrix)."""
    v = len(domain)
    if not isinstance(level, str):
        d = np.asarray(level, dtype=float)
        if d.shape != (v, v):
            raise AgreementInputError(f"a distance matrix must be {v}x{v} for {v} values, got {d.shape}")
        return d
    if level == "nominal":
        return 1.0 - np.eye(v)
    if level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_v)])
        i, j = np.meshgrid(np.arange(v), np.arange(v), indexing="ij")
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        return (cum[hi + 1] - cum[lo] - (n_v[i] + n_v[j]) / 2) ** 2
    x = np.asarray(domain, dtype=float)
    if level == "interval":
        return np.subtract.outer(x, x) ** 2
    if level == "ratio":
        s = np.add.outer(x, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (np.subtract.outer(x, x) / s) ** 2
        return np.where(s == 0, 0.0, d)
    raise AgreementInputError(
        f"level_of_measurement must be one of {', '.join(LEVELS)} or a matrix, got {level!r}"
    )


def alpha_from_coincidences(o: np.ndarray, delta: np.ndarray) -> tuple[float | None, float, float, int]:
    """(alpha, D_o, D_e, n pairable values); alpha is None when D_e = 0 (no variation)."""
    n_v = o.sum(axis=1)
    n = float(n_v.sum())
    if n <= 1:
        return None, math.nan, math.nan, round(n)
    do = float((o * delta).sum() / n)
    de = float((np.outer(n_v, n_v) * delta).sum() / (n * (n - 1)))
    if de <= 0:
        return None, do, de, round(n)
    return 1.0 - do / de, do, de, round(n)


# --- input handling -------------------------------------------------------------------------------


def _domain_and_codes(
    data: Any, value_domain: Sequence[Any] | None, level: Level | str | np.ndarray
) -> tuple[np.ndarray, list[Any]]:
    """Coders x units reliability data -> int codes (-1 missing) and the value domain."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "iuf":
        arr = data
        if arr.ndim != 2:
            raise AgreementInputError(f"reliability_data must be coders x units, got shape {arr.shape}")
        present = ~np.isnan(arr) if arr.dtype.kind == "f" else np.ones(arr.shape, dtype=bool)
        if value_domain is None:
            dom = np.unique(arr[present]) if arr.dtype.kind == "f" else np.unique(arr)
            domain = dom.tolist()
        else:
            domain = list(value_domain)
        dom_arr = np.asarray(domain, dtype=float)
        order = np.argsort(dom_arr, kind="stable")
        sorted_dom = dom_arr[order]
        codes = np.full(arr.shape, -1, dtype=np.int64)
        for r in range(arr.shape[0]):
            row = arr[r]
            ok = present[r]
            pos = np.searchsorted(sorted_dom, row[ok])
            pos = np.clip(pos, 0, len(sorted_dom) - 1)
            if np.any(sorted_dom[pos] != row[ok]):
                raise AgreementInputError("reliability_data holds values outside value_domain")
            codes[r, ok] = order[pos]
        return codes, domain
    rows = [list(r) for r in data]
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        raise AgreementInputError("reliability_data must be a non-empty coders x units rectangle")
    return encode_rows(rows, value_domain, "values outside value_domain")


def _numeric_domain(domain: Sequence[Any], level: Level | str | np.ndarray) -> np.ndarray:
    if isinstance(level, str) and level in ("interval", "ratio"):
        try:
            return np.asarray(domain, dtype=float)
        except (TypeError, ValueError):
            raise AgreementInputError(f"{level} alpha needs numeric values, got {list(domain)[:5]}") from None
    return np.arange(len(domain), dtype=float)


# --- public ---------------------------------------------------------------------------------------


def krippendorff_alpha(
    reliability_data: Any,
    level_of_measurement: Level | str | np.ndarray,
    *,
    value_domain: Sequence[Any] | None = None,
    engine: Engine = "auto",
    se: SE = "gwet",
    confidence: float = 0.95,
    chunk: int = CHUNK_UNITS,
) -> Coefficient:
    """Krippendorff's alpha of coders x units data (None/NaN = missing), like ``krippendorff.alpha``.

    ``level_of_measurement`` is required (the package's silent default is interval): ``nominal``,
    ``ordinal``, ``interval``, ``ratio`` or a V x V distance matrix over ``value_domain``.
    ``engine``: ``krippendorff`` (the package), ``coincidence`` (ours, chunked, for 10^7 units) or
    ``auto``. ``se``: ``gwet`` (Gwet's linearisation as irrCAC's ``krippen.alpha.raw``), ``gwet_dist``
    (R irrCAC's ``krippen.alpha.dist``, another linearisation) or None (skip; the SE needs the
    units x values count matrix in memory). CIs use t with n-1 df; prefer a bootstrap
    (:mod:`corpusdb.agreement.bootstrap`) for reporting.
    """
    check_confidence(confidence)
    codes, domain = _domain_and_codes(reliability_data, value_domain, level_of_measurement)
    v = len(domain)
    if v == 0:
        return Coefficient("krippendorff_alpha", None, note="no value was given by any coder")
    n_units = codes.shape[1]
    o = np.zeros((v, v))
    keep = (
        se is not None
        or engine == "krippendorff"
        or (engine == "auto" and n_units * v * v <= PACKAGE_CELL_LIMIT)
    )
    counts_parts = []
    for s in range(0, n_units, chunk):
        part = _codes_chunk_counts(codes[:, s : s + chunk], v)
        o += coincidences_from_counts(part, chunk)
        if keep:
            counts_parts.append(part)
    counts = np.concatenate(counts_parts) if counts_parts else None
    return _alpha_result(o, counts, domain, level_of_measurement, engine, se, confidence)


def krippendorff_alpha_counts(
    value_counts: Any,
    level_of_measurement: Level | str | np.ndarray,
    *,
    value_domain: Sequence[Any] | None = None,
    engine: Engine = "auto",
    se: SE = "gwet",
    confidence: float = 0.95,
) -> Coefficient:
    """Krippendorff's alpha from units x values counts (the package's ``value_counts`` layout)."""
    check_confidence(confidence)
    counts = as_counts(value_counts)
    v = counts.shape[1]
    domain = list(value_domain) if value_domain is not None else list(range(v))
    if len(domain) != v:
        raise AgreementInputError(f"value_domain has {len(domain)} values for {v} count columns")
    o = coincidences_from_counts(counts)
    return _alpha_result(o, counts, domain, level_of_measurement, engine, se, confidence)


def _alpha_result(
    o: np.ndarray,
    counts: np.ndarray | None,
    domain: list[Any],
    level: Level | str | np.ndarray,
    engine: Engine,
    se: SE,
    confidence: float,
) -> Coefficient:
    v = len(domain)
    level_name = level if isinstance(level, str) else "custom"
    num = _numeric_domain(domain, level)
    n_v = o.sum(axis=1)
    delta = distance_matrix(level, num, n_v)
    value, do, de, n_pairable = alpha_from_coincidences(o, delta)
    details: dict[str, Any] = {"level": level_name, "Do": do, "De": de, "pairable_values": n_pairable}
    n_units = int((counts.sum(axis=1) >= 2).sum()) if counts is not None else 0
    if value is None:
        note = (
            "no unit has two or more values: nothing is pairable"
            if n_pairable <= 1
            else "every pairable value is the same (no variation): expected disagreement is 0 and alpha "
            "is undefined, although observed agreement is perfect"
        )
        return Coefficient("krippendorff_alpha", None, n=n_units, note=note, details=details)
    if engine not in ("auto", "krippendorff", "coincidence"):
        raise AgreementInputError(f"engine must be auto, krippendorff or coincidence, got {engine!r}")
    use_pkg = engine == "krippendorff" or (
        engine == "auto" and counts is not None and counts.shape[0] * v * v <= PACKAGE_CELL_LIMIT
    )
    if use_pkg:
        if counts is None:
            raise AgreementInputError("engine='krippendorff' needs the per-unit counts")
        metric: Any = level
        if not isinstance(level, str):
            dm = delta

            def metric(v1: Any, v2: Any, i1: np.ndarray, i2: np.ndarray, n_v: Any, dtype: Any = float) -> Any:
                return dm[i1, i2].astype(dtype)

        import krippendorff  # heavy: lazily

        value = float(krippendorff.alpha(value_counts=counts, value_domain=num, level_of_measurement=metric))
        details["engine"] = "krippendorff"
    else:
        details["engine"] = "coincidence"
    se_val = None
    if se not in (None, "gwet", "gwet_dist"):
        raise AgreementInputError(f"se must be 'gwet', 'gwet_dist' or None, got {se!r}")
    if se is not None and counts is not None:
        se_val, gpa, gpe = _gwet_alpha_se(counts, delta, dist=(se == "gwet_dist"))
        details["gwet_pa"], details["gwet_pe"] = gpa, gpe
        details["se_method"] = (
            "Gwet linearisation, irrCAC krippen.alpha.dist"
            if se == "gwet_dist"
            else "Gwet linearisation, irrCAC krippen.alpha.raw"
        )
    lo, hi, z, p = interval(value, se_val, n_units, confidence, "t")
    return Coefficient(
        "krippendorff_alpha",
        value,
        se=se_val,
        ci_low=lo,
        ci_high=hi,
        z=z,
        p=p,
        n=n_units,
        observed=1 - do,
        expected=1 - de,
        details=details,
    )


def _gwet_alpha_se(
    counts: np.ndarray, delta: np.ndarray, dist: bool
) -> tuple[float | None, float | None, float | None]:
    """Gwet's linearised SE of alpha with agreement weights w = 1 - delta / max(delta).

    Also returns Gwet's (pa, pe), with alpha = (pa - pe) / (1 - pe) (irrCAC prints these).
    """
    dmax = delta.max()
    w = 1 - delta / dmax if dmax > 0 else np.ones_like(delta)
    r_all = counts.sum(axis=1)
    c = counts[r_all >= 2]
    n = c.shape[0]
    if n < 2:
        return None, None, None
    r = c.sum(axis=1)
    rbar = r.mean()
    eps = 1 / r.sum()
    sum_q = (c * (c @ w.T - 1)).sum(axis=1)
    pa_i0 = sum_q / (rbar * (r - 1))
    pa_prime = pa_i0.mean()
    pa = (1 - eps) * pa_prime + eps
    pi = (c / rbar).mean(axis=0)
    pe = float((w * np.outer(pi, pi)).sum())
    if math.isclose(pe, 1.0):
        return None, float(pa), pe
    alpha = (pa - pe) / (1 - pe)
    piw = (w @ pi + w.T @ pi) / 2
    if dist:  # R irrCAC krippen.alpha.dist
        pa_i = (1 - eps) * (pa_i0 - pa_prime * (r - rbar) / rbar) + eps
        a_i = (pa_i - pe) / (1 - pe)
        pe_i = (c @ piw) / rbar - pi.sum() * (r - rbar) / rbar
        a_ix = a_i - (1 - alpha) * (pe_i - pe) / (1 - pe)
        centre = alpha
    else:  # krippen.alpha.raw as ported in Python irrCAC
        alpha_prime = (pa_prime - pe) / (1 - pe)
        pa_i = pa_i0 - pa * (r - rbar) / rbar
        a_i = (pa_i - pe) / (1 - pe)
        pe_i = (c @ piw) / rbar - pe * (r - rbar) / rbar
        a_ix = a_i - 2 * (1 - alpha_prime) * (pe_i - pe) / (1 - pe)
        centre = alpha_prime
    var = ((a_ix - centre) ** 2).sum() / (n * (n - 1))
    return (math.sqrt(var) if var >= 0 else None), float(pa), pe


def per_category_alpha(
    reliability_data: Any, *, value_domain: Sequence[Any] | None = None, se: SE = "gwet"
) -> dict[Any, Coefficient]:
    """Nominal alpha of each value k against the rest: values recoded 1 if k else 0, missing kept.

    Krippendorff (1980) reports .381/.711/.717/.764 this way; tests reproduce them.
    """
    codes, domain = _domain_and_codes(reliability_data, value_domain, "nominal")
    out: dict[Any, Coefficient] = {}
    for k, cat in enumerate(domain):
        binary = np.where(codes < 0, np.nan, (codes == k).astype(float))
        res = krippendorff_alpha(binary, "nominal", value_domain=[0.0, 1.0], se=se)
        out[cat] = replace(res, name=f"krippendorff_alpha[{cat}]")
    return out


def alpha_statistic(delta: np.ndarray) -> Any:
    """Vectorised alpha for the bootstrap: batches of coincidence matrices (B, V, V) -> (B,) values.

    Fixed ``delta`` (nominal/interval/ratio); NaN where alpha is undefined.
    """
    d = np.asarray(delta, dtype=float)

    def stat(o: np.ndarray) -> np.ndarray:
        o = np.asarray(o, dtype=float)
        n_v = o.sum(axis=2)
        n = n_v.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            do = (o * d).sum(axis=(1, 2)) / n
            de = np.einsum("bi,bj,ij->b", n_v, n_v, d) / (n * (n - 1))
            out = 1 - do / de
        out[~(de > 0)] = np.nan
        return out

    return stat
