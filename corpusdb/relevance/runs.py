"""TREC run files: ``topic Q0 doc rank score tag``, whitespace-separated, one retrieved document a line.

Why hand-written: the format is six columns; the checks that matter to a corpus (a clear error with
file and line, a document retrieved twice for a topic refused as trec_eval refuses it) are ours.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from corpusdb.relevance.columns import Rows
from corpusdb.relevance.records import RunLine


def read_run(path: str | Path, *, tag: str | None = None) -> list[RunLine]:
    """Every line of a run file, checked; all or nothing (every problem is listed). ``tag`` overrides
    the file's tag column (a file must hold one tag, else name which one to keep with ``tag``)."""
    rows = Rows(path, "run", "topic Q0 doc rank score tag")
    out: list[RunLine] = []
    tags: dict[str, str | None] = {}  # each tag checked once
    for n, (topic, _q0, doc, rank_s, score_s, file_tag) in rows:
        rank = rows.integer(n, rank_s, "rank")
        if rank is None:
            continue
        try:
            score = float(score_s)
        except ValueError:
            rows.problem(n, f"score {score_s!r} is not a number")
            continue
        if not math.isfinite(score):
            rows.problem(n, f"score {score_s!r} is not finite")
            continue
        if tag is None and file_tag not in tags:
            tags[file_tag] = _tag_problem(file_tag)
        bad_tag = None if tag else tags[file_tag]
        if bad_tag is not None:
            rows.problem(n, bad_tag)
        elif rows.first_time(n, topic, doc, "retrieved"):
            out.append(RunLine(topic, doc, rank, score, tag or file_tag))
    if out and not rows.problems and tag is None and len({r.tag for r in out}) > 1:
        several = sorted({r.tag for r in out})
        rows.problem(None, f"one run per file: it holds several tags ({', '.join(several[:5])})")
    rows.done(len(out))
    return out


def _tag_problem(tag: str) -> str | None:
    """Why a run's tag cannot name its system annotator, or None."""
    from corpusdb.basics.errors import InvalidInput
    from corpusdb.services.projects import check_annotator_name

    try:
        check_annotator_name(tag)
    except InvalidInput as err:
        return f"run tag: {err}"
    return None


def format_run(lines: Iterable[RunLine]) -> str:
    """Lines in run-file format, as stored (topic, then rank)."""
    rows = sorted(lines, key=lambda r: (r.topic, r.rank, r.doc))
    return "".join(f"{r.topic} Q0 {r.doc} {r.rank} {r.score:g} {r.tag}\n" for r in rows)
