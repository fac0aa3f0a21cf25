"""Benchmark: what keeping the undo stacks in the database costs one saved action (run by hand).

    python bench/bench_undo.py [--actions 200] [--spans 300]

One SQLite file, one annotator's set on a dense document (``tui.sample.long_document``). Each
round saves the same action twice, alternating: ``edit_set`` alone (the baseline, as before the
undo history) and ``edit_set(..., history="do")`` (the stacks written in the same transaction),
then undoes each with ``history="undo"``. Prints the median milliseconds per action and the ratio
history/baseline measured in this same run. Nothing is asserted: speed is measured here only.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.services.edits import Put
from tui.sample import long_document


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actions", type=int, default=200)
    ap.add_argument("--spans", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'undo.sqlite'}"
        owner = Corpus.create("b", "biorelex-1.0", url=url)
        owner.add_annotator("alice")
        text, spans = long_document(2000, args.spans)
        owner.add_documents([Document("d", text)])
        owner.create_set("d", "alice", annotations=Annotations(spans=spans), status="in_progress")
        alice = Corpus.open("b", url=url, user="alice")
        sid = alice.my_set("d").info.id
        version = alice.read_set(sid).info.version
        plain: list[float] = []
        kept: list[float] = []
        undo: list[float] = []
        for i in range(args.actions):
            span = Span(f"X{i}", "protein", ((0, 4),), text[0:4])
            t0 = time.perf_counter()
            version = alice.edit_set(sid, [Put(span)], expected_version=version).info.version
            plain.append(time.perf_counter() - t0)
            span2 = Span(f"Y{i}", "gene", ((0, 4),), text[0:4])
            t0 = time.perf_counter()
            res = alice.edit_set(sid, [Put(span2)], expected_version=version, history="do", description="add")
            kept.append(time.perf_counter() - t0)
            version = res.info.version
            t0 = time.perf_counter()
            version = alice.edit_set(sid, list(res.inverse), expected_version=version, history="undo",
                                     description="add").info.version  # fmt: skip
            undo.append(time.perf_counter() - t0)
        base, hist, und = (statistics.median(x) * 1000 for x in (plain, kept, undo))
        print(f"{args.actions} actions on a set of {args.spans}+ spans (SQLite, one transaction each)")
        print(f"  edit_set alone:           {base:7.2f} ms/action (baseline)")
        print(f"  edit_set + undo history:  {hist:7.2f} ms/action  ratio {hist / base:.2f}")
        print(f"  undo through the history: {und:7.2f} ms/action  ratio {und / base:.2f}")


if __name__ == "__main__":
    main()
