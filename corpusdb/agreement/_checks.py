"""Input coercion shared by the coefficient modules: one precise error per bad input."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from corpusdb.agreement.results import AgreementInputError


def as_table(table: Any) -> np.ndarray:
    """A square, finite, non-negative count table as float (rows = coder A, columns = coder B)."""
    try:
        t = np.asarray(table, dtype=float)
    except (TypeError, ValueError) as exc:
        raise AgreementInputError(f"table must be a square matrix of counts: {exc}") from None
    if t.ndim != 2 or t.shape[0] != t.shape[1]:
        raise AgreementInputError(f"table must be a square matrix (rows = coder A), got shape {t.shape}")
    if not np.all(np.isfinite(t)) or np.any(t < 0):
        raise AgreementInputError("table counts must be finite and non-negative")
    return t


def as_counts(counts: Any) -> np.ndarray:
    """A subjects x categories matrix of rater counts as float."""
    try:
        c = np.asarray(counts, dtype=float)
    except (TypeError, ValueError) as exc:
        raise AgreementInputError(f"counts must be a subjects x categories matrix: {exc}") from None
    if c.ndim != 2:
        raise AgreementInputError(f"counts must be a subjects x categories matrix, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise AgreementInputError("counts must be finite and non-negative")
    return c


def is_missing(v: Any) -> bool:
    """None, NaN and the empty string mean "not rated"."""
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return math.isnan(v)
    return isinstance(v, str) and v == ""


def ratings_to_codes(ratings: Any, categories: Sequence[Any] | None = None) -> tuple[np.ndarray, list[Any]]:
    """Subjects x raters ratings (None/NaN missing) -> int codes (-1 missing) and the category list.

    Categories default to the sorted distinct values seen (numbers sort numerically).
    """
    rows = [list(r) for r in ratings] if not isinstance(ratings, np.ndarray) else ratings.tolist()
    if not rows:
        raise AgreementInputError("ratings are empty: need at least one subject")
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        raise AgreementInputError("ratings must be rectangular: every subject needs one cell per rater")
    if width == 0:
        raise AgreementInputError("ratings need at least one rater column")
    return encode_rows(rows, categories, "ratings hold values outside the categories")


def encode_rows(
    rows: list[list[Any]], categories: Sequence[Any] | None, outside: str
) -> tuple[np.ndarray, list[Any]]:
    """Rows of values (missing allowed) -> int codes (-1 missing) and the category list: the given
    ``categories`` (values outside them raise ``outside: [...]``), else the sorted values seen
    (numbers sort numerically, mixed types by their text)."""
    seen = {v for r in rows for v in r if not is_missing(v)}
    if categories is None:
        try:
            cats = sorted(seen)
        except TypeError:
            cats = sorted(seen, key=str)
    else:
        cats = list(categories)
        unknown = seen - set(cats)
        if unknown:
            raise AgreementInputError(f"{outside}: {sorted(map(str, unknown))}")
    index = {c: i for i, c in enumerate(cats)}
    codes = np.array([[-1 if is_missing(v) else index[v] for v in r] for r in rows], dtype=np.int64)
    return codes, cats


def codes_to_counts(codes: np.ndarray, q: int) -> np.ndarray:
    """Subjects x raters codes (-1 missing) -> subjects x categories counts."""
    n = codes.shape[0]
    counts = np.zeros((n, q), dtype=float)
    rows, cols = np.nonzero(codes >= 0)
    np.add.at(counts, (rows, codes[rows, cols]), 1.0)
    return counts


def check_confidence(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise AgreementInputError(f"confidence must be in (0, 1), got {confidence}")
    return float(confidence)


def interval(
    value: float, se: float | None, n: int, confidence: float, ci: str, cap: bool = True
) -> tuple[float | None, float | None, float | None, float | None]:
    """(ci_low, ci_high, z, p) from a standard error; ``ci`` is ``t`` (n-1 df, as irrCAC) or ``normal``.

    With ``t`` the upper bound is capped at 1 (irrCAC does so); p is two-sided.
    """
    if se is None or not math.isfinite(se) or se <= 0 or n < 2:
        return None, None, None, None
    # the ufuncs scipy.stats' t and norm call (ppf, sf), bit for bit: scipy.stats costs ~1 s to import
    from scipy.special import ndtr, ndtri, stdtr, stdtrit

    z = value / se
    if ci == "t":
        q = stdtrit(n - 1, 1 - (1 - confidence) / 2)
        p = 2 * stdtr(n - 1, -abs(z))
    elif ci == "normal":
        q = ndtri(1 - (1 - confidence) / 2)
        p = 2 * ndtr(-abs(z))
    else:
        raise AgreementInputError(f"ci must be 't' or 'normal', got {ci!r}")
    hi = value + q * se
    return float(value - q * se), float(min(1.0, hi) if cap else hi), float(z), float(p)
