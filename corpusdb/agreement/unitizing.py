"""Krippendorff's unitizing alpha (1995; 2004, section 12.4) for segments of a continuum, e.g. characters.

Why hand-written: no Python library implements it (``krippendorff`` and statsmodels do not; DKPro
Statistics is Java). The definition is the 1995/2004 one, not Krippendorff's later (2013/2019)
family (u-alpha, |u-alpha, cu-alpha): per category c, each observer's continuum [B, B+L) is cut
into units of c and gaps, and

* D_o,c = sum over ordered observer pairs i != j and overlapping segments g of i, h of j of
  delta^2(g, h), divided by m(m-1)L^2, where delta^2 is (b_g-b_h)^2 + (e_g-e_h)^2 for two units,
  l_g^2 when unit g lies inside gap h (and symmetrically), else 0;
* D_e,c = (2/L) sum_units [(N_c - 1)(2l^3 - 3l^2 + l)/3 + l^2 sum_{gaps, l_gap >= l}(l_gap - l + 1)]
  / [mL(mL - 1) - sum_units l(l - 1)], with units and gaps pooled over observers;
* alpha_c = 1 - D_o,c / D_e,c and alpha_u = 1 - sum D_o,c / sum D_e,c.

Krippendorff (2004), p. 254 (exact value .8587; the book prints .8591 from rounded D_o and D_e):

>>> units = [(225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"),
...          (400, 20, 1, "c"), (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"), (300, 50, 1, "k")]
>>> res = unitizing_alpha(units, continuum_begin=150, continuum_length=300)
>>> round(res.alpha, 4), round(res.per_category["c"].alpha, 4), res.per_category["k"].alpha
(0.8587, 0.7286, 1.0)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from corpusdb.agreement.results import AgreementInputError, _ToDict
from corpusdb.basics.records import Span

Unit = tuple[int, int, Hashable, str]
"""(begin, length, observer, category)."""


@dataclass(frozen=True, slots=True)
class CategoryUnitizing(_ToDict):
    category: str
    alpha: float | None
    do: float
    de: float
    n_units: int
    note: str = ""


@dataclass(frozen=True, slots=True)
class UnitizingAlpha(_ToDict):
    """alpha_u over all categories and alpha_c per category; ``None`` with a note when undefined."""

    alpha: float | None
    per_category: Mapping[str, CategoryUnitizing]
    continuum_begin: int
    continuum_length: int
    n_observers: int
    note: str = ""
    details: Mapping[str, object] = field(default_factory=dict)


def _segments(
    units: list[tuple[int, int]], begin: int, end: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Partition [begin, end) into the given (sorted, disjoint) units and the gaps between them."""
    starts, ends, is_unit = [], [], []
    pos = begin
    for b, e in units:
        if b > pos:
            starts.append(pos)
            ends.append(b)
            is_unit.append(False)
        starts.append(b)
        ends.append(e)
        is_unit.append(True)
        pos = e
    if pos < end:
        starts.append(pos)
        ends.append(end)
        is_unit.append(False)
    return np.array(starts, dtype=float), np.array(ends, dtype=float), np.array(is_unit, dtype=bool)


def _pair_disagreement(
    si: tuple[np.ndarray, np.ndarray, np.ndarray], sj: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> float:
    """sum of delta^2 over overlapping segments of two observers' partitions (one direction)."""
    bi, ei, ui = si
    bj, ej, uj = sj
    total = 0.0
    # each observer's segments partition the continuum: pair g with the j-segments it overlaps
    lo = np.searchsorted(ej, bi, side="right")
    hi = np.searchsorted(bj, ei, side="left")
    for g in range(len(bi)):
        for h in range(lo[g], hi[g]):
            if ui[g] and uj[h]:
                total += (bi[g] - bj[h]) ** 2 + (ei[g] - ej[h]) ** 2
            elif ui[g] and not uj[h] and bj[h] <= bi[g] and ei[g] <= ej[h]:
                total += (ei[g] - bi[g]) ** 2
            elif uj[h] and not ui[g] and bi[g] <= bj[h] and ej[h] <= ei[g]:
                total += (ej[h] - bj[h]) ** 2
    return total


def unitizing_alpha(
    units: Iterable[Unit],
    *,
    continuum_begin: int,
    continuum_length: int,
    observers: Sequence[Hashable] | None = None,
    overlapping: Literal["error", "merge"] = "error",
) -> UnitizingAlpha:
    """Unitizing alpha of ``(begin, length, observer, category)`` units on [begin, begin + length).

    ``observers`` lists every observer (one who marked nothing still counts in m); by default
    the observers seen. Units of one category by one observer must not overlap
    (``overlapping="merge"`` unites them instead of raising).
    """
    b0, length = int(continuum_begin), int(continuum_length)
    if length <= 0:
        raise AgreementInputError("continuum_length must be positive")
    end = b0 + length
    by: dict[str, dict[Hashable, list[tuple[int, int]]]] = defaultdict(lambda: defaultdict(list))
    seen: list[Hashable] = []
    for u in units:
        if len(u) != 4:
            raise AgreementInputError(f"a unit is (begin, length, observer, category), got {u!r}")
        b, ln, obs, cat = u
        if ln <= 0:
            raise AgreementInputError(f"unit {u!r} has no length")
        if b < b0 or b + ln > end:
            raise AgreementInputError(f"unit {u!r} lies outside the continuum [{b0}, {end})")
        by[str(cat)][obs].append((int(b), int(b) + int(ln)))
        if obs not in seen:
            seen.append(obs)
    obs_list = list(observers) if observers is not None else seen
    if set(seen) - set(obs_list):
        raise AgreementInputError(
            f"units by observers not listed: {sorted(map(str, set(seen) - set(obs_list)))}"
        )
    m = len(obs_list)
    if m < 2:
        raise AgreementInputError("unitizing alpha needs at least two observers")
    per: dict[str, CategoryUnitizing] = {}
    sum_do = sum_de = 0.0
    for cat in sorted(by):
        segs = []
        all_units: list[float] = []
        all_gaps: list[float] = []
        for obs in obs_list:
            us = sorted(by[cat].get(obs, []))
            merged: list[tuple[int, int]] = []
            for b, e in us:
                if merged and b < merged[-1][1]:
                    if overlapping != "merge":
                        raise AgreementInputError(
                            f"observer {obs!r} has overlapping {cat!r} units at {b}; pass overlapping='merge'"
                        )
                    merged[-1] = (merged[-1][0], max(merged[-1][1], e))
                else:
                    merged.append((b, e))
            s = _segments(merged, b0, end)
            segs.append(s)
            lens = s[1] - s[0]
            all_units.extend(lens[s[2]].tolist())
            all_gaps.extend(lens[~s[2]].tolist())
        num = 0.0
        for i in range(m):
            for j in range(i + 1, m):
                num += 2 * _pair_disagreement(segs[i], segs[j])
        do = num / (m * (m - 1) * length**2)
        ul = np.array(all_units)
        gl = np.sort(np.array(all_gaps))
        n_c = len(ul)
        suffix = np.concatenate([np.cumsum(gl[::-1])[::-1], [0.0]])
        idx = np.searchsorted(gl, ul, side="left")
        gap_term = suffix[idx] - (len(gl) - idx) * (ul - 1)
        numer = ((n_c - 1) * (2 * ul**3 - 3 * ul**2 + ul) / 3 + ul**2 * gap_term).sum()
        denom = m * length * (m * length - 1) - (ul * (ul - 1)).sum()
        de = 2 / length * numer / denom if denom > 0 else 0.0
        alpha = 1 - do / de if de > 0 else None
        note = "" if alpha is not None else "expected disagreement is 0 for this category: alpha undefined"
        per[cat] = CategoryUnitizing(
            cat, None if alpha is None else float(alpha), float(do), float(de), n_c, note
        )
        sum_do += do
        sum_de += de
    if not per:
        return UnitizingAlpha(None, per, b0, length, m, note="no unit was marked by any observer")
    total = float(1 - sum_do / sum_de) if sum_de > 0 else None
    note = "" if total is not None else "expected disagreement is 0: alpha undefined"
    return UnitizingAlpha(total, per, b0, length, m, note=note)


def unitizing_alpha_spans(
    documents: Iterable[tuple[int, Mapping[Hashable, Sequence[Span]]]],
    *,
    observers: Sequence[Hashable] | None = None,
) -> UnitizingAlpha:
    """Unitizing alpha over character spans: documents (text length, observer -> spans) are laid end
    to end as one continuum; each fragment of a span is a unit of the span's type.

    Overlapping same-type fragments by one observer are merged (unitizing needs a partition);
    spans without fragments are skipped.
    """
    units: list[Unit] = []
    offset = 0
    obs_seen: list[Hashable] = []
    for text_length, by_observer in documents:
        for obs, spans in by_observer.items():
            if obs not in obs_seen:
                obs_seen.append(obs)
            for sp in spans:
                for b, e in sp.fragments:
                    if e > b:
                        units.append((offset + b, e - b, obs, sp.type))
        offset += int(text_length)
    return unitizing_alpha(
        units,
        continuum_begin=0,
        continuum_length=max(offset, 1),
        observers=observers if observers is not None else obs_seen,
        overlapping="merge",
    )
