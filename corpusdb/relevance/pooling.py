"""The pool: which (topic, document) pairs are judged, in which order, and which get a second judge.

Pure and seeded, so the same runs, depth and seed give the same pool. Depth-k pooling as TREC did it:
the top ``depth`` documents of every run per topic, duplicates removed. "Top" is trec_eval's order,
the one ``runs score`` and ``evaluate trec`` score by (``trec_order``): by score, the rank column
ignored; a document the scorer puts in a run's top k is judged, never counted as not relevant for
want of a judgment. With a ``budget`` (documents per topic) the pool grows position by position
across runs until the budget is met; at the position where it fills, the runs that still contribute
are drawn by the seed, so no run is favoured. The pooled units are then shuffled (a judge's order
says nothing about rank or run).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from corpusdb.basics.errors import UsageError
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
    # per topic, per run: documents in trec_eval's order
    ranked: dict[str, dict[str, list[str]]] = {t: {} for t in topics}
    for tag in sorted(runs):
        for t, rs in _by_topic(runs[tag], wanted).items():
            ranked[t][tag] = [r.doc for r in trec_order(rs)]
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


def trec_order(lines: Iterable[RunLine]) -> list[RunLine]:
    """One topic's lines in the order trec_eval ranks them: score descending, equal scores by
    document id descending, byte by byte. trec_eval 10.0 ignores the rank column
    (``get_trec_results.c``: "ranks will be assigned by sorting by the sim field") and sorts with
    ``comp_sim_docno`` (``form_res_rels.c``): ``sim`` larger first, then ``strcmp(p2->docno,
    p1->docno)``; pytrec_eval, which ``runs score`` uses, is that code."""
    by_doc = sorted(lines, key=lambda r: r.doc.encode(), reverse=True)
    return sorted(by_doc, key=lambda r: -r.score)  # stable: equal scores keep the id order


def rank_disorder(lines: Iterable[RunLine]) -> dict[str, tuple[int, str, str]]:
    """Topics where a run's rank column orders its documents otherwise than its scores do (as
    trec_eval orders them): topic -> (first position that differs, the document the ranks put
    there, the one the scores put there). Documents of equal rank are taken in score order."""
    out: dict[str, tuple[int, str, str]] = {}
    for t, rs in _by_topic(lines, None).items():
        by_score = trec_order(rs)
        pos = {id(r): i for i, r in enumerate(by_score)}
        by_rank = sorted(by_score, key=lambda r: (r.rank, pos[id(r)]))
        first = next((i for i, (a, b) in enumerate(zip(by_rank, by_score, strict=True)) if a is not b), None)
        if first is not None:
            out[t] = (first + 1, by_rank[first].doc, by_score[first].doc)
    return out


def disorder_warning(
    tag: str, disordered: int, topics: int, example: str, where: tuple[int, str, str]
) -> str:
    """One line for a person: which run, in how many topics, one example (``rank_disorder``'s), and
    what corpusdb does about it."""
    i, by_rank, by_score = where
    return (
        f"run {tag}: its rank column and its scores order the documents differently in {disordered} of "
        f"{topics} topic(s) (topic {example}, position {i}: rank says {by_rank}, score says {by_score}); "
        "pooled and scored by score, as trec_eval does"
    )


def run_warning(lines: Sequence[RunLine]) -> str | None:
    """``disorder_warning`` for a whole run read from a file, or None when its ranks follow its scores."""
    found = rank_disorder(lines)
    if not found:
        return None
    t = min(found, key=lambda s: (len(s), s))
    return disorder_warning(lines[0].tag, len(found), len({r.topic for r in lines}), t, found[t])


def _by_topic(lines: Iterable[RunLine], wanted: set[str] | None) -> dict[str, list[RunLine]]:
    out: dict[str, list[RunLine]] = {}
    for r in lines:
        if wanted is None or r.topic in wanted:
            out.setdefault(r.topic, []).append(r)
    return out


def doubled_subset(units: Sequence[str], fraction: float, seed: int) -> set[str]:
    """The units given one judge more (the agreement subset): ``round(fraction * len(units))`` of them,
    drawn with ``seed``."""
    if not 0.0 <= fraction <= 1.0:
        raise UsageError(f"the duplicate-judged fraction must be between 0 and 1, got {fraction}")
    k = round(fraction * len(units))
    return set(random.Random(f"double:{seed}").sample(list(units), k))
