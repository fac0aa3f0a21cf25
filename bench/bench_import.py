"""Benchmark: ``Corpus.import_brat`` against two floors on the same files (run by hand).

    python bench/bench_import.py [--docs 10000] [--spans 40] [--ge PATH] [--skip-ge] [--skip-synthetic]
                                 [--skip-cli]
    python bench/bench_import.py --docs 25000 --skip-ge     # issue #14: time and peak memory at 25k

Two corpora: the whole GENIA 2011 train+devel (1,167 documents, ~27,000 spans, ~13,500 events) from
../shared/data, and a synthetic two-annotator brat corpus generated into a temporary folder
(10,000 documents, ~400,000 spans per annotator, plus relations, attributes, Equiv links and notes).

For each, in the same run:
* **import**: ``Corpus.import_brat`` per annotator into a fresh SQLite file (reading, checks, one
  write transaction per annotator: documents, set headers, content), as a user's script runs it, in
  a child process of its own (``--child``): the time is taken inside it around the calls; its peak
  RSS (``ru_maxrss``) and that of its largest reader process are printed beside the RSS it had before
  importing (Python and corpusdb loaded). Reader processes are forked, so they share the pages they
  inherit: their RSS and the main process's are not to be added up.
* **CLI**: the same import as ``corpusdb import brat`` processes (one per annotator), whole processes
  timed from outside (start-up included; start-up itself is ``bench_startup``'s subject).
* **floor 1, read**: plain file reads and line splitting of the same files, nothing parsed.
* **floor 2, sqlite3**: the very rows the import writes (captured from an untimed import) inserted
  by the same INSERT statements with plain ``sqlite3.executemany`` in one transaction into a fresh file with the same schema and
  pragmas (WAL, synchronous=NORMAL, foreign keys on, the import's page cache).

Prints documents/s and spans/s for each and the ratios import/sqlite3 and import/(read + sqlite3)
(issue #14's target: <= 1.5), and CPU seconds beside wall seconds (on a shared machine wall time
includes waiting for the cores). Nothing is asserted: speed is measured here, never in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpusdb.api import Corpus  # noqa: E402
from corpusdb.store import db, migrate  # noqa: E402

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


def _mib(kib: int) -> float:
    return kib / 1024  # ru_maxrss is in KiB on Linux


def _peak_mib() -> float:
    """This process's peak RSS. Why not ``ru_maxrss``: Linux carries a parent's peak into a child
    across ``exec``; ``VmHWM`` is the peak of this program's own memory."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return _mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def child(url: str, pairs: list[str]) -> None:
    """``--child``: the timed import in this fresh process; one JSON line on stdout."""
    imports = [(Path(pairs[i]), pairs[i + 1]) for i in range(0, len(pairs), 2)]
    before = _peak_mib()
    dt, reports, (cpu_main, cpu_workers) = import_all(url, imports)
    print(json.dumps({
        "seconds": dt, "cpu_main": cpu_main, "cpu_workers": cpu_workers,
        "rss_before_mib": before,
        "rss_main_mib": _peak_mib(),
        "rss_workers_mib": _mib(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss),
        "reports": [{"annotator": r.annotator, "seconds": r.seconds, "documents": r.documents,
                     "documents_added": r.documents_added, "sets_created": r.sets_created,
                     "spans": r.items["spans"]} for r in reports],
    }))  # fmt: skip


def import_in_child(url: str, imports: list[tuple[Path, str]]) -> dict[str, Any]:
    """Run :func:`child` in a fresh interpreter (so that its peak RSS is the import's alone)."""
    args = [sys.executable, __file__, "--child", url, *(x for p, who in imports for x in (str(p), who))]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the import process failed:\n{done.stderr}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def import_cli(url: str, imports: list[tuple[Path, str]]) -> tuple[float, float]:
    """Whole ``corpusdb import brat`` processes, one per annotator: wall seconds, and the largest peak
    RSS (MiB) among them and their readers."""
    exe = Path(sys.executable).with_name("corpusdb")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "corpusdb.cli.main"]
    t0 = time.perf_counter()
    for path, who in imports:
        subprocess.run([*cmd, "--db", url, "-p", "bench", "import", "brat", str(path), "-a", who,
                        "--allow-unknown", "--force"], check=True, capture_output=True)  # fmt: skip
    dt = time.perf_counter() - t0
    return dt, _mib(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


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


def bench(label: str, imports: list[tuple[Path, str]], work: Path, *, cli: bool = True) -> None:
    template = work / "template.sqlite"
    engine = db.make_engine(f"sqlite:///{template}")
    migrate.upgrade(engine)
    engine.dispose()
    Corpus.create("bench", "ge-2011", url=f"sqlite:///{template}").engine.dispose()

    # The import first, while this process is small: a child's ru_maxrss starts at its parent's size.
    own = _peak_mib()
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    res = import_in_child(fresh_db(work / "import.sqlite", template), imports)
    t_process = time.perf_counter() - t0
    t_import = float(res["seconds"])
    t_cli, rss_cli = import_cli(fresh_db(work / "cli.sqlite", template), imports) if cli else (0.0, 0.0)
    reports = res["reports"]

    rows = capture_rows(fresh_db(work / "capture.sqlite", template), imports)
    t_floor_read = read_floor(imports)
    floor = Corpus.open("bench", url=fresh_db(work / "floor.sqlite", template))
    for _, who in imports:  # the import creates its annotators with ordinary statements: not timed
        floor.add_annotator(who)
    floor.engine.dispose()
    t_floor_sql, cpu_floor = sqlite_floor(work / "floor.sqlite", rows)
    n_rows = sum(len(r) for _, _, r, _ in rows)
    del rows

    n_docs = reports[0]["documents"]
    n_sets = sum(r["sets_created"] for r in reports)
    n_spans = sum(r["spans"] for r in reports)
    floor_all = t_floor_read + t_floor_sql
    print(f"\n{label}: {n_docs:,} documents, {n_sets:,} sets, {n_spans:,} spans, {n_rows:,} rows written "
          f"(load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")  # fmt: skip
    print(f"  {'':<34} {'seconds':>8} {'docs/s':>10} {'spans/s':>11}")
    timed = [("import (API, in its process)", t_import), ("  the same, whole process", t_process)]
    if cli:
        timed.append(("  as `corpusdb import brat` CLI", t_cli))
    timed += [("floor 1: read+split", t_floor_read), ("floor 2: sqlite3", t_floor_sql),
              ("floor: read+split + sqlite3", floor_all)]  # fmt: skip
    for name, t in timed:
        print(f"  {name:<34} {t:>8.2f} {n_sets / t:>10,.0f} {n_spans / t:>11,.0f}")
    print(f"  import / sqlite3 floor          = {t_import / t_floor_sql:.2f}")
    print(f"  import / (read + sqlite3 floor) = {t_import / floor_all:.2f}  (target <= 1.5)")
    if cli:
        print(f"  CLI / (read + sqlite3 floor)    = {t_cli / floor_all:.2f}; CLI / in-process = "
              f"{t_cli / t_import:.2f}")  # fmt: skip
    print(f"  CPU: import {res['cpu_main']:.2f} s in its process + {res['cpu_workers']:.2f} s in reader "
          f"processes; sqlite3 floor {cpu_floor:.2f} s (wall > CPU: other processes had the cores)")  # fmt: skip
    print(f"  peak RSS: import process {res['rss_main_mib']:.0f} MiB ({res['rss_before_mib']:.0f} MiB before "
          f"importing), largest reader process {res['rss_workers_mib']:.0f} MiB"
          + (f"; CLI processes and readers {rss_cli:.0f} MiB (at least this process's {own:.0f} MiB)" if cli else "")
          + "  (target <= 500 MB)")  # fmt: skip
    for r in reports:
        print(f"  {r['annotator']}: {r['seconds']:.2f} s ({r['documents_added']:,} new documents)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=10_000, help="synthetic documents (default 10,000)")
    ap.add_argument("--spans", type=int, default=40, help="spans per document and annotator (default 40)")
    ap.add_argument("--ge", type=Path, default=GE, help="the GENIA 2011 folder (train + devel)")
    ap.add_argument("--skip-ge", action="store_true")
    ap.add_argument("--skip-synthetic", action="store_true")
    ap.add_argument("--skip-cli", action="store_true", help="do not time the import as CLI processes")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)  # URL PATH WHO [PATH WHO...]
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1:])
        return
    import compileall

    for pkg in ("corpusdb", "guidelines", "importers"):
        # As installed (pip compiles): without this, PYTHONDONTWRITEBYTECODE or a fresh checkout
        # makes the first import of each run compile the readers and the pipeline from source.
        compileall.compile_dir(REPO / pkg, quiet=2)
    print(
        f"python {sys.version.split()[0]}, sqlite {sqlite3.sqlite_version}, {os.cpu_count()} cores, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )
    with tempfile.TemporaryDirectory(prefix="corpusdb-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_ge:
            if args.ge.exists():
                (work / "ge").mkdir()
                bench("GENIA 2011 train+devel", [(args.ge, "alice")], work / "ge", cli=not args.skip_cli)
            else:
                print(f"\nGENIA 2011: {args.ge} not found, skipped")
        if not args.skip_synthetic:
            src = work / "synthetic"
            t0 = time.perf_counter()
            make_corpus(src, args.docs, args.spans, ("alice", "bob"))
            print(f"\n(generated the synthetic corpus in {time.perf_counter() - t0:.1f} s)")
            (work / "syn").mkdir()
            bench(f"synthetic, {args.docs:,} documents x 2 annotators", [(src / "alice", "alice"), (src / "bob", "bob")],
                  work / "syn", cli=not args.skip_cli)  # fmt: skip


if __name__ == "__main__":
    main()
