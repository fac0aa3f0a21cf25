"""Benchmark the agreement report on top of the engine: synthetic raters, no database.

    .venv/bin/python bench/bench_report.py [spans per rater] [raters]

What it shows: the report's own work (pairwise comparisons, multi-rater units, aggregation,
document bootstrap, rendering) stays vectorised, so its time is the engine's pairwise time plus a
little; the HTML pictures cost about a second (matplotlib import and drawing), whatever the size.

Baseline, measured in the same run: the bare engine (``compare_spans`` for every pair, the same
type merges) on the same records; ratios show what the report adds, and what reading the sets back
from a SQLite project through ``Corpus.agreement`` adds on top.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from corpusdb.agreement import compare_spans
from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.reports import AgreementOptions, build_report
from corpusdb.reports.loading import Rater

TYPES = ("protein", "DNA", "RNA", "cell line", "cell type")


def synthetic(n_spans: int, n_raters: int, per_doc: int = 100, seed: int = 0) -> list[Rater]:
    """A reference rater and noisy copies: dropped, shifted, retyped and extra spans."""
    rng = np.random.default_rng(seed)
    n_docs = max(1, n_spans // per_doc)
    base = [
        [
            (int(s), int(s) + int(rng.integers(3, 12)), TYPES[int(rng.integers(0, len(TYPES)))])
            for s in np.arange(per_doc) * 20
        ]
        for _ in range(n_docs)
    ]
    raters = []
    for r in range(n_raters):
        sets = {}
        for d, spans in enumerate(base):
            out = []
            for i, (s, e, t) in enumerate(spans):
                u = rng.random()
                if r and u < 0.05:
                    continue
                if r and u < 0.10:
                    e += 1
                if r and 0.10 <= u < 0.13:
                    t = TYPES[(TYPES.index(t) + 1) % len(TYPES)]
                out.append(Span(f"T{i}", t, ((s, e),), "x" * (e - s)))
            sets[f"doc{d:06d}"] = Annotations(spans=tuple(out))
        raters.append(Rater(f"rater{r}", "annotation", sets))
    return raters


def engine_only(raters: list[Rater], merges: dict[str, list[str]]) -> float:
    """The baseline: every pair through the bare engine, records already in memory."""
    t0 = time.perf_counter()
    for i, a in enumerate(raters):
        for b in raters[i + 1 :]:
            docs = {d: (a.sets[d].spans, b.sets[d].spans) for d in a.sets if d in b.sets}
            compare_spans(docs, "exact", types="merged", type_classes=merges)
    return time.perf_counter() - t0


def through_store(raters: list[Rater]) -> float:
    """``Corpus.agreement`` on a SQLite project holding the same sets (the full path a lead runs)."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus.create("bench", "biorelex-1.0", url=f"sqlite:///{Path(tmp) / 'r.sqlite'}")
        docs = sorted(raters[0].sets)
        corpus.add_documents(Document(d, "x" * 2100) for d in docs)
        for r in raters:
            corpus.add_annotator(r.name)
            for d in docs:
                corpus.create_set(d, r.name, annotations=r.sets[d], status="submitted")
        t0 = time.perf_counter()
        corpus.agreement(merges=["protein,DNA,RNA=macromolecule"])
        return time.perf_counter() - t0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    t0 = time.perf_counter()
    raters = synthetic(n, k)
    print(f"{k} raters x {n:,} spans: built in {time.perf_counter() - t0:.1f} s")
    base = engine_only(raters, {"macromolecule": ["protein", "DNA", "RNA"]})
    print(f"baseline, bare engine for {k * (k - 1) // 2} pairs: {base:.2f} s")
    for boot in (0, 1000):
        t0 = time.perf_counter()
        rep = build_report(
            project="bench",
            actor="bench",
            schema=None,
            raters=raters,
            opts=AgreementOptions.build(merges=["protein,DNA,RNA=macromolecule"], bootstrap=boot),
        )
        dt = time.perf_counter() - t0
        print(
            f"report (bootstrap {boot}): {dt:.2f} s (x{dt / base:.2f} the engine); mean pairwise F1 "
            f"{rep.summary['value']:.4f}; units {rep.units.units if rep.units else 0:,}"
        )
    store = through_store(raters)
    print(
        f"Corpus.agreement from a SQLite project (read + report): {store:.2f} s (x{store / base:.2f} the engine)"
    )
    from corpusdb.reports.html import render_html

    t0 = time.perf_counter()
    html = render_html(rep.to_dict())
    print(f"HTML with pictures: {time.perf_counter() - t0:.2f} s, {len(html) / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
