"""Document-level scores: article triage and ranked items per document (BioCreative II.5, TREC 2004).

Two shapes of task:

* **Triage / classification** (BioCreative II.5 ACT, TREC 2004 Genomics triage): each document is
  relevant or not; a system says yes or no with a confidence. Figures: the confusion counts,
  accuracy, precision, recall (sensitivity), specificity, F1 and F-beta, Matthews' correlation
  coefficient, the interpolated AUC of the P/R curve over the documents ranked by confidence, and
  TREC 2004's normalised triage utility.
* **Ranked items per document** (BioCreative II.5 INT: interacting proteins as normalised ids; IPT:
  interacting pairs as sorted id tuples): each document has a reference set of items and a ranked,
  confidence-scored list of predicted items. Figures: micro P/R/F (summed counts) and macro P/R/F
  (mean over documents), and the AUC iP/R macro (mean over documents, BioCreative II.5's reported
  figure) and micro (all predictions pooled and ranked by confidence). ``cutoff`` keeps the top N
  predictions of each document.

**AUC iP/R** (BioCreative II.5, Leitner et al. 2010): rank the predictions (by confidence, ties kept
in the given order); at each rank j, precision p(j) and recall r(j); the interpolated precision is
p_i(j) = max_{k >= j} p(k); AUC = Σ_j p_i(j) · (r(j) - r(j-1)), r(0) = 0. Only ranks that find a
relevant item add area, each adding p_i(j) / |relevant|. No relevant item: undefined (None).

**TREC 2004 triage utility** (Hersh et al. 2004): U_raw = Ur·TP - FP, normalised by the best
possible U_max = Ur·AP (AP: all positive documents), so U = (Ur·TP - FP) / (Ur·AP) with Ur = 20.

Unanswered documents count as misses (predicted negative / no items) unless ``answered_only``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.evaluation.counts import EvaluationInputError, Score, prf

TREC_UR = 20.0


def triage_utility(tp: float, fp: float, all_positive: float, ur: float = TREC_UR) -> float | None:
    """TREC 2004 normalised utility U = (Ur·TP - FP) / (Ur·AP); None when there is no positive."""
    if all_positive <= 0:
        return None
    return (ur * tp - fp) / (ur * all_positive)


def mcc(tp: float, fp: float, fn: float, tn: float) -> float | None:
    """Matthews' correlation coefficient; None when a margin is empty."""
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    if den == 0:
        return None
    return (tp * tn - fp * fn) / math.sqrt(den)


def interpolated_auc(relevant: Sequence[bool], total_relevant: int) -> float | None:
    """BioCreative II.5 AUC iP/R of a ranked list (True = a relevant item at that rank)."""
    if total_relevant <= 0:
        return None
    curve = pr_curve(relevant, total_relevant)
    return (
        sum(ip for ip, hit in zip(curve["interpolated_precision"], relevant, strict=True) if hit)
        / total_relevant
    )


def pr_curve(relevant: Sequence[bool], total_relevant: int) -> dict[str, list[float]]:
    """Precision, recall and interpolated precision at each rank (what the HTML report draws)."""
    prec, rec = [], []
    found = 0
    for j, hit in enumerate(relevant, 1):
        found += bool(hit)
        prec.append(found / j)
        rec.append(found / total_relevant if total_relevant else 0.0)
    ip = prec[:]
    for j in range(len(ip) - 2, -1, -1):
        ip[j] = max(ip[j], ip[j + 1])
    return {"precision": prec, "recall": rec, "interpolated_precision": ip}


def binary_figures(tp: float, fp: float, fn: float, tn: float, beta: float = 1.0) -> dict[str, Any]:
    """Every figure of a 2x2 confusion table (None where undefined)."""
    n = tp + fp + fn + tn
    out: dict[str, Any] = {"tp": tp, "fp": fp, "fn": fn, "tn": tn, **prf(tp, fn, fp)}
    if beta != 1.0:
        out.update({k: v for k, v in prf(tp, fn, fp, beta).items() if k.startswith("f")})
    out["accuracy"] = (tp + tn) / n if n else None
    out["sensitivity"] = out["recall"]
    out["specificity"] = tn / (tn + fp) if tn + fp else None
    out["mcc"] = mcc(tp, fp, fn, tn)
    return out


@dataclass(frozen=True, slots=True)
class Judgement:
    """A system's answer on one document: positive or not, and how confident."""

    positive: bool
    confidence: float = 0.0


@dataclass
class TriageResult:
    figures: dict[str, Any]
    score: Score
    curve: dict[str, list[float]]
    unanswered: list[str] = field(default_factory=list)
    answered_only: bool = False
    arrays: dict[str, Any] = field(default_factory=dict, repr=False)
    """Per scored document: gold, said positive, confidence (for the bootstrap of every figure)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "figures": self.figures,
            "unanswered": len(self.unanswered),
            "answered_only": self.answered_only,
        }

    def bootstrap(self, resamples: int, seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
        """Document-bootstrap percentile CIs of every triage figure (AUC, MCC, utility... included)."""
        import numpy as np

        gold = np.asarray(self.arrays["gold"], dtype=bool)
        said = np.asarray(self.arrays["positive"], dtype=bool)
        conf = np.asarray(self.arrays["confidence"], dtype=float)
        n = len(gold)
        if n == 0 or resamples <= 0:
            return {}
        rng = np.random.default_rng(seed)
        order = np.lexsort((np.arange(n), -conf))  # the ranking, fixed; a resample repeats documents
        keys = ("precision", "recall", "f1", "accuracy", "specificity", "mcc", "utility", "auc_ipr")
        draws: dict[str, list[float]] = {k: [] for k in keys}
        ur = float(self.figures.get("utility_ur", TREC_UR))
        for w in rng.multinomial(n, np.full(n, 1.0 / n), size=resamples):
            tp = float(w[gold & said].sum())
            fp = float(w[~gold & said].sum())
            fn = float(w[gold & ~said].sum())
            tn = float(w[~gold & ~said].sum())
            f = binary_figures(tp, fp, fn, tn)
            f["utility"] = triage_utility(tp, fp, tp + fn, ur)
            ranked = order[said[order]]
            hits = np.repeat(gold[ranked], w[ranked])
            f["auc_ipr"] = _auc_array(hits, tp + fn)
            for k in keys:
                if f[k] is not None:
                    draws[k].append(f[k])
        a = (1 - confidence) / 2
        return {k: {"low": float(np.quantile(v, a)), "high": float(np.quantile(v, 1 - a)), "resamples": resamples,
                    "confidence": confidence, "method": "document bootstrap, percentile interval"}
                for k, v in draws.items() if v}  # fmt: skip


def _auc_array(hits: Any, total: float) -> float | None:
    """AUC iP/R of a ranked boolean array (vectorised :func:`interpolated_auc`)."""
    import numpy as np

    if total <= 0:
        return None
    found = np.cumsum(hits)
    prec = found / np.arange(1, len(hits) + 1)
    ip = np.maximum.accumulate(prec[::-1])[::-1]
    return float(ip[hits].sum() / total)


def score_triage(
    reference: Mapping[str, bool], predicted: Mapping[str, Judgement], *, beta: float = 1.0,
    ur: float = TREC_UR, answered_only: bool = False,
) -> TriageResult:  # fmt: skip
    """Triage figures of ``predicted`` over the reference documents (see the module docstring)."""
    docs = [d for d in reference if not answered_only or d in predicted]
    missing = [d for d in reference if d not in predicted]
    score = Score("triage")
    tp = fp = fn = tn = 0
    for d in docs:
        j = predicted.get(d, Judgement(False, -math.inf))
        gold = bool(reference[d])
        tp += gold and j.positive
        fp += (not gold) and j.positive
        fn += gold and not j.positive
        tn += (not gold) and not j.positive
        score.add(d, int(gold and j.positive), int(gold and not j.positive), int((not gold) and j.positive))
    figures = binary_figures(tp, fp, fn, tn, beta)
    figures["utility"] = triage_utility(tp, fp, tp + fn, ur)
    figures["utility_ur"] = ur
    # the ranking: documents said positive, most confident first (BioCreative II.5 ACT)
    ranked = sorted((d for d in docs if d in predicted and predicted[d].positive),
                    key=lambda d: -predicted[d].confidence)  # fmt: skip
    hits = [bool(reference[d]) for d in ranked]
    figures["auc_ipr"] = interpolated_auc(hits, tp + fn)
    arrays = {"gold": [bool(reference[d]) for d in docs],
              "positive": [d in predicted and predicted[d].positive for d in docs],
              "confidence": [predicted[d].confidence if d in predicted else -math.inf for d in docs]}  # fmt: skip
    return TriageResult(figures, score, pr_curve(hits, tp + fn), missing, answered_only, arrays)


@dataclass
class RankedResult:
    score: Score
    figures: dict[str, Any]
    curve: dict[str, list[float]]
    unanswered: list[str] = field(default_factory=list)
    answered_only: bool = False
    cutoff: int | None = None
    document_auc: list[float] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"figures": self.figures, "unanswered": len(self.unanswered), "answered_only": self.answered_only,
                "cutoff": self.cutoff}  # fmt: skip

    def bootstrap(self, resamples: int, seed: int = 0, confidence: float = 0.95) -> dict[str, Any]:
        """Document-bootstrap percentile CI of the macro AUC iP/R (P/R/F CIs come from the counts)."""
        import numpy as np

        vals = np.asarray(self.document_auc, dtype=float)
        n = len(vals)
        if n == 0 or resamples <= 0:
            return {}
        rng = np.random.default_rng(seed)
        means = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples) @ vals / n
        a = (1 - confidence) / 2
        return {"auc_ipr_macro": {"low": float(np.quantile(means, a)), "high": float(np.quantile(means, 1 - a)),
                                  "resamples": resamples, "confidence": confidence,
                                  "method": "document bootstrap, percentile interval"}}  # fmt: skip


def normalise_pair(a: str, b: str) -> tuple[str, str]:
    """An undirected interacting pair of normalised ids, in one canonical order."""
    return (a, b) if a <= b else (b, a)


def score_ranked(
    reference: Mapping[str, set[Hashable]], predicted: Mapping[str, Sequence[tuple[Hashable, float]]], *,
    cutoff: int | None = None, beta: float = 1.0, answered_only: bool = False, name: str = "items",
) -> RankedResult:  # fmt: skip
    """Ranked items per document (BioCreative II.5 INT/IPT); see the module docstring."""
    if cutoff is not None and cutoff < 1:
        raise EvaluationInputError(f"the cut-off must be 1 or more, got {cutoff}")
    score = Score(name)
    missing = [d for d in reference if d not in predicted]
    aucs: list[float] = []
    pooled: list[tuple[float, int, bool]] = []
    total = 0
    for d, gold in reference.items():
        if answered_only and d not in predicted:
            continue
        ranked = sorted(enumerate(predicted.get(d, ())), key=lambda x: (-x[1][1], x[0]))
        items: list[Hashable] = []
        confs: list[float] = []
        for _, (item, conf) in ranked:  # a repeated item counts once, at its best rank
            if item not in items:
                items.append(item)
                confs.append(conf)
        if cutoff is not None:
            items, confs = items[:cutoff], confs[:cutoff]
        hits = [i in gold for i in items]
        pooled.extend((-c, len(pooled) + k, h) for k, (c, h) in enumerate(zip(confs, hits, strict=True)))
        score.add(d, sum(hits), len(gold) - sum(hits), len(items) - sum(hits))
        total += len(gold)
        auc = interpolated_auc(hits, len(gold))
        if auc is not None:
            aucs.append(auc)
    figures: dict[str, Any] = score.figures()
    if beta != 1.0:
        figures.update(
            {k: v for k, v in prf(score.tp, score.fn, score.fp, beta).items() if k.startswith("f")}
        )
    pooled_hits = [h for _, _, h in sorted(pooled)]
    figures["auc_ipr"] = {"macro": sum(aucs) / len(aucs) if aucs else None,
                          "micro": interpolated_auc(pooled_hits, total)}  # fmt: skip
    return RankedResult(score, figures, pr_curve(pooled_hits, total), missing, answered_only, cutoff, aucs)
