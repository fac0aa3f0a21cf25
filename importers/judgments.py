"""Document judgments (triage, relevance: ``relevance = DR``) as TSV, in and out.

Why TSV: judgments are what TREC-style relevance files and spreadsheets hold; one row per judgment is
what every tool reads. Columns, with a header line: ``document``, ``label``, ``value``, ``annotator``
(``gold`` for the adjudicated set) and, when written, ``kind``. A file without the ``annotator`` column
is one annotator's (named at import).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.records import Annotations, DocLabel, Document
from importers.common import Collector, read_text
from importers.standoff import ReadResult

__all__ = ["Judgment", "as_documents", "format_judgments", "read_judgments"]

HEADER = ("document", "label", "value", "annotator", "kind")


@dataclass(frozen=True, slots=True)
class Judgment:
    document: str
    label: str
    value: str
    annotator: str
    line: int


def format_judgments(rows: Iterable[Sequence[str]]) -> str:
    """TSV with a header; tabs and line breaks inside values become spaces."""
    out = ["\t".join(HEADER)]
    out += ["\t".join(" ".join(str(c).split()) if c else "" for c in row) for row in rows]
    return "\n".join(out) + "\n"


def read_judgments(path: str | os.PathLike[str]) -> list[Judgment]:
    """Every row of a judgments TSV; :class:`FormatError` lists every bad line (all or nothing)."""
    file = os.fspath(path)
    lines = read_text(file).split("\n")
    head = lines[0].removesuffix("\r").split("\t") if lines else []
    problems: list[Problem] = []
    if head[:3] != ["document", "label", "value"]:
        raise FormatError.single(file, 1, "the header must start with document<TAB>label<TAB>value")
    has_annotator = len(head) > 3 and head[3] == "annotator"
    rows: list[Judgment] = []
    seen: dict[tuple[str, str, str], int] = {}
    for n, raw in enumerate(lines[1:], 2):
        line = raw.removesuffix("\r")
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < (4 if has_annotator else 3) or not all(cells[:3]):
            problems.append(
                Problem(file, n, f"expected document, label, value{', annotator' if has_annotator else ''}")
            )
            continue
        who = cells[3] if has_annotator else ""
        key = (cells[0], cells[1], who)
        if key in seen:
            problems.append(
                Problem(
                    file,
                    n,
                    f"{cells[0]}: label {cells[1]!r} by {who or 'this annotator'} is given twice (first at line {seen[key]})",
                )
            )
            continue
        seen[key] = n
        rows.append(Judgment(cells[0], cells[1], cells[2], who, n))
    if problems:
        raise FormatError(problems)
    return rows


def as_documents(path: str, rows: Sequence[Judgment], docs: Mapping[str, Document]) -> ReadResult:
    """One label-only set per stored document named in ``rows``."""
    out = Collector(path)
    by_doc: dict[str, list[Judgment]] = {}
    for r in rows:
        by_doc.setdefault(r.document, []).append(r)
    for ext, js in by_doc.items():
        labels = tuple(DocLabel(j.label, j.value) for j in js)
        out.add(docs[ext], Annotations(labels=labels), js[0].line)
    return out.result()
