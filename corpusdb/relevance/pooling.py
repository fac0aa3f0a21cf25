"""The pool: which (topic, document) pairs are judged, in which order, and which get a second judge.

Pure and seeded, so the same runs, depth and seed give the same pool. Depth-k pooling as TREC did it:
the top ``depth`` documents of every run per topic, duplicates removed. With a ``budget`` (documents
per topic) the pool grows rank by rank across runs until the budget is met; at the rank where it
fills, the runs that still contribute are drawn by the seed, so no run is favoured. The pooled units
are then shuffled (a judge's order says nothing about rank or run).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from corpusdb.errors import UsageError
from corpusdb.relevance.records import RunLine


def pool_pairs(
    runs: Mapping[str, Iterable[RunLine]],
    topics: Sequence[str],
    *,
    depth: int | None = None,
    budget: int | None = None,
    seed: int = 0,
) -> list[tuple[str, str]]:
    """The pooled (topic, document) pairs, de-duplicated, shuffled with ``seed``."""
    if depth is None and budget is None:
        raise UsageError("give a pool depth (-k, documents per run and topic) or a budget per topic")
    if depth is not None and depth < 1:
        raise UsageError(f"the pool depth must be at least 1, got {depth}")
    if budget is not None and budget < 1:
        raise UsageError(f"the budget must be at least 1, got {budget}")
    rng = random.Random(seed)
    wanted = set(topics)
    # per topic, per run: documents in rank order (ties: the higher score first, then the id)
    ranked: dict[str, dict[str, list[str]]] = {t: {} for t in topics}
    for tag in sorted(runs):
        by_topic: dict[str, list[RunLine]] = {}
        for r in runs[tag]:
            if r.topic in wanted:
                by_topic.setdefault(r.topic, []).append(r)
        for t, rs in by_topic.items():
            ranked[t][tag] = [r.doc for r in sorted(rs, key=lambda r: (r.rank, -r.score, r.doc))]
    out: list[tuple[str, str]] = []
    for t in topics:
        lists = ranked[t]
        deepest = max((len(v) for v in lists.values()), default=0)
        limit = deepest if depth is None else min(depth, deepest)
        pooled: dict[str, None] = {}
        for rank in range(limit):
            tags = sorted(lists)
            if budget is not None:
                rng.shuffle(tags)  # who fills the last places is drawn, not alphabetical
            for tag in tags:
                docs = lists[tag]
                if rank < len(docs) and (budget is None or len(pooled) < budget):
                    pooled.setdefault(docs[rank])
        out += [(t, d) for d in pooled]
    rng.shuffle(out)
    return out


def doubled_subset(units: Sequence[str], fraction: float, seed: int) -> set[str]:
    """The units given one judge more (the agreement subset): ``round(fraction * len(units))`` of them,
    drawn with ``seed``."""
    if not 0.0 <= fraction <= 1.0:
        raise UsageError(f"the duplicate-judged fraction must be between 0 and 1, got {fraction}")
    k = round(fraction * len(units))
    return set(random.Random(f"double:{seed}").sample(list(units), k))
