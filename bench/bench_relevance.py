"""Benchmark: a TREC Genomics 2004-sized judging round (run by hand).

    python bench/bench_relevance.py [--topics 50] [--runs 47] [--depth 1000] [--pool 75]

Synthetic: ``--topics`` topics, ``--runs`` runs retrieving ``--depth`` documents per topic from a
collection of 20,000 abstracts (TREC 2004: 50 topics, 47 runs pooled, up to 1,000 documents each).
Times each step through the API into a fresh SQLite file: storing the runs (baseline: the same rows
with plain ``sqlite3.executemany`` in one transaction), pooling to depth ``--pool`` with two judges
and 10% doubled, reading one judge's to-do list, judging 200 units, exporting qrels and scoring
every run. Prints seconds and the run-storing ratio to its floor. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from corpusdb.relevance.records import RunLine, Topic


def make_runs(topics: int, runs: int, depth: int, collection: int, seed: int = 7) -> dict[str, list[RunLine]]:
    rnd = random.Random(seed)
    out: dict[str, list[RunLine]] = {}
    for r in range(runs):
        tag = f"run{r:02d}"
        lines = []
        for t in range(1, topics + 1):
            # runs agree on a topic's likely documents: draw from a topic-specific pool of 3 * depth
            base = [f"pmid{(t * 7919 + i) % collection}" for i in range(3 * depth)]
            docs = rnd.sample(base, depth)
            lines += [RunLine(str(t), d, k, float(depth - k), tag) for k, d in enumerate(docs, 1)]
        out[tag] = lines
    return out


def timed(label: str, fn, results: dict[str, float]):  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - t0
    print(f"{label:<42} {results[label]:8.2f} s", flush=True)
    return value


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--runs", type=int, default=47)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--pool", type=int, default=75)
    ap.add_argument("--collection", type=int, default=20000)
    args = ap.parse_args()
    runs = make_runs(args.topics, args.runs, args.depth, args.collection)
    n_lines = sum(len(v) for v in runs.values())
    print(f"{args.topics} topics, {args.runs} runs, {n_lines:,} run lines, pool depth {args.pool}")
    res: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        floor = Path(tmp) / "floor.sqlite"
        con = sqlite3.connect(floor)
        con.execute("CREATE TABLE run_entry (id INTEGER PRIMARY KEY, run_id INT, topic TEXT, doc TEXT, rank INT,"
                    " score REAL, UNIQUE (run_id, topic, doc))")  # fmt: skip
        rows = [(i, hash(r.tag) % 1000, r.topic, r.doc, r.rank, r.score)
                for i, r in enumerate((r for v in runs.values() for r in v), 1)]  # fmt: skip

        def raw() -> None:
            with con:
                con.executemany("INSERT INTO run_entry VALUES (?, ?, ?, ?, ?, ?)", rows)

        timed("floor: sqlite3.executemany of the run rows", raw, res)
        con.close()
        c = Corpus.create("bench", "trec-relevance", url=f"sqlite:///{Path(tmp) / 'b.sqlite'}")
        c.add_annotator("alice")
        c.add_annotator("bob")
        c.add_documents(
            Document(f"pmid{i}", f"Abstract {i} about genes and proteins.") for i in range(args.collection)
        )
        c.add_topics([Topic(str(t), f"topic {t}", "a need") for t in range(1, args.topics + 1)])
        timed("store the runs (API)", lambda: [c.add_run(v) for v in runs.values()], res)
        pool = timed("pool, 2 judges, 10% doubled", lambda: c.pool(depth=args.pool, double=0.1, seed=1), res)
        print(f"  {len(pool.units):,} units, load {pool.load}")
        alice = c.as_user("alice")
        todo = timed("alice's to-do list", alice.judgments, res)
        timed("alice judges 200 units (one call each)",
              lambda: [alice.judge(j.topic, j.doc, "PR", submit=True) for j in todo[:200]], res)  # fmt: skip
        q = timed("qrels export", c.qrels, res)
        print(f"  {len(q.lines):,} qrels lines, {len(q.skipped):,} units not ready")
        timed(
            "score every run (AP, P@10, bpref)", lambda: c.score_runs(measures=["AP", "P@10", "Bpref"]), res
        )
    print(
        f"storing runs: {res['store the runs (API)'] / res['floor: sqlite3.executemany of the run rows']:.1f}x the floor"
    )


if __name__ == "__main__":
    main()
