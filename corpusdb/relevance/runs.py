"""TREC run files: ``topic Q0 doc rank score tag``, whitespace-separated, one retrieved document a line.

Why hand-written: the format is six columns; the checks that matter to a corpus (a clear error with
file and line, a document retrieved twice for a topic refused as trec_eval refuses it) are ours.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from corpusdb.errors import FormatError, Problem
from corpusdb.relevance.records import RunLine


def read_run(path: str | Path, *, tag: str | None = None) -> list[RunLine]:
    """Every line of a run file, checked; all or nothing (every problem is listed). ``tag`` overrides
    the file's tag column (a file must hold one tag, else name which one to keep with ``tag``)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError.single(p, None, f"cannot read the run file: {exc}") from exc
    out: list[RunLine] = []
    problems: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        cols = line.split()
        if len(cols) != 6:
            problems.append(
                Problem(str(p), n, f"expected 6 columns 'topic Q0 doc rank score tag', got {len(cols)}")
            )
            continue  # fmt: skip
        topic, _q0, doc, rank_s, score_s, file_tag = cols
        try:
            rank = int(rank_s)
        except ValueError:
            problems.append(Problem(str(p), n, f"rank {rank_s!r} is not an integer"))
            continue
        try:
            score = float(score_s)
        except ValueError:
            problems.append(Problem(str(p), n, f"score {score_s!r} is not a number"))
            continue
        if not math.isfinite(score):
            problems.append(Problem(str(p), n, f"score {score_s!r} is not finite"))
            continue
        if (topic, doc) in seen:
            problems.append(Problem(str(p), n, f"document {doc} is retrieved twice for topic {topic}"))
            continue
        seen.add((topic, doc))
        out.append(RunLine(topic, doc, rank, score, tag or file_tag))
    if not problems and not out:
        problems.append(Problem(str(p), None, "the run file holds no line"))
    if not problems and tag is None and len({r.tag for r in out}) > 1:
        tags = sorted({r.tag for r in out})
        problems.append(
            Problem(str(p), None, f"one run per file: it holds several tags ({', '.join(tags[:5])})")
        )
    if problems:
        raise FormatError(problems)
    return out


def format_run(lines: Iterable[RunLine]) -> str:
    """Lines in run-file format, as stored (topic, then rank)."""
    rows = sorted(lines, key=lambda r: (r.topic, r.rank, r.doc))
    return "".join(f"{r.topic} Q0 {r.doc} {r.rank} {r.score:g} {r.tag}\n" for r in rows)
