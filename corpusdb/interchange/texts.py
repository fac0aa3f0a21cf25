"""Plain texts in, as documents only: the first step of a new corpus, before ``assign``.

Why not ``import brat``: that makes somebody's annotation sets; texts to be annotated belong to no
one yet. Each ``.txt`` is decoded by the standoff reader (UTF-8 only, BOM remembered, CRLF kept so
offsets stay those of the stored text), so a text imported here and its annotations imported later
as brat are the same document.
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.names import name_problem
from corpusdb.basics.records import Document
from importers.standoff import read_document


def read_texts(path: str | os.PathLike[str]) -> tuple[list[Document], list[Problem], list[str]]:
    """Every ``.txt`` under ``path`` (or ``path`` itself) as a Document whose id is the file stem.

    Returns the documents read, every problem found (undecodable files, one stem in two folders) and
    the files rejected because of them.
    """
    root = Path(path)
    files = [root] if root.is_file() else sorted(p for p in root.rglob("*.txt") if p.is_file())
    docs: list[Document] = []
    problems: list[Problem] = []
    rejected: list[str] = []
    seen: dict[str, list[str]] = defaultdict(list)
    for f in files:
        rel = f.name if root.is_file() else f.relative_to(root).as_posix()
        bad = name_problem(f.stem, "document id")
        if bad is not None:  # (brat imports say the same: a document id becomes file names)
            problems.append(Problem(str(f), None, f"{bad}: rename the file"))
            rejected.append(str(f))
            continue
        seen[f.stem].append(rel)
        try:
            parsed = read_document(f, ann_paths=[], source=rel)
        except FormatError as exc:
            problems += exc.problems
            rejected.append(str(f))
            continue
        problems += [Problem(str(f), None, w, "warning") for w in parsed.warnings]
        docs.append(parsed.document)
    for stem, places in seen.items():
        if len(places) > 1:
            problems.append(
                Problem(
                    str(root / places[1]),
                    None,
                    f"document id {stem!r} is also {places[0]}: ids must be unique",
                )
            )
            rejected += [str(root / p) for p in places]
    dupes = {Path(r).stem for r in rejected}
    return [d for d in docs if d.external_id not in dupes], problems, rejected
