"""Knowledge bases at NCBI Taxonomy scale: load time, and lookup-as-you-type latency per keystroke.

    python bench/bench_kb.py                       # a generated dump of --taxa taxa (default 2,600,000 names)
    python bench/bench_kb.py --taxdump DIR         # the real NCBI dump (names.dmp + nodes.dmp)
    python bench/bench_kb.py --pg postgresql://postgres@127.0.0.1:5432/test   # also on PostgreSQL
    python bench/bench_kb.py --names 300000 --sqlite kb.sqlite   # keep the database (reused next run)
    python bench/bench_kb.py --skip-sqlite --pg URL   # PostgreSQL only

Each query is typed one keystroke at a time (``B``, ``Ba``, ``Bac``...), with and without a typo
(a letter dropped, two swapped, one changed), and every keystroke's ``Corpus.kb_search`` is timed
(goal: <= 50 ms); for each query with a typo, whether the intended name comes first once typed. The baseline printed beside it
is an exact-name lookup on the same index in the same run. The generated dump is in the real format
(nodes.dmp/names.dmp, a tree of ranks, a scientific name and ~0.5 other names per taxon built from a
vocabulary of Latin-like syllables), because the real one cannot be downloaded everywhere.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path

SYLL = ["ba", "ci", "llus", "co", "ccus", "strep", "to", "my", "ces", "pseu", "do", "mo", "nas", "lac", "to",
        "sal", "mo", "nel", "la", "esche", "ri", "chia", "heli", "bac", "ter", "clos", "tri", "dium", "vi", "bri",
        "o", "ae", "ro", "mi", "cro", "phi", "lus", "rhi", "zo", "bium", "an", "thra", "cis", "ther", "mus"]  # fmt: skip


def word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLL) for _ in range(rng.randint(2, 4)))


def make_dump(folder: Path, names_wanted: int, seed: int = 1) -> int:
    rng = random.Random(seed)
    taxa = int(names_wanted / 1.5)
    genera = [word(rng).capitalize() for _ in range(max(10, taxa // 50))]
    with (folder / "nodes.dmp").open("w") as nodes, (folder / "names.dmp").open("w") as names:
        nodes.write("1\t|\t1\t|\tno rank\t|\n")
        names.write("1\t|\troot\t|\t\t|\tscientific name\t|\n")
        n = 1
        for tax in range(2, taxa + 1):
            if tax <= len(genera) + 1:
                parent, name, rank = 1, genera[tax - 2], "genus"
            else:
                g = rng.randrange(len(genera))
                parent, name, rank = g + 2, f"{genera[g]} {word(rng)}", "species"
                if rng.random() < 0.3:
                    name += f" strain {rng.randrange(10**6)}"
            nodes.write(f"{tax}\t|\t{parent}\t|\t{rank}\t|\n")
            names.write(f"{tax}\t|\t{name}\t|\t\t|\tscientific name\t|\n")
            n += 1
            if rng.random() < 0.5:
                names.write(f"{tax}\t|\t{word(rng).capitalize()} {word(rng)}\t|\t\t|\tsynonym\t|\n")
                n += 1
    return n


def typed(query: str) -> list[str]:
    return [query[:i] for i in range(1, len(query) + 1)]


def run(url: str, dump: Path, queries: list[str], typos: list[tuple[str, str]], reuse: bool = False) -> None:
    from corpusdb.api import Corpus

    if reuse:
        c = Corpus.open("bench", url=url)
    else:
        c = Corpus.create("bench", schema="bb-2016-cat", url=url)
        t = time.perf_counter()
        info = c.kb_add("ncbi", dump, "ncbi-taxonomy")
        load = time.perf_counter() - t
        print(f"  load: {info.concepts:,} taxa, {info.names:,} names in {load:.1f} s (index: {info.index})")
    exact = []
    for q in queries:
        t = time.perf_counter()
        c.kb_search("ncbi", q, limit=1)
        exact.append(time.perf_counter() - t)
    per_key: list[float] = []
    cpu: list[float] = []
    for q in queries:
        for prefix in typed(q):
            t, p = time.perf_counter(), time.process_time()
            c.kb_search("ncbi", prefix, limit=12)
            per_key.append(time.perf_counter() - t)
            cpu.append(time.process_time() - p)
    found = 0
    for q, want in typos:
        hits = c.kb_search("ncbi", q, limit=12)
        found += bool(hits) and hits[0].label == want
    per_key.sort()
    p95 = per_key[int(0.95 * (len(per_key) - 1))]
    print(
        f"  per keystroke ({len(per_key)}): median {statistics.median(per_key) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, max {per_key[-1] * 1000:.1f} ms; whole names: median "
        f"{statistics.median(exact) * 1000:.1f} ms (ratio {statistics.median(per_key) / statistics.median(exact):.2f})"
    )
    cpu.sort()
    print(
        f"  CPU time of this process per keystroke (what other jobs on the machine do not stretch; on "
        f"PostgreSQL the server's is not in it): median {statistics.median(cpu) * 1000:.1f} ms, "
        f"p95 {cpu[int(0.95 * (len(cpu) - 1))] * 1000:.1f} ms"
    )
    print(f"  typed with a typo, the intended name first: {found} of {len(typos)}")
    print(f"  {time.strftime('%H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f} (2 cores)")
    c.engine.dispose()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--names", type=int, default=2_600_000)
    ap.add_argument("--taxdump", type=Path)
    ap.add_argument("--sqlite", type=Path, help="keep the SQLite database here (and reuse it if it exists)")
    ap.add_argument("--pg", help="a PostgreSQL server URL: a database kb_bench_<random> is made and dropped")
    ap.add_argument("--skip-sqlite", action="store_true", help="PostgreSQL only (with --pg)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        if a.taxdump:
            dump = a.taxdump
        else:
            dump = tmpd / "dump"
            dump.mkdir()
            t = time.perf_counter()
            n = make_dump(dump, a.names)
            print(f"generated dump: {n:,} names in {time.perf_counter() - t:.1f} s")
        from importers.kb_ncbi import read_ncbi_taxonomy

        rng = random.Random(7)
        sample = [c.label for c, _ in zip(read_ncbi_taxonomy(dump), range(200_000), strict=False)]
        picks = [rng.choice(sample[1:]) for _ in range(6)]
        typos = [(p[:3] + p[4:], p) for p in picks[:3]]  # a letter dropped
        typos += [(p[:-3] + p[-2] + p[-3] + p[-1], p) for p in picks[3:5]]  # two letters swapped near the end
        typos += [(p[:6] + "x" + p[7:], p) for p in picks[5:6]]  # a letter changed in the middle
        queries = picks + [t for t, _ in typos]
        print("queries:", queries)
        if not a.skip_sqlite:
            path = a.sqlite or tmpd / "kb.sqlite"
            print(f"SQLite ({path}):")
            run(f"sqlite:///{path}", dump, queries, typos, reuse=path.exists())
        if a.pg:
            import psycopg
            from sqlalchemy.engine import make_url

            name = f"kb_bench_{uuid.uuid4().hex[:8]}"
            base = a.pg.replace("postgresql+psycopg", "postgresql")
            with psycopg.connect(base, autocommit=True) as conn:
                conn.execute(f"CREATE DATABASE {name}")
            try:
                print("PostgreSQL:")
                run(
                    make_url(a.pg).set(database=name).render_as_string(hide_password=False),
                    dump,
                    queries,
                    typos,
                )
            finally:
                with psycopg.connect(base, autocommit=True) as conn:
                    conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


if __name__ == "__main__":
    main()
