"""Benchmark: inserting spans through the API vs raw ``sqlite3.executemany`` (run by hand).

    python bench/bench_store.py [--sizes 100000 1000000]

For each size, one transaction each way into a fresh SQLite file: the API path goes from records
(``Corpus.create_set(..., annotations=...)``: reference checks, JSON encoding, id allocation,
``executemany``) to a committed set; the floor inserts the very same row tuples (``content.build_rows``),
already built, with ids, with plain ``sqlite3.executemany``. Prints spans/s and the ratio API/raw (target: >= 0.5).
Nothing is asserted: speed is measured here, never in tests.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
import time
from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.services.content import build_rows

TYPES = ("protein", "gene", "chemical", "cell", "DNA", "RNA")


def make_spans(n: int, seed: int = 7) -> tuple[str, tuple[Span, ...]]:
    rnd = random.Random(seed)
    words = ["IL-2", "binds", "receptor", "alpha", "chain", "in", "T", "cells", "and", "p53"]
    text_parts: list[str] = []
    spans: list[Span] = []
    pos = 0
    for i in range(n):
        w = rnd.choice(words)
        text_parts.append(w + " ")
        frags = ((pos, pos + len(w)),)
        attrs = {"mutant": True} if i % 17 == 0 else {}
        spans.append(Span(f"T{i + 1}", rnd.choice(TYPES), frags, w, attributes=attrs))
        pos += len(w) + 1
    return "".join(text_parts), tuple(spans)


def api_insert(path: Path, text: str, spans: tuple[Span, ...]) -> float:
    corpus = Corpus.create("bench", "biorelex-1.0", url=f"sqlite:///{path}")
    corpus.add_annotator("a")
    corpus.add_document(Document("d1", text))
    t0 = time.perf_counter()
    corpus.create_set("d1", "a", annotations=Annotations(spans=spans))
    return time.perf_counter() - t0


def raw_insert(path: Path, text: str, spans: tuple[Span, ...]) -> float:
    """The floor: the same rows, pre-built, into the same table with plain sqlite3."""
    corpus = Corpus.create("bench", "biorelex-1.0", url=f"sqlite:///{path}")
    corpus.add_annotator("a")
    corpus.add_document(Document("d1", text))
    corpus.create_set("d1", "a")
    corpus.engine.dispose()
    batch = build_rows([(1, Annotations(spans=spans))]).spans  # the very rows the store writes
    columns = ("id", *batch.columns)
    rows = [(i + 1, *r) for i, r in enumerate(batch.rows)]
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    con.execute("PRAGMA foreign_keys=ON")
    sql = f"INSERT INTO span ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})"
    t0 = time.perf_counter()
    con.execute("BEGIN IMMEDIATE")
    con.executemany(sql, rows)
    con.execute("COMMIT")
    dt = time.perf_counter() - t0
    con.close()
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    args = ap.parse_args()
    print(f"{'spans':>9} {'API s':>8} {'API spans/s':>12} {'raw s':>8} {'raw spans/s':>12} {'API/raw':>8}")
    for n in args.sizes:
        text, spans = make_spans(n)
        with tempfile.TemporaryDirectory() as d:
            t_api = api_insert(Path(d) / "api.sqlite", text, spans)
            t_raw = raw_insert(Path(d) / "raw.sqlite", text, spans)
        print(
            f"{n:>9} {t_api:>8.2f} {n / t_api:>12,.0f} {t_raw:>8.2f} {n / t_raw:>12,.0f} {t_raw / t_api:>8.2f}"
        )
    print("API/raw is the API's rate as a fraction of raw sqlite3 (target >= 0.50).")


if __name__ == "__main__":
    main()
