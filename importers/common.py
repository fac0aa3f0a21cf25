"""Helpers shared by the interchange readers of this wave (BioC, PubTator, CoNLL, competitors' exports).

Why: every reader must refuse a document whose records would not round-trip (an id used twice, a
reference to nothing, a fragment outside the text) with the file and line where the document starts,
and must keep reading to list every problem; the store's own check raises one message without a file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.names import name_problem
from corpusdb.basics.records import Annotations, Document, ParsedDocument
from importers.standoff import ReadResult

__all__ = ["MAX_TEXT", "Collector", "annotation_problems", "offset", "read_text", "strict"]

MAX_TEXT = 10_000_000
"""Longest document text a reader builds from offsets, in code points (a whole book is about a
million). Formats that place text at offsets (BioC passages, CoNLL with offsets, WebAnno TSV) fill
gaps with spaces, so an offset such as 10^15 would otherwise be a petabyte of spaces."""


def offset(value: str) -> int | None:
    """``value`` as an offset when it is ASCII digits (``str.isdigit`` also takes ``²``, which ``int``
    refuses), or None. Beyond ``MAX_TEXT`` it is still a number, one that no text reaches."""
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value) if len(value) <= 18 else MAX_TEXT + 1  # (int() refuses 4,300+ digits)


def annotation_problems(doc: Document, ann: Annotations) -> list[str]:
    """What would make this set refused by the store or written back wrong, one message each."""
    out: list[str] = []
    ids: set[str] = set()
    for item_id in [s.id for s in ann.spans] + [r.id for r in ann.relations] + [lk.id for lk in ann.links]:
        if item_id in ids:
            out.append(f"id {item_id!r} is used twice")
        ids.add(item_id)
    spans = {s.id for s in ann.spans}
    rels = {r.id for r in ann.relations}
    n = len(doc.text)
    for s in ann.spans:
        for a, b in s.fragments:
            if not 0 <= a <= b <= n:
                out.append(f"span {s.id} ({s.type}): offsets {a}-{b} are outside the text (length {n})")
    for r in ann.relations:
        out += [
            f"relation {r.id}: argument {a.role}:{a.ref} points at nothing"
            for a in r.args
            if a.ref not in spans and a.ref not in rels
        ]
        if r.label is not None and r.label not in (-1, 0, 1):
            out.append(f"relation {r.id}: label {r.label!r} is not 1, 0 or -1")
    for lk in ann.links:
        out += [f"link {lk.id}: {end!r} is not a span" for end in (lk.source, lk.target) if end not in spans]
    names = [lb.name for lb in ann.labels]
    if len(set(names)) != len(names):
        out.append("a document label name is given twice")
    return out


@dataclass
class Collector:
    """Documents and problems of one file, read leniently: a document with an error is rejected whole."""

    file: str
    documents: list[ParsedDocument] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    _seen: dict[str, int | None] = field(default_factory=dict)

    def add(
        self,
        doc: Document,
        ann: Annotations,
        line: int | None,
        errors: Iterable[str | tuple[int | None, str]] = (),
        warnings: Iterable[str] = (),
    ) -> None:
        """Keep the document unless it (or its records) has an error; every message gets file and line:
        the document's ``line``, or its own when given as ``(line, message)``."""
        errs = list(errors)
        if doc.external_id in self._seen:
            first = self._seen[doc.external_id]
            errs.append(f"document id {doc.external_id!r} is given twice (first at line {first})")
        elif not doc.external_id:
            errs.append("a document has no id")
        else:
            bad_id = name_problem(doc.external_id, "document id")
            errs += [bad_id] if bad_id else []
        bad_split = name_problem(doc.split, "split name") if doc.split is not None else None
        errs += [bad_split] if bad_split else []
        errs += annotation_problems(doc, ann)
        warns = [
            f"{self.file}:{line}: warning: {w}" if line else f"{self.file}: warning: {w}" for w in warnings
        ]
        if errs:
            self.problems += [
                Problem(self.file, e[0], f"document {doc.external_id!r}: {e[1]}")
                if isinstance(e, tuple)
                else Problem(self.file, line, f"document {doc.external_id!r}: {e}")
                for e in errs
            ]
            self.rejected.append(doc.external_id or f"{self.file}:{line}")
            return
        self._seen[doc.external_id] = line
        self.documents.append(ParsedDocument(doc, ann, tuple(warns)))

    def error(self, line: int | None, message: str, rejected: str | None = None) -> None:
        """A problem outside any readable document (a line that cannot be parsed at all)."""
        self.problems.append(Problem(self.file, line, message))
        if rejected is not None:
            self.rejected.append(rejected)

    def result(self) -> ReadResult:
        return ReadResult(self.documents, self.problems, self.rejected, self._seen.get)


def read_text(path: str | os.PathLike[str]) -> str:
    """A UTF-8 file's text (a BOM dropped, CRLF kept as the file has it); one clear error otherwise."""
    file = os.fspath(path)
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise FormatError.single(file, None, f"cannot read: {err.strerror or err}") from err
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise FormatError.single(file, line, f"not UTF-8 (byte {err.start})") from err
    return text.removeprefix("\ufeff")


def strict(read: Callable[..., ReadResult]) -> Callable[..., list[ParsedDocument]]:
    """The all-or-nothing form of a lenient reader: :class:`FormatError` lists every problem."""

    def run(*args: Any, **kwargs: Any) -> list[ParsedDocument]:
        result = read(*args, **kwargs)
        if any(p.severity == "error" for p in result.problems):
            raise FormatError(result.problems)
        return result.documents

    run.__doc__ = f"All-or-nothing :func:`{read.__name__}`: raises FormatError listing every problem."
    return run
