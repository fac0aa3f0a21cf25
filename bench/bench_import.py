"""Benchmark: ``Corpus.import_brat`` against two floors on the same files (run by hand).

    python bench/bench_import.py [--docs 10000] [--spans 40] [--ge PATH] [--skip-synthetic]

Two corpora: the whole GENIA 2011 train+devel (1,167 documents, ~27,000 spans, ~13,500 events) from
../shared/data, and a synthetic two-annotator brat corpus generated into a temporary folder
(10,000 documents, ~400,000 spans per annotator, plus relations, attributes, Equiv links and notes).

For each, in the same run:
* **import**: ``Corpus.import_brat`` per annotator into a fresh SQLite file (reading, checks, one
  write transaction per annotator: documents, set headers, content), as a user's script runs it.
* **floor 1, read**: plain file reads and line splitting of the same files, nothing parsed.
* **floor 2, sqlite3**: the very rows the import writes (captured from an untimed import) inserted
  by the same INSERT statements with plain ``sqlite3.executemany`` in one transaction into a fresh file with the same schema and
  pragmas (WAL, synchronous=NORMAL, foreign keys on, the import's page cache).

Prints documents/s and spans/s for each and the ratios import/sqlite3 (target <= 2.5) and
import/(read + sqlite3). Nothing is asserted: speed is measured here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpusdb import db, migrate  # noqa: E402
from corpusdb.api import Corpus  # noqa: E402

GE = REPO.parent / "shared" / "data" / "bionlp-st-2011-ge"
WORDS = ("IL-2", "binds", "the", "receptor", "alpha", "chain", "in", "T", "cells", "and", "p53", "kinase",
         "activates", "NF-κB", "expression", "of", "β-catenin", "was", "not", "detected")  # fmt: skip
TYPES = ("Protein", "Gene", "Chemical", "Cell", "DNA", "RNA")


def make_corpus(root: Path, n_docs: int, spans: int, annotators: tuple[str, ...], seed: int = 7) -> None:
    """``root/<annotator>/doc<n>.txt|.ann``: the same texts, each annotator's own choice of spans."""
    rnd = random.Random(seed)
    for who in annotators:
        (root / who).mkdir(parents=True, exist_ok=True)
    n_tokens = spans * 5
    for i in range(n_docs):
        tokens = [rnd.choice(WORDS) for _ in range(n_tokens)]
        text = " ".join(tokens) + "."
        offsets = []
        pos = 0
        for t in tokens:
            offsets.append((pos, pos + len(t)))
            pos += len(t) + 1
        for k, who in enumerate(annotators):
            r = random.Random(seed * 1_000_003 + i * 31 + k)
            picks = sorted(r.sample(range(n_tokens), spans))
            lines = []
            for n, j in enumerate(picks, 1):
                s, e = offsets[j]
                lines.append(f"T{n}\t{r.choice(TYPES)} {s} {e}\t{text[s:e]}")
            for n in range(1, spans // 8 + 1):
                a, b = r.sample(range(1, spans + 1), 2)
                lines.append(f"R{n}\tBind Arg1:T{a} Arg2:T{b}\t")
            lines.append(f"A1\tNegation R{r.randint(1, max(1, spans // 8))}")
            lines.append(f"*\tEquiv T{r.randint(1, spans // 2)} T{r.randint(spans // 2 + 1, spans)}")
            if i % 10 == 0:
                lines.append("#1\tAnnotatorNotes T1\tcheck this one")
            name = root / who / f"doc{i:05d}"
            name.with_suffix(".txt").write_text(text, encoding="utf-8")
            name.with_suffix(".ann").write_text("\n".join(lines) + "\n", encoding="utf-8")


def fresh_db(path: Path, template: Path) -> str:
    shutil.copy(template, path)
    return f"sqlite:///{path}"


def import_all(url: str, imports: list[tuple[Path, str]]) -> tuple[float, list[Any], tuple[float, float]]:
    """Wall seconds, reports, and CPU seconds (this process, its worker processes)."""
    corpus = Corpus.open("bench", url=url)
    c0 = os.times()
    t0 = time.perf_counter()
    # the generated types fit no schema: store them as they are, without the submit check
    reports = [corpus.import_brat(path, who, allow_unknown=True, force=True) for path, who in imports]
    dt = time.perf_counter() - t0
    c1 = os.times()
    corpus.engine.dispose()
    cpu = (c1.user + c1.system - c0.user - c0.system,
           c1.children_user + c1.children_system - c0.children_user - c0.children_system)  # fmt: skip
    return dt, reports, cpu


Captured = list[tuple[str, tuple[str, ...], list[Any], dict[str, int]]]


def capture_rows(url: str, imports: list[tuple[Path, str]]) -> Captured:
    """The rows (and id offsets) an import hands to ``executemany``, recorded from an untimed import."""
    captured: Captured = []
    real: Callable[..., None] = db.executemany

    def spy(conn: Any, table: str, columns: Any, rows: Any, *, offsets: Any = None) -> None:
        captured.append((table, tuple(columns), list(rows), dict(offsets or {})))
        real(conn, table, columns, rows, offsets=offsets)

    db.executemany = spy  # type: ignore[assignment]
    try:
        import_all(url, imports)
    finally:
        db.executemany = real  # type: ignore[assignment]
    return captured


def sqlite_floor(path: Path, rows: Captured) -> tuple[float, float]:
    """Wall and CPU seconds of the plain ``sqlite3`` insert: the same statements, the same rows (the
    floor's file starts as the capture's did, so rows without ids get the same ids)."""
    con = sqlite3.connect(path, isolation_level=None)
    for pragma in (
        "journal_mode=WAL",
        "synchronous=NORMAL",
        "foreign_keys=ON",
        f"cache_size=-{db.BULK_CACHE_KIB}",
    ):
        con.execute(f"PRAGMA {pragma}")
    c0 = time.process_time()
    t0 = time.perf_counter()
    con.execute("BEGIN IMMEDIATE")
    for table, cols, data, offsets in rows:
        marks = ", ".join(f"? + {offsets[c]}" if c in offsets else "?" for c in cols)
        con.executemany(f'INSERT INTO "{table}" ({", ".join(cols)}) VALUES ({marks})', data)
    con.execute("COMMIT")
    dt = time.perf_counter() - t0
    cpu = time.process_time() - c0
    con.close()
    return dt, cpu


def read_floor(imports: list[tuple[Path, str]]) -> float:
    t0 = time.perf_counter()
    for root, _ in imports:
        for folder, _dirs, files in os.walk(root):
            for name in files:
                if name.endswith((".txt", ".ann", ".a1", ".a2")):
                    with open(os.path.join(folder, name), "rb") as fh:
                        fh.read().decode("utf-8").split("\n")
    return time.perf_counter() - t0


def bench(label: str, imports: list[tuple[Path, str]], work: Path) -> None:
    template = work / "template.sqlite"
    engine = db.make_engine(f"sqlite:///{template}")
    migrate.upgrade(engine)
    engine.dispose()
    Corpus.create("bench", "ge-2011", url=f"sqlite:///{template}").engine.dispose()

    rows = capture_rows(fresh_db(work / "capture.sqlite", template), imports)
    t_floor_read = read_floor(imports)
    floor = Corpus.open("bench", url=fresh_db(work / "floor.sqlite", template))
    for _, who in imports:  # the import creates its annotators with ordinary statements: not timed
        floor.add_annotator(who)
    floor.engine.dispose()
    t_floor_sql, cpu_floor = sqlite_floor(work / "floor.sqlite", rows)
    t_import, reports, (cpu_main, cpu_workers) = import_all(
        fresh_db(work / "import.sqlite", template), imports
    )

    n_docs = reports[0].documents
    n_sets = sum(r.sets_created for r in reports)
    n_spans = sum(r.items["spans"] for r in reports)
    n_rows = sum(len(r) for _, _, r, _ in rows)
    print(f"\n{label}: {n_docs:,} documents, {n_sets:,} sets, {n_spans:,} spans, {n_rows:,} rows written")
    print(f"  {'':<22} {'seconds':>8} {'docs/s':>10} {'spans/s':>11}")
    for name, t in (("import (API)", t_import), ("floor 1: read+split", t_floor_read),
                    ("floor 2: sqlite3", t_floor_sql)):  # fmt: skip
        print(f"  {name:<22} {t:>8.2f} {n_sets / t:>10,.0f} {n_spans / t:>11,.0f}")
    print(f"  import / sqlite3 floor          = {t_import / t_floor_sql:.2f}  (target <= 2.5)")
    print(f"  import / (read + sqlite3 floor) = {t_import / (t_floor_read + t_floor_sql):.2f}")
    print(f"  CPU: import {cpu_main:.2f} s in this process + {cpu_workers:.2f} s in reader processes; "
          f"sqlite3 floor {cpu_floor:.2f} s (wall > CPU: other processes had the cores)")  # fmt: skip
    for r in reports:
        print(f"  {r.annotator}: {r.seconds:.2f} s ({r.documents_added:,} new documents)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000, help="synthetic documents (default 10,000)")
    ap.add_argument("--spans", type=int, default=40, help="spans per document and annotator (default 40)")
    ap.add_argument("--ge", type=Path, default=GE, help="the GENIA 2011 folder (train + devel)")
    ap.add_argument("--skip-ge", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="corpusdb-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_ge:
            if args.ge.exists():
                (work / "ge").mkdir()
                bench("GENIA 2011 train+devel", [(args.ge, "alice")], work / "ge")
            else:
                print(f"\nGENIA 2011: {args.ge} not found, skipped")
        if not args.skip_synthetic:
            src = work / "synthetic"
            t0 = time.perf_counter()
            make_corpus(src, args.docs, args.spans, ("alice", "bob"))
            print(f"\n(generated the synthetic corpus in {time.perf_counter() - t0:.1f} s)")
            (work / "syn").mkdir()
            bench(f"synthetic, {args.docs:,} documents x 2 annotators", [(src / "alice", "alice"), (src / "bob", "bob")],
                  work / "syn")  # fmt: skip


if __name__ == "__main__":
    main()
