"""Benchmark: a bulk take (``Corpus.resolve_bulk``) vs one ``resolve`` per conflict (run by hand).

    python bench/bench_bulk.py [--conflicts 339]

Two copies of one document, each with N open conflicts (alice and bob disagree on the type of
every word; half of alice's words are hers alone). On the first copy one ``resolve_bulk(take=
"alice")`` decides them all in one transaction; on the second, N ``resolve(key, take="alice")``
calls do the same through the API (the command line adds a process start per call on top). Prints
both times and the ratio. Nothing is asserted: speed is measured here, never in tests.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span


def scene(path: Path, n: int) -> Corpus:
    words = [f"w{i:05d}" for i in range(n)]
    text = " ".join(words)
    c = Corpus.create("bench", "bb-2011", url=f"sqlite:///{path}")
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_documents([Document("bulk", text), Document("one-by-one", text)])
    c.assign(["bulk", "one-by-one"], ["alice", "bob"])
    spans = {"alice": [], "bob": []}
    for i, w in enumerate(words):
        frag = ((i * 7, i * 7 + 6),)
        spans["alice"].append(Span(f"T{i + 1}", "Bacterium", frag, w))
        if i % 2:
            spans["bob"].append(Span(f"T{i + 1}", "Soil", frag, w))
    for who in ("alice", "bob"):
        me = c.as_user(who)
        for d in ("bulk", "one-by-one"):
            s = me.my_set(d).info
            me.replace_set(s.id, Annotations(tuple(spans[who])), expected_version=s.version)
            me.submit(s.id)
    return c


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--conflicts", type=int, default=339)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        c = scene(Path(tmp) / "b.sqlite", args.conflicts)
        t0 = time.perf_counter()
        [res] = c.resolve_bulk("bulk", take="alice")
        bulk = time.perf_counter() - t0
        keys = [x.key for x in c.conflicts("one-by-one")[0].conflicts]
        t0 = time.perf_counter()
        for k in keys:
            c.resolve("one-by-one", k, take="alice")
        single = time.perf_counter() - t0
    print(f"{args.conflicts} conflicts: bulk {bulk:.2f} s ({res.taken} taken), "
          f"one resolve per conflict {single:.2f} s ({len(keys)} calls); ratio {single / bulk:.0f}x")  # fmt: skip


if __name__ == "__main__":
    main()
