"""Check a shared-task submission's files against a schema: what participants run and intake runs.

Why pure (files and a schema in, problems out; no database, no gold): participants run it on their
own machines before submitting (``corpusdb validate``), and the organizer's intake (``corpusdb task
submit``) runs the very same function, so a run that passes at home passes at intake. Every problem
is a :class:`~corpusdb.basics.errors.Problem` naming the file and, where there is one, the line.

What is checked, for brat/BioNLP standoff (``.ann`` or ``.a1``/``.a2`` per text):

* format: everything the standoff reader refuses (bad lines, unknown ids, offsets that are not
  numbers, texts that are not UTF-8), with its file and line;
* offsets against the texts: each span inside its text, its text field equal to the text there;
* the schema: types, roles, argument types, labels, tags, attributes, and the schema's boundary
  rules (``guidelines.validate``);
* ids and duplicates: the same span (type and offsets) or relation (type and arguments) twice;
* pairing: an annotation file whose text is not in ``texts``.

Texts come from the submission folder, else from ``texts`` (a participants' package's folder); a
given layer there (the ``.a1`` of a GI-style task) is read with the submission's ``.a2``, whose ids
refer to it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from corpusdb.basics.errors import Problem
from corpusdb.basics.records import Annotations
from guidelines.schema import Schema
from guidelines.standoff_fields import relation_fields
from guidelines.validate import validate as validate_annotations
from importers.standoff.layout import ANN_EXTENSIONS
from importers.standoff.reader import _parse_document


@dataclass(frozen=True, slots=True)
class SubmissionCheck:
    """What :func:`check_submission` found: problems, and the documents it read (for intake)."""

    problems: tuple[Problem, ...]
    documents: tuple[str, ...]
    """External ids of the documents the submission annotates."""

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        return not self.errors


def _files_under(paths: Iterable[Path]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            for folder, dirs, names in os.walk(p):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                out += [Path(folder) / n for n in sorted(names) if not n.startswith(".")]
        else:
            out.append(p)
    return out


def _id_lines(paths: Iterable[str]) -> dict[str, tuple[str, int]]:
    """``T3`` → (file, line) for every id-bearing line of the annotation files (first one wins)."""
    where: dict[str, tuple[str, int]] = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    ident = line.split("\t", 1)[0]
                    if ident and ident != line:
                        where.setdefault(ident, (path, n))
        except OSError:
            continue
    return where


def _duplicates(ann: Annotations) -> list[tuple[str, str]]:
    """``(item id, message)`` for each span or relation that repeats an earlier one."""
    out: list[tuple[str, str]] = []
    seen: dict[object, str] = {}
    for s in ann.spans:
        key = ("span", s.type, tuple(map(tuple, s.fragments)))
        first = seen.setdefault(key, s.id)
        if first != s.id:
            out.append((s.id, f"span {s.id}: duplicate of {first} (same type {s.type} and offsets)"))
    for r in ann.relations:
        args = tuple(sorted((a.role, a.ref) for a in r.args))
        key = ("relation", r.type, args, r.trigger)
        first = seen.setdefault(key, r.id)
        if first != r.id:
            out.append((r.id, f"relation {r.id}: duplicate of {first} (same type {r.type} and arguments)"))
    return out


def check_submission(
    schema: Schema, submission: Path | Iterable[Path], texts: Path | None = None
) -> SubmissionCheck:
    """Every problem of the standoff files in ``submission`` (files or folders) against ``schema``,
    with texts from the submission or ``texts``; in file order, one :class:`Problem` each."""
    paths = [submission] if isinstance(submission, Path) else list(submission)
    problems: list[Problem] = []
    for p in paths:
        if not p.exists():
            problems.append(Problem(str(p), None, "no such file or folder"))
    files = _files_under(p for p in paths if p.exists())
    if texts is not None and not texts.is_dir():
        problems.append(Problem(str(texts), None, "--texts is not a folder"))
        texts = None
    by_stem: dict[str, dict[str, str]] = {}
    for f in files:
        stem, dot, ext = f.name.rpartition(".")
        if dot and (ext == "txt" or ext in ANN_EXTENSIONS):
            by_stem.setdefault(stem, {})[ext] = str(f)
        else:
            problems.append(
                Problem(
                    str(f), None, f"not a submission file (expected .{', .'.join(ANN_EXTENSIONS)})", "warning"
                )
            )
    documents: list[str] = []
    for stem in sorted(by_stem):
        group = by_stem[stem]
        txt = group.get("txt")
        given: dict[str, str] = {}
        if texts is not None:
            if (texts / f"{stem}.txt").is_file():
                txt = txt or str(texts / f"{stem}.txt")
            for ext in ANN_EXTENSIONS:  # the given layer (e.g. entities in .a1) beside the text
                if ext not in group and (texts / f"{stem}.{ext}").is_file():
                    given[ext] = str(texts / f"{stem}.{ext}")
        anns = [group.get(e) or given[e] for e in ANN_EXTENSIONS if e in group or e in given]
        submitted = [group[e] for e in ANN_EXTENSIONS if e in group]
        if not submitted:
            continue  # a text alone annotates nothing
        if txt is None:
            for a in submitted:
                hint = f" in {texts}" if texts is not None else "; give --texts DIR"
                problems.append(Problem(a, None, f"no text {stem}.txt for this annotation file{hint}"))
            continue
        documents.append(stem)
        parsed, probs = _parse_document(txt, anns, keep_unknown=False, source=None)
        problems += probs
        if parsed is None:
            continue
        parsed = replace(parsed, annotations=relation_fields(schema, parsed.annotations))
        where = _id_lines(anns)
        found: list[tuple[str, str, str]] = [
            (v.severity, v.item_id, str(v))
            for v in validate_annotations(schema, parsed.annotations, parsed.document.text)
        ]
        found += [("error", item, f"error: {msg}") for item, msg in _duplicates(parsed.annotations)]
        for severity, item, msg in found:
            file, line = where.get(item, (submitted[0], None))
            text = msg.split(": ", 1)[1] if msg.startswith(("error: ", "warning: ")) else msg
            problems.append(Problem(file, line, text, severity))  # type: ignore[arg-type]
    order = {}
    for k, p in enumerate(problems):
        order.setdefault(p.file, k)
    problems.sort(key=lambda p: (order[p.file], p.line or 0))
    return SubmissionCheck(tuple(problems), tuple(documents))


def submitted_documents(submission: Path | Iterable[Path]) -> dict[str, list[Path]]:
    """``stem`` → the submission's annotation files of that document (what intake stores)."""
    paths = [submission] if isinstance(submission, Path) else list(submission)
    out: dict[str, list[Path]] = {}
    for f in _files_under(p for p in paths if p.exists()):
        stem, dot, ext = f.name.rpartition(".")
        if dot and ext in ANN_EXTENSIONS:
            out.setdefault(stem, []).append(f)
    return out
