"""Result records of the agreement engine and the one error it raises for bad input.

Why frozen dataclasses with ``to_dict()``: a report (CLI, Markdown/HTML, JSON) renders them later
without knowing how they were computed, and the JSON keys stay stable across versions.

Degenerate inputs (one category used by everybody, no pairable unit, an empty table) do not raise
and do not return a silent NaN: the coefficient's ``value`` is ``None`` and ``note`` says why.
Malformed input (wrong shape, negative counts, an unknown option) raises :class:`AgreementInputError`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

from corpusdb.basics.errors import InvalidInput

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class AgreementInputError(InvalidInput, ValueError):
    """Bad input to an agreement function.

    Both an :class:`~corpusdb.basics.errors.InvalidInput` (the CLI maps it to exit code 4) and a
    ``ValueError`` (what numeric code such as ``krippendorff`` raises), so either ``except`` works.
    """


def clean_float(x: Any) -> float | None:
    """A plain ``float`` for JSON, or ``None`` for NaN/None/infinite values."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def _jsonable(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float):
        return clean_float(value)
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalar
        return _jsonable(value.item())
    return value


class _ToDict:
    """``to_dict()`` for every result dataclass: field names are the JSON keys."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            f.name: _jsonable(getattr(self, f.name))
            for f in fields(self)  # type: ignore[arg-type]
            if f.metadata.get("json", True)
        }


@dataclass(frozen=True, slots=True)
class Coefficient(_ToDict):
    """One agreement coefficient with its uncertainty.

    ``value`` is ``None`` for a degenerate input, and ``note`` then says why. ``observed`` and
    ``expected`` are the observed and chance agreement (p_a, p_e) the value was computed from
    (for Krippendorff's alpha: 1 - D_o and 1 - D_e are *not* used; ``details`` has ``Do``/``De``).
    ``z``/``p`` test the null hypothesis value = 0; which standard error they use is in ``details``.
    """

    name: str
    value: float | None
    se: float | None = None
    ci_low: float | None = None
    ci_high: float | None = None
    z: float | None = None
    p: float | None = None
    n: int = 0
    """Number of units (subjects, items, pairs) the value was computed from."""
    observed: float | None = None
    expected: float | None = None
    note: str = ""
    details: Mapping[str, Any] = field(default_factory=lambda: _EMPTY)

    @property
    def degenerate(self) -> bool:
        """True when the coefficient is undefined for this input (see ``note``)."""
        return self.value is None


@dataclass(frozen=True, slots=True)
class BootstrapCI(_ToDict):
    """A bootstrap confidence interval (cluster bootstrap: whole documents are resampled)."""

    estimate: float | None
    ci_low: float | None
    ci_high: float | None
    se: float | None
    confidence: float
    method: str
    """``percentile`` or ``bca``."""
    n_resamples: int
    n_valid: int
    """Resamples where the statistic was defined (a resample may hold a single category)."""
    n_clusters: int
    seed: int | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class PRF(_ToDict):
    """Pairwise counts and precision/recall/F1 with A as the reference.

    ``precision = matched / (matched + only_b)``, ``recall = matched / (matched + only_a)``;
    swapping A and B swaps precision and recall and leaves F1 unchanged. A figure whose
    denominator is zero is ``None``.
    """

    matched: int
    only_a: int
    only_b: int
    precision: float | None
    recall: float | None
    f1: float | None

    @classmethod
    def from_counts(cls, matched: int, only_a: int, only_b: int) -> PRF:
        def div(a: float, b: float) -> float | None:
            return a / b if b else None

        return cls(
            int(matched),
            int(only_a),
            int(only_b),
            div(matched, matched + only_b),
            div(matched, matched + only_a),
            div(2 * matched, 2 * matched + only_a + only_b),
        )
