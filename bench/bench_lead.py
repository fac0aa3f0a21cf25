"""Benchmark what the TUI lead view computes when an agreement tab is first opened.

    .venv/bin/python bench/bench_lead.py [spans per rater] [raters]

What it shows: the lead view's agreement (``TuiFacade.lead_agreement``: spans, relations and links
reports with 1000-resample document-bootstrap CIs, plus the adjudication queue's conflict counts)
against the baseline measured in the same run, the one span report (no bootstrap) the lead view
computed before issue #15.5. It runs in a worker: the first screen does not wait for it. Layers nobody
annotated are not computed (``Corpus.agreement_items``): on the spans-only project that is spans and
the conflicts. Then the same raters with relations and links: those two reports read layer by layer
(as before) against ``Corpus.agreements``, which reads the sets once for both.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench.bench_report import synthetic
from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Document, Link, Relation
from tui.facade import TuiFacade


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    k = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    raters = synthetic(n, k)
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _project(Path(tmp) / "lead.sqlite", raters, lambda a: a)
        print(
            f"{k} raters x {n:,} spans on {len(raters[0].sets)} documents (biorelex schema: spans, relations, links)"
        )
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
        rich = _project(Path(tmp) / "rich.sqlite", raters, _with_relations)
        t0 = time.perf_counter()
        items = rich.agreement_items()
        dt = time.perf_counter() - t0
        print(f"which layers have items (Corpus.agreement_items, SQL counts): {dt:.3f} s (x{dt / base:.3f})")
        print(f"with relations and links ({items['relations']:,} relations, {items['links']:,} links):")
        t0 = time.perf_counter()
        for layer in ("relations", "links"):
            rich.agreement(layer, criterion="exact")
        each = time.perf_counter() - t0
        t0 = time.perf_counter()
        rich.agreements(["relations", "links"], criterion="exact")
        once = time.perf_counter() - t0
        print(f"  relations + links, layer by layer (before): {each:.2f} s (x{each / base:.2f}); "
              f"read once (Corpus.agreements): {once:.2f} s (x{once / base:.2f}; {once / each:.2f} of before)")  # fmt: skip
        t0 = time.perf_counter()
        got = TuiFacade(rich).lead_agreement()
        dt = time.perf_counter() - t0
        print(f"  lead view agreement, all of it, bootstrap {got.bootstrap}: {dt:.2f} s (x{dt / base:.2f} the "
              f"baseline); layers {', '.join(got.layers)}")  # fmt: skip


def _project(path: Path, raters: list, content: Callable[[Annotations], Annotations]) -> Corpus:
    """The raters' sets, submitted, in a new SQLite project (``content`` may add to each set)."""
    corpus = Corpus.create("bench", "biorelex-1.0", url=f"sqlite:///{path}")
    docs = sorted(raters[0].sets)
    corpus.add_documents(Document(d, "x" * 2100) for d in docs)
    for r in raters:
        corpus.add_annotator(r.name)
        for d in docs:
            corpus.create_set(d, r.name, annotations=content(r.sets[d]), status="submitted")
    return corpus


def _with_relations(a: Annotations) -> Annotations:
    """A bind relation between every 4th span and the next, a synonym link between every 10th and the next."""
    ids = [s.id for s in a.spans]
    rels = tuple(
        Relation(f"R{i}", "bind", (Argument("Arg1", ids[i]), Argument("Arg2", ids[i + 1])), 1)
        for i in range(0, len(ids) - 1, 4)
    )
    links = tuple(Link(f"L{i}", "synonym", ids[i], ids[i + 1]) for i in range(0, len(ids) - 1, 10))
    return replace(a, relations=rels, links=links)


if __name__ == "__main__":
    main()
