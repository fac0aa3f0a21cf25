"""Benchmark what the TUI lead view computes when an agreement tab is first opened.

    .venv/bin/python bench/bench_lead.py [spans per rater] [raters]

What it shows: the lead view's agreement (``TuiFacade.lead_agreement``: spans, relations and links
reports with 1000-resample document-bootstrap CIs, plus the adjudication queue's conflict counts)
against the baseline measured in the same run, the one span report (no bootstrap) the lead view
computed before issue #15.5. It runs in a worker: the first screen does not wait for it.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from bench.bench_report import synthetic
from corpusdb.api import Corpus
from corpusdb.records import Document
from tui.facade import TuiFacade


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    raters = synthetic(n, k)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Corpus.create("bench", "biorelex-1.0", url=f"sqlite:///{Path(tmp) / 'lead.sqlite'}")
        docs = sorted(raters[0].sets)
        corpus.add_documents(Document(d, "x" * 2100) for d in docs)
        for r in raters:
            corpus.add_annotator(r.name)
            for d in docs:
                corpus.create_set(d, r.name, annotations=r.sets[d], status="submitted")
        print(f"{k} raters x {n:,} spans on {len(docs)} documents (biorelex schema: spans, relations, links)")
        corpus.agreement("spans")  # imports (numpy, the engine) out of both timings
        t0 = time.perf_counter()
        corpus.agreement("spans", criterion="exact")
        base = time.perf_counter() - t0
        print(f"baseline, the span report alone (the lead view before): {base:.2f} s")
        facade = TuiFacade(corpus)
        t0 = time.perf_counter()
        first = facade.lead_agreement(layers=("spans",), conflicts=False)
        dt = time.perf_counter() - t0
        print(
            f"lead view, first part shown (spans, bootstrap {first.bootstrap}): {dt:.2f} s (x{dt / base:.2f})"
        )
        for boot in (0, TuiFacade.LEAD_BOOTSTRAP):
            t0 = time.perf_counter()
            got = facade.lead_agreement(bootstrap=boot)
            dt = time.perf_counter() - t0
            print(f"lead view agreement, all of it, bootstrap {boot}: {dt:.2f} s (x{dt / base:.2f} the baseline); "
                  f"layers {', '.join(got.layers)}; {len(got.conflicts)} documents with conflict counts")  # fmt: skip


if __name__ == "__main__":
    main()
