"""A vocabulary as a tab-separated file: a header row naming ``id``, ``name`` and optionally
``synonyms`` (separated by ``|``), ``type`` and ``parents`` (``|``-separated ids).

Why: most project vocabularies (a UniProt or ChEBI extract, a lab's list of strains) are a
spreadsheet away from this shape. Parsed with the standard ``csv`` module (tab dialect, no quoting,
so a name may hold quotes). All or nothing: every problem is listed with its line.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.records import Concept

COLUMNS = ("id", "name", "synonyms", "type", "parents")
REQUIRED = ("id", "name")


def read_tsv(path: str | Path) -> Iterator[Concept]:
    """Every row of the file as a :class:`Concept` (after the whole file has been checked)."""
    path = Path(path)
    if not path.is_file():
        raise FormatError.single(path, None, "no such file")
    problems: list[Problem] = []
    out: list[Concept] = []
    seen: dict[str, int] = {}
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            rows = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(rows, None)
            if header is None:
                raise FormatError.single(path, 1, "empty file: expected a header row (id, name, ...)")
            header = [h.strip().lower() for h in header]
            unknown = [h for h in header if h not in COLUMNS]
            missing = [c for c in REQUIRED if c not in header]
            if unknown or missing or len(set(header)) != len(header):
                why = (
                    f"missing column {missing[0]!r}" if missing
                    else f"unknown column {unknown[0]!r}" if unknown
                    else "a column is named twice"
                )  # fmt: skip
                raise FormatError.single(
                    path, 1, f"header: {why} (columns: {', '.join(COLUMNS)}; id and name required)"
                )
            col = {h: i for i, h in enumerate(header)}
            for row in rows:
                n = rows.line_num
                if not any(c.strip() for c in row):
                    continue
                if len(row) != len(header):
                    problems.append(Problem(str(path), n, f"{len(row)} fields, the header has {len(header)}"))
                    continue
                cid, name = row[col["id"]].strip(), row[col["name"]].strip()
                if not cid or any(ch.isspace() for ch in cid):
                    problems.append(Problem(str(path), n, f"id {cid!r} is empty or holds whitespace"))
                    continue
                if not name:
                    problems.append(Problem(str(path), n, f"{cid}: empty name"))
                    continue
                if cid in seen:
                    problems.append(Problem(str(path), n, f"id {cid} already on line {seen[cid]}"))
                    continue
                seen[cid] = n
                syn = row[col["synonyms"]] if "synonyms" in col else ""
                par = row[col["parents"]] if "parents" in col else ""
                typ = row[col["type"]].strip() if "type" in col else ""
                out.append(
                    Concept(
                        id=cid,
                        label=name,
                        synonyms=tuple((s.strip(), "synonym") for s in syn.split("|") if s.strip()),
                        parents=tuple(p.strip() for p in par.split("|") if p.strip()),
                        type=typ or None,
                    )
                )
    except UnicodeDecodeError as exc:
        raise FormatError.single(path, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    for c in out:
        for p in c.parents:
            if p not in seen:
                problems.append(
                    Problem(str(path), seen[c.id], f"{c.id}: parent {p} is not an id of this file")
                )
    if problems:
        raise FormatError(problems)
    yield from out
