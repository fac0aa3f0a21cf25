"""Counts and the figures made from them, kept per document so that every figure can be bootstrapped.

Why per document: a shared task's score is a sum over documents of true positives, false negatives
and false positives (BB 2011's are sums of similarities, so counts are floats). Keeping the per-document
rows lets :mod:`corpusdb.evaluation.significance` resample documents without re-scoring anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import InvalidInput


class EvaluationInputError(InvalidInput, ValueError):
    """Bad input to a scorer (a malformed file, an unknown option): the CLI exits with code 4."""


def prf(tp: float, fn: float, fp: float, beta: float = 1.0) -> dict[str, float | None]:
    """Precision, recall and F-beta; ``None`` where the denominator is 0 (no silent 0 or NaN)."""
    p = tp / (tp + fp) if tp + fp > 0 else None
    r = tp / (tp + fn) if tp + fn > 0 else None
    if p is None or r is None:
        f = None
    elif p + r == 0:
        f = 0.0
    else:
        b2 = beta * beta
        f = (1 + b2) * p * r / (b2 * p + r)
    return {"precision": p, "recall": r, "f1" if beta == 1.0 else f"f{beta:g}": f}


@dataclass
class Score:
    """One named score: tp/fn/fp in total and per document (document id -> [tp, fn, fp]).

    ``reference``/``predicted`` may differ from tp+fn / tp+fp when a score credits partial matches
    (BB 2011: tp is the sum of similarities, recall = ΣS/|reference|): then ``fn`` is
    ``|reference| - ΣS`` and ``fp`` is ``|predicted| - ΣS``, so the usual formulas still hold.
    """

    name: str
    per_document: dict[str, list[float]] = field(default_factory=dict)
    note: str = ""

    def add(self, document: str, tp: float = 0, fn: float = 0, fp: float = 0) -> None:
        row = self.per_document.setdefault(document, [0, 0, 0])
        row[0] += tp
        row[1] += fn
        row[2] += fp

    def add_sets(self, document: str, truth: Iterable[Any], predicted: Iterable[Any]) -> None:
        """Exact set comparison (without touching the caller's sets)."""
        t, p = frozenset(truth), frozenset(predicted)
        both = len(t & p)
        self.add(document, both, len(t) - both, len(p) - both)

    def totals(self, documents: Iterable[str] | None = None) -> tuple[float, float, float]:
        rows = self.per_document.values() if documents is None else (
            self.per_document.get(d, (0, 0, 0)) for d in documents)  # fmt: skip
        tp = fn = fp = 0
        for a, b, c in rows:
            tp, fn, fp = tp + a, fn + b, fp + c
        return tp, fn, fp

    @property
    def tp(self) -> float:
        return self.totals()[0]

    @property
    def fn(self) -> float:
        return self.totals()[1]

    @property
    def fp(self) -> float:
        return self.totals()[2]

    def figures(self) -> dict[str, Any]:
        """Micro (summed counts) and macro (mean over documents with anything to score) P/R/F1."""
        tp, fn, fp = self.totals()
        micro = prf(tp, fn, fp)
        docs = [prf(*row) for row in self.per_document.values() if sum(row) > 0]

        def mean(key: str) -> float | None:
            vals = [d[key] for d in docs if d[key] is not None]
            return sum(vals) / len(vals) if vals else None

        return {
            "tp": _num(tp), "fn": _num(fn), "fp": _num(fp), **micro,
            "macro": {k: mean(k) for k in ("precision", "recall", "f1")},
        }  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        out = {"name": self.name, **self.figures(), "documents": len(self.per_document)}
        if self.note:
            out["note"] = self.note
        return out


def _num(x: float) -> float | int:
    """Integral counts as ints in JSON (``tp: 3``, not ``3.0``)."""
    return int(x) if float(x).is_integer() else float(x)


def scores_by_name(scores: Iterable[Score]) -> Mapping[str, Score]:
    return {s.name: s for s in scores}
