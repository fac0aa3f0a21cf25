"""Scoring runs against qrels with trec_eval's measures, through ``ir-measures`` (whose default
provider for these measures is ``pytrec_eval``, trec_eval's own C code). Nothing here computes a
measure: we only turn our records into the library's and its results into plain dicts.

Measures are named as ir-measures names them (``AP``, ``P@10``, ``Bpref``, ``Rprec``, ``RR``,
``nDCG``, ``AP(rel=2)`` for "definitely relevant only", ...); as in trec_eval, a document with grade
>= 1 is relevant unless a measure says ``rel=``, and a topic counts when the run retrieved something
for it and the qrels judge it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.relevance.records import QrelLine, RunLine

DEFAULT_MEASURES = ("AP", "P@10", "P@100", "Bpref", "Rprec", "RR", "nDCG")


@dataclass(frozen=True, slots=True)
class RunScores:
    """One run's figures: per topic and the mean over the topics scored."""

    tag: str
    measures: tuple[str, ...]
    per_topic: dict[str, dict[str, float]] = field(default_factory=dict)
    mean: dict[str, float] = field(default_factory=dict)
    topics: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"tag": self.tag, "measures": list(self.measures), "topics": self.topics,
                "mean": self.mean, "per_topic": self.per_topic}  # fmt: skip


def _parse(measures: Sequence[str]) -> list[Any]:
    import ir_measures

    out = []
    for m in measures:
        try:
            out.append(ir_measures.parse_measure(m))
        except (ValueError, TypeError, NameError, SyntaxError, AttributeError) as exc:
            raise InvalidInput(
                f"unknown measure {m!r} (ir-measures names, e.g. AP, P@10, Bpref, nDCG)"
            ) from exc
    return out


def score_run(
    qrels: Iterable[QrelLine],
    run: Iterable[RunLine],
    measures: Sequence[str] = DEFAULT_MEASURES,
    *,
    tag: str = "",
) -> RunScores:
    """Per-topic and mean figures of one run (mean: ir-measures' aggregate over the scored topics)."""
    import ir_measures

    parsed = _parse(measures)
    names = {str(p): p for p in parsed}
    qr = [ir_measures.Qrel(q.topic, q.doc, q.grade) for q in qrels]
    rn = [ir_measures.ScoredDoc(r.topic, r.doc, r.score) for r in run]
    per_topic: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc(parsed, qr, rn):
        per_topic.setdefault(m.query_id, {})[str(m.measure)] = float(m.value)
    agg = ir_measures.calc_aggregate(parsed, qr, rn) if per_topic else {}
    mean = {name: float(agg[p]) for name, p in names.items() if p in agg}
    order = list(names)
    per_topic = {
        t: {k: per_topic[t][k] for k in order if k in per_topic[t]}
        for t in sorted(per_topic, key=lambda s: (len(s), s))
    }
    return RunScores(tag, tuple(order), per_topic, mean, len(per_topic))
