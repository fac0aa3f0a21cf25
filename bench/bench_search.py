"""Search at scale: typed queries over 10^6 spans, full text over 25,000 abstracts (run by hand).

    python bench/bench_search.py                                   # SQLite; the issue's sizes
    python bench/bench_search.py --pg postgresql://postgres@127.0.0.1:5432/test   # and PostgreSQL
    python bench/bench_search.py --abstracts 2500 --docs 1000      # a quick run

One project: ``--abstracts`` documents of abstract-like text (real sentences from ../shared/data's
corpora, shuffled into ~1,500-character abstracts; made-up words without ../shared), ``--docs`` of
which carry two annotators' sets of ``--spans`` spans each (10^4 x 2 x 50 = 10^6 spans; bob agrees
with alice on ~80% of them), imported as brat and submitted, so a lead sees every set (on PostgreSQL
then VACUUM ANALYZE, as autovacuum soon would: statistics, and the visibility map an index-only scan
needs). ``--pg-schema NAME`` keeps the PostgreSQL project in that schema; a second run reuses it.

Each query goes through ``Corpus.search`` (the first 100 hits as KWIC lines, with their context and
knowledge-base labels) or ``Corpus.search_counts`` (per document and type), as the owner (a lead)
and as the annotator alice (on PostgreSQL also through alice's own team login, under row-level
security); the median of 5 runs after one warm-up is printed (goal: <= 100 ms).
Beside each, in the same run, a **baseline**: the bare SQL a hand-written tool would send for the
same answer (no blindness gate, no KWIC: the FTS5 ``MATCH`` / trigram ``ILIKE`` or ``WHERE type =``
with ``LIMIT``) through the same connection pool, and for full text also a **scan** (every text read
and matched in Python), which is what search would cost without the index. With ``--import-cost``
the import is timed again into a database without the full-text index (SQLite: no FTS5 table nor
triggers; PostgreSQL: neither the trigram nor the words index): what keeping the indexes costs an
import. PostgreSQL's baseline for a word stays the trigram ``ILIKE`` (the words index is search's own
expression: ``corpusdb.store.text_index.words_sql``).
Nothing is asserted: speed is measured here, never in tests.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared" / "data"
TYPES = ("Protein", "Gene", "Chemical", "Cell", "DNA", "RNA", "Bacterium", "Habitat", "Organism", "Disease")


def sentences(seed: int = 1) -> list[str]:
    """Real sentences from ../shared/data's texts (or made-up ones without it)."""
    out: list[str] = []
    if SHARED.exists():
        for f in sorted(SHARED.rglob("*.txt")):
            text = f.read_text(encoding="utf-8", errors="replace")
            out += [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if 40 <= len(s.strip()) <= 400]
    if len(out) < 1000:
        rng = random.Random(seed)
        syll = ["ki", "na", "se", "pro", "te", "in", "ge", "ne", "ce", "ll", "ba", "cil", "lus", "ty", "ro"]
        vocab = ["".join(rng.choice(syll) for _ in range(rng.randint(1, 4))) for _ in range(5000)]
        out = [
            " ".join(rng.choice(vocab) for _ in range(rng.randint(8, 30))).capitalize() + "."
            for _ in range(20000)
        ]
    return out


def make_texts(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    pool = sentences()
    texts = []
    for _ in range(n):
        parts: list[str] = []
        size = 0
        while size < 1500:
            s = rng.choice(pool)
            parts.append(s)
            size += len(s) + 1
        texts.append(" ".join(parts))
    return texts


def write_corpus(root: Path, texts: list[str], n_annotated: int, spans: int, seed: int = 7) -> None:
    """``root/texts/*.txt`` (every document) and ``root/<annotator>/*.txt|.ann`` for the first
    ``n_annotated``: alice's spans on word tokens, bob's the same 80% of the time."""
    for d in ("texts", "alice", "bob"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for i, text in enumerate(texts):
        name = f"PMID{i:06d}"
        (root / "texts" / f"{name}.txt").write_text(text, encoding="utf-8")
        if i >= n_annotated:
            continue
        rng = random.Random(seed * 1_000_003 + i)
        words = [(m.start(), m.end()) for m in re.finditer(r"\w+", text)]
        picks = sorted(rng.sample(range(len(words)), min(spans, len(words))))
        for who in ("alice", "bob"):
            lines = []
            for n, j in enumerate(picks, 1):
                s, e = words[j]
                t = TYPES[(j * 7 + i) % len(TYPES)]
                if who == "bob" and rng.random() < 0.2:
                    t = rng.choice(TYPES)
                lines.append(f"T{n}\t{t} {s} {e}\t{text[s:e]}")
            (root / who / f"{name}.txt").write_text(text, encoding="utf-8")
            (root / who / f"{name}.ann").write_text("\n".join(lines) + "\n", encoding="utf-8")


def timed(fn: Callable[[], Any], repeat: int = 5) -> tuple[float, Any]:
    got = fn()  # warm-up (caches, plans)
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        got = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, got


def build(url: str, root: Path, *, with_index: bool = True) -> tuple[Any, float]:
    from corpusdb.api import Corpus
    from corpusdb.search import index
    from corpusdb.store import db

    c = Corpus.create("bench", schema="bb-2011", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    if not with_index:  # the baseline of the import: no full-text index to keep
        with db.write(c.engine) as conn:
            index.uninstall(conn)
    t = time.perf_counter()
    c.import_texts(root / "texts")
    for who in ("alice", "bob"):
        c.import_brat(root / who, who, allow_unknown=True, force=True)
    took = time.perf_counter() - t
    if not db.is_sqlite(c.engine):
        # the planner's statistics and the visibility map (index-only scans), as autovacuum has them
        # soon after an import (PostgreSQL 13+ vacuums after inserts too); this bench's server may
        # run with autovacuum off
        with c.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.exec_driver_sql("VACUUM ANALYZE")
    return c, took


def baselines(c: Any) -> dict[str, Callable[[], Any]]:
    """The bare SQL for the same answers, through the corpus's own engine."""
    from sqlalchemy import text

    from corpusdb.search import index

    eng = c.engine
    with eng.connect() as conn:
        kind = index.kind(conn)

    def sql(q: str, **p: Any) -> Callable[[], Any]:
        def go() -> Any:
            with eng.connect() as conn:
                return conn.execute(text(q), p).fetchall()

        return go

    if kind == "fts5":
        word = sql("SELECT rowid FROM document_fts WHERE document_fts MATCH :m LIMIT 100", m='"kinase"')
        phrase = sql(
            "SELECT rowid FROM document_fts WHERE document_fts MATCH :m LIMIT 100",
            m='"tumor necrosis factor"',
        )
        count = sql("SELECT count(*) FROM document_fts WHERE document_fts MATCH :m", m='"kinase"')
    else:
        word = sql("SELECT id FROM document WHERE text ILIKE :m LIMIT 100", m="%kinase%")
        phrase = sql("SELECT id FROM document WHERE text ILIKE :m LIMIT 100", m="%tumor necrosis factor%")
        count = sql("SELECT count(*) FROM document WHERE text ILIKE :m", m="%kinase%")
    return {
        "word": word,
        "phrase": phrase,
        "count": count,
        "typed": sql("SELECT id, start, stop FROM span WHERE type = :t LIMIT 100", t="Habitat"),
        "typed_count": sql("SELECT set_id, count(*) FROM span WHERE type = :t GROUP BY set_id", t="Habitat"),
    }


def scan(c: Any, pattern: str) -> Callable[[], Any]:
    """Every text read and matched in Python: search without an index."""
    from sqlalchemy import text

    rx = re.compile(pattern, re.IGNORECASE)

    def go() -> int:
        with c.engine.connect() as conn:
            return sum(1 for (t,) in conn.execute(text("SELECT text FROM document")) if rx.search(t))

    return go


QUERIES: list[tuple[str, str, str, str]] = [
    # (label, who, call, query)
    ("word, first 100 hits", "owner", "search", "kinase"),
    ("phrase, first 100", "owner", "search", '"tumor necrosis factor"'),
    ("regex, first 100", "owner", "search", r"/IL-\d+/"),
    ("regex with a literal, first 100", "owner", "search", r"/kinases?\b/"),
    ("word, count per document", "owner", "count", "kinase"),
    ("typed, first 100 (lead)", "owner", "search", "type:Habitat"),
    ("typed, first 100 (alice)", "alice", "search", "type:Habitat"),
    ("typed, count per doc/type (lead)", "owner", "count", "type:Habitat"),
    ("typed + word in span text", "owner", "search", "type:Protein kinase"),
    ("alice/bob disagree on type, first 100", "owner", "search", "disagree-type:alice,bob"),
    ("typed + annotator, count", "owner", "count", "type:Gene annotator:bob"),
    # PostgreSQL only: alice through her own team login (row-level security: no text index applies
    # to her queries; her words go through corpusdb_text_candidates, a literal of three letters or
    # digits through corpusdb_like_candidates; ``IL-`` has two: its regex walks the documents)
    ("team login: word, first 100", "team", "search", "kinase"),
    ("team login: phrase, first 100", "team", "search", '"tumor necrosis factor"'),
    ("team login: word, count per document", "team", "count", "kinase"),
    ("team login: regex, first 100", "team", "search", r"/IL-\d+/"),
    ("team login: regex with a literal, first 100", "team", "search", r"/kinases?\b/"),
    ("team login: typed, first 100", "team", "search", "type:Habitat"),
]
BASE = {"word, first 100 hits": "word", "phrase, first 100": "phrase", "word, count per document": "count",
        "typed, first 100 (lead)": "typed", "typed, first 100 (alice)": "typed",
        "typed, count per doc/type (lead)": "typed_count"}  # fmt: skip
SCANS = {"word, first 100 hits": r"\bkinase\b", "word, count per document": r"\bkinase\b",
         "phrase, first 100": r"\btumor\s+necrosis\s+factor\b", "regex, first 100": r"IL-\d+"}  # fmt: skip


def bench(label: str, url: str, root: Path, baseline_url: str | None = None, *, reuse: bool = False) -> None:
    if reuse:  # a project an earlier run kept (--pg-schema): its queries again, no import
        from corpusdb.api import Corpus

        c, t_import = Corpus.open("bench", url=url), float("nan")
    else:
        c, t_import = build(url, root)
    n_spans = sum(r.hits for r in c.search_counts("type:*").rows)
    print(f"\n== {label}: {c.count_documents():,} documents, {n_spans:,} spans; import {t_import:.1f} s")
    if baseline_url is not None:
        b, t_base = build(baseline_url, root, with_index=False)
        b.engine.dispose()
        print(
            f"  the same import without the full-text index: {t_base:.1f} s (with it: {t_import / t_base:.2f}x)"
        )
    alice = c.as_user("alice")
    team, role = _team_login(c, url)
    base = baselines(c)
    print(f"  {'query':42} {'median ms':>10} {'hits':>7} {'baseline ms':>12} {'ratio':>6} {'scan ms':>8}")
    for name, who, call, q in QUERIES:
        if who == "team" and team is None:
            continue
        corpus = c if who == "owner" else alice if who == "alice" else team
        fn = (lambda q=q, corpus=corpus: corpus.search(q, limit=100)) if call == "search" else (
            lambda q=q, corpus=corpus: corpus.search_counts(q))  # fmt: skip
        ms, got = timed(fn)
        n = len(got.hits) if call == "search" else got.total
        more = "+" if call == "search" and got.more else ""
        base_ms = timed(base[BASE[name]])[0] if name in BASE else None
        b = f"{base_ms:12.1f}" if base_ms is not None else f"{'':12}"
        ratio = f"{ms / base_ms:6.1f}" if base_ms else f"{'':6}"
        sc = f"{timed(scan(c, SCANS[name]), repeat=1)[0]:8.0f}" if name in SCANS else ""
        print(f"  {name:42} {ms:10.1f} {str(n) + more:>7} {b} {ratio} {sc}")
    if team is not None:
        team.engine.dispose()
        with c.engine.begin() as conn:
            conn.exec_driver_sql(f"DELETE FROM team_login WHERE role_name = '{role}'")
        import psycopg

        with psycopg.connect(
            _plain(url).set(query={}).render_as_string(hide_password=False), autocommit=True
        ) as pc:
            pc.execute(f'DROP OWNED BY "{role}"')
            pc.execute(f'DROP ROLE "{role}"')
    c.engine.dispose()


def _plain(url: str) -> Any:
    from sqlalchemy.engine import make_url

    return make_url(url.replace("postgresql+psycopg", "postgresql"))


def _team_login(c: Any, url: str) -> tuple[Any, str]:
    """PostgreSQL: alice's own team login (a role of the server), opened as a team would; (None, "")
    on SQLite."""
    if not url.startswith("postgresql"):
        return None, ""
    from corpusdb.api import Corpus
    from corpusdb.store.db import make_engine

    role = f"bench_alice_{uuid.uuid4().hex[:8]}"
    c.team_login("alice", login=role)
    from sqlalchemy.engine import make_url

    engine = make_engine(make_url(url).set(username=role).render_as_string(hide_password=False))
    return Corpus.open("bench", engine=engine), role


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--abstracts", type=int, default=25_000)
    ap.add_argument("--docs", type=int, default=10_000, help="documents with two annotators' spans")
    ap.add_argument("--spans", type=int, default=50, help="spans per annotator per document")
    ap.add_argument("--pg", help="also on this PostgreSQL server (a schema of its own, dropped after)")
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument(
        "--pg-schema", help="PostgreSQL: use this schema and keep it (a second run reuses its project)"
    )
    ap.add_argument("--import-cost", action="store_true", help="also import without the full-text index")
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        texts = make_texts(args.abstracts)
        write_corpus(root / "corpus", texts, min(args.docs, args.abstracts), args.spans)
        print(f"generated {len(texts):,} abstracts ({sum(map(len, texts)) / 1e6:.1f} M characters) in "
              f"{time.perf_counter() - t:.0f} s")  # fmt: skip
        if not args.skip_sqlite:
            base = f"sqlite:///{root / 'base.sqlite'}" if args.import_cost else None
            bench("SQLite", f"sqlite:///{root / 'bench.sqlite'}", root / "corpus", base)
        if args.pg and args.pg_schema:
            import psycopg

            with psycopg.connect(
                args.pg.replace("postgresql+psycopg", "postgresql"), autocommit=True
            ) as conn:
                there = conn.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = %s "
                                     "AND table_name = 'project'", (args.pg_schema,)).fetchone()  # fmt: skip
                conn.execute(f"CREATE SCHEMA IF NOT EXISTS {args.pg_schema}")
            sep = "&" if "?" in args.pg else "?"
            url = f"{args.pg}{sep}options=-csearch_path%3D{args.pg_schema}"
            bench("PostgreSQL", url, root / "corpus", reuse=there is not None)
        elif args.pg:
            import psycopg

            schema = f"bench_search_{uuid.uuid4().hex[:8]}"
            base = args.pg.replace("postgresql+psycopg", "postgresql")
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"CREATE SCHEMA {schema}")
            try:
                with psycopg.connect(base, autocommit=True) as conn:
                    conn.execute(f"CREATE SCHEMA {schema}_base")
                sep = "&" if "?" in args.pg else "?"
                url = f"{args.pg}{sep}options=-csearch_path%3D{schema}"
                base_url = (
                    f"{args.pg}{sep}options=-csearch_path%3D{schema}_base" if args.import_cost else None
                )
                bench("PostgreSQL", url, root / "corpus", base_url)
            finally:
                with psycopg.connect(base, autocommit=True) as conn:
                    conn.execute(f"DROP SCHEMA {schema} CASCADE")
                    conn.execute(f"DROP SCHEMA {schema}_base CASCADE")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
