"""Benchmark the evaluation scorers on synthetic data, no database.

    .venv/bin/python bench/bench_evaluation.py [spans] [sentences]

What it shows: bio-NER scoring (``corpusdb.evaluation.ner``: overlap filter, per-document exact
assignment) against the agreement engine's vectorised one-to-one matching on the same spans (the
baseline, measured in the same run), for the binary ``exact`` criterion and for ``fragment`` with
per-token credit; BioRelEx scoring of a train-sized file (1,405 sentences) with and without a
1,000-resample document bootstrap. Prints figures and ratios, asserts nothing about time.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from corpusdb.agreement import compare_spans
from corpusdb.basics.records import Span
from corpusdb.evaluation import biorelex as bx
from corpusdb.evaluation.ner import score_ner
from corpusdb.evaluation.significance import bootstrap_ci, rows_of


def spans(n: int, per_doc: int = 100, seed: int = 0) -> tuple[dict, dict, dict]:
    rng = np.random.default_rng(seed)
    ref, pred, texts = {}, {}, {}
    for d in range(max(1, n // per_doc)):
        doc = f"d{d}"
        texts[doc] = " ".join(["word"] * (per_doc * 4))
        r, p = [], []
        for k in range(per_doc):
            s = k * 20
            e = s + 4 + 5 * int(rng.integers(0, 2))
            r.append(Span(f"T{k}", "protein", ((s, e),), ""))
            if rng.random() < 0.9:
                shift = 5 * int(rng.integers(-1, 2)) if rng.random() < 0.2 else 0
                p.append(Span(f"P{k}", "protein", ((max(0, s + shift), e),), ""))
        ref[doc], pred[doc] = r, p
    return ref, pred, texts


def sentences(n: int, seed: int = 0) -> list[bx.Sentence]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        clusters = tuple(bx.Cluster((bx.Name(f"g{i}-{c}", ((c * 10, c * 10 + 4),)),)) for c in range(4))
        inter = tuple(bx.Interaction(int(rng.integers(0, 4)), int(rng.integers(0, 4))) for _ in range(2))
        out.append(bx.Sentence(f"s{i}", "x" * 50, clusters, inter))
    return out


def timed(f):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 1405
    ref, pred, texts = spans(n)
    docs = {d: (ref[d], pred[d]) for d in ref}
    _, base = timed(lambda: compare_spans(docs, "exact"))
    _, exact = timed(lambda: score_ner(ref, pred, criterion="exact"))
    _, frag = timed(lambda: score_ner(ref, pred, criterion="fragment", texts=texts))
    print(f"{n:,} reference spans, {sum(map(len, pred.values())):,} predicted")
    print(f"  agreement engine, exact (baseline): {base:.2f} s")
    print(f"  evaluation ner, exact:              {exact:.2f} s  ({exact / base:.1f}x the baseline)")
    print(f"  evaluation ner, fragment credit:    {frag:.2f} s  ({frag / base:.1f}x the baseline)")
    truth = sentences(m, 0)
    system = sentences(m, 1)
    scores, t_bx = timed(lambda: bx.score_biorelex(truth, system))
    ids = [s.id for s in truth]
    _, t_ci = timed(
        lambda: [bootstrap_ci(rows_of(s.per_document, ids), "f1", resamples=1000) for s in scores.values()]
    )
    print(f"BioRelEx, {m:,} sentences: {t_bx:.2f} s for 9 scores; 1,000-resample CIs of all 9: {t_ci:.2f} s")


if __name__ == "__main__":
    main()
