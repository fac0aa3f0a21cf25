"""Reading standoff documents: files found, bytes decoded, documents parsed; strict and lenient."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from corpusdb.basics.errors import FormatError, Problem
from corpusdb.basics.gcpause import gc_paused
from corpusdb.basics.records import (
    Document,
    ParsedDocument,
)
from importers.standoff.layout import ANN_EXTENSIONS
from importers.standoff.parser import _Parser


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What a lenient read gives: the valid documents, and every problem of the rejected ones.

    Shared by the importers so a caller can import what is valid and list the rest.
    """

    documents: list[ParsedDocument]
    problems: list[Problem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    """What was not imported: ``.txt`` paths (or orphan annotation files); BioRelEx sentence ids."""
    line_of: Callable[[str], int | None] | None = None
    """One-file formats: the line where a document (by external id) starts, for the problems found
    after reading (the schema, the submit check), so that they name file and line."""


_READ = 1 << 16
"""Bytes asked of the first reads: annotation files and texts are mostly smaller."""


def _read_bytes(path: str) -> bytes:
    """The file's bytes. Why not ``open(path, "rb").read()``: a reader opens two or three small files
    per document, and the buffered file object's set-up is half the cost (about 2 µs of 4 a file)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        data = os.read(fd, _READ)
        if not data:
            return data
        more = os.read(fd, _READ)  # (a short read is not the end for every kind of file)
        if not more:
            return data
        parts = [data, more]
        while more := os.read(fd, 1 << 20):
            parts.append(more)
        return b"".join(parts)
    finally:
        os.close(fd)


def _decode(path: str, problems: list[Problem]) -> tuple[str, bool] | None:
    """The file's text without a BOM, and whether it had one; None (and an error) if not UTF-8."""
    try:
        data = _read_bytes(path)
    except OSError as err:
        problems.append(Problem(path, None, f"cannot read: {err.strerror or err}"))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        bad = data[err.start : err.start + 1].hex()
        problems.append(
            Problem(
                path,
                line,
                f"not valid UTF-8: byte 0x{bad} at byte offset {err.start} ({err.reason}); "
                "save the file as UTF-8",
            )
        )
        return None
    if text.startswith("\ufeff"):
        problems.append(
            Problem(
                path,
                1,
                "starts with a UTF-8 byte order mark; removed (offsets count from the character after "
                "it) and written back",
                "warning",
            )
        )
        return text[1:], True
    return text, False


def _split_lines(path: str, content: str, opts: dict[str, Any], problems: list[Problem]) -> list[str] | None:
    """Lines without their ending; records CRLF and a missing final newline in ``opts``."""
    if not content:
        return []
    newline = "\n"
    if "\r" in content:
        crlf = content.count("\r\n")
        lf = content.count("\n")
        if crlf == lf and content.count("\r") == crlf:
            newline = "\r\n"
            opts["newline"] = newline
        else:
            first = _first_odd_ending(content)
            problems.append(
                Problem(
                    path,
                    first,
                    f"mixed line endings ({crlf} CRLF, {lf - crlf} LF, {content.count(chr(13)) - crlf} "
                    "lone CR); use one style",
                )
            )
            return None
    lines = content.split(newline)
    if lines[-1] == "":
        lines.pop()
    else:
        opts["final_newline"] = False
    return lines


def _first_odd_ending(content: str) -> int:
    """The 1-based line whose ending differs from the first line's (or that holds a lone CR)."""
    pieces = content.split("\n")
    crlf = pieces[0].endswith("\r") and len(pieces) > 1
    for i, ln in enumerate(pieces, 1):
        ended = i < len(pieces)
        if "\r" in ln[:-1] or (ended and ln.endswith("\r") != crlf) or (not ended and ln.endswith("\r")):
            return i
    return 1


def _default_source(txt: str) -> str:
    parent = os.path.basename(os.path.dirname(os.path.abspath(txt)))
    name = os.path.basename(txt)
    return f"{parent}/{name}" if parent else name


def _find_ann_paths(txt: str) -> list[str]:
    stem = txt[:-4] if txt.endswith(".txt") else os.path.splitext(txt)[0]
    return [p for p in (f"{stem}.{ext}" for ext in ANN_EXTENSIONS) if os.path.isfile(p)]


def _parse_document(
    txt_path: str,
    ann_paths: Sequence[str],
    *,
    keep_unknown: bool,
    source: str | None,
) -> tuple[ParsedDocument | None, list[Problem]]:
    problems: list[Problem] = []
    exts = [p.rpartition(".")[2] for p in ann_paths]
    if "ann" in exts and ("a1" in exts or "a2" in exts):
        problems.append(
            Problem(
                txt_path,
                None,
                "both a .ann and .a1/.a2 files exist for this text; pass the annotation files explicitly",
            )
        )
        return None, problems
    if len(set(exts)) != len(exts):
        problems.append(Problem(txt_path, None, f"two annotation files with one extension: {exts}"))
        return None, problems
    decoded = _decode(txt_path, problems)
    if decoded is None:
        return None, problems
    text, bom = decoded
    if "\r" in text:
        problems.append(
            Problem(
                txt_path,
                text.count("\n", 0, text.index("\r")) + 1,
                "the text has CR (\\r) characters (CRLF line endings?); kept as stored, so offsets count "
                "each \\r as brat does",
                "warning",
            )
        )
    parser = _Parser(text, keep_unknown)
    files: dict[str, dict[str, Any]] = {}
    for path, ext in zip(ann_paths, exts, strict=True):
        dec = _decode(path, problems)
        if dec is None:
            continue
        content, abom = dec
        opts: dict[str, Any] = {}
        if abom:
            opts["bom"] = True
        lines = _split_lines(path, content, opts, problems)
        files[ext] = opts
        if lines is not None:
            parser.parse_file(ext, path, lines)
    meta: dict[str, Any] = {"files": files}
    annotations = parser.resolve({"standoff": meta})
    if parser.problems:
        order = {path: k for k, path in enumerate((txt_path, *ann_paths))}
        problems.extend(sorted(parser.problems, key=lambda p: (order.get(p.file, 0), p.line or 0)))
    if problems and any(p.severity == "error" for p in problems):
        return None, problems
    if parser.verbatim:
        meta["verbatim"] = sorted(parser.verbatim, key=lambda v: (exts.index(v[0]), v[1]))
    name = os.path.basename(txt_path)
    document = Document(
        external_id=name[:-4] if name.endswith(".txt") else os.path.splitext(name)[0],
        text=text,
        source=source if source is not None else _default_source(txt_path),
        metadata={"bom": True} if bom else {},
    )
    warnings = tuple(map(str, problems))
    return ParsedDocument(document=document, annotations=annotations, warnings=warnings), problems


def read_document(
    txt_path: str | os.PathLike[str],
    ann_paths: Iterable[str | os.PathLike[str]] | None = None,
    *,
    keep_unknown: bool = False,
    source: str | None = None,
) -> ParsedDocument:
    """Read one document: its ``.txt`` and its ``.ann`` or ``.a1``/``.a2`` files.

    ``ann_paths`` defaults to the files beside the text with the same stem (``.ann``, else whichever of
    ``.a1``/``.a2`` exist; none means an unannotated text). Raises :class:`FormatError` listing every
    problem; warnings come back in ``ParsedDocument.warnings``.
    """
    txt = os.fspath(txt_path)
    anns = [os.fspath(p) for p in ann_paths] if ann_paths is not None else _find_ann_paths(txt)
    if not os.path.isfile(txt):
        raise FormatError.single(txt, None, "text file not found")
    parsed, problems = _parse_document(txt, anns, keep_unknown=keep_unknown, source=source)
    if parsed is None:
        raise FormatError(problems)
    return parsed


@dataclass(frozen=True, slots=True)
class DocumentFiles:
    """One document found in a directory: its ``.txt`` (None for orphan annotation files), its
    annotation files and its ``source`` (the ``.txt`` path relative to the directory's parent)."""

    txt: str | None
    anns: tuple[str, ...]
    source: str


def find_documents(path: str | os.PathLike[str], *, recursive: bool = True) -> list[DocumentFiles]:
    """The documents under ``path`` in reading order, without reading them.

    Why apart from reading: a caller can show progress or read the list in parallel chunks
    (:func:`read_documents` on each); :func:`read_directory_lenient` is the two together.
    """
    root = os.fspath(path)
    if not os.path.isdir(root):
        raise FormatError.single(root, None, "not a directory")
    found: list[DocumentFiles] = []
    base = os.path.dirname(os.path.abspath(root))
    for folder, names in _walk(root, recursive):
        rel = os.path.relpath(os.path.abspath(folder), base).replace(os.sep, "/")
        by_stem: dict[str, dict[str, str]] = {}
        prefix = os.path.join(folder, "")  # folder + separator: as os.path.join(folder, name), once
        for name in names:
            stem, dot, ext = name.rpartition(".")
            if dot and (ext == "txt" or ext in ANN_EXTENSIONS):
                by_stem.setdefault(stem, {})[ext] = prefix + name
        for stem in sorted(by_stem):
            group = by_stem[stem]
            anns = tuple(group[e] for e in ANN_EXTENSIONS if e in group)
            found.append(DocumentFiles(group.get("txt"), anns, f"{rel}/{stem}.txt"))
    return found


def read_documents(found: Iterable[DocumentFiles], *, keep_unknown: bool = False) -> ReadResult:
    """Read documents listed by :func:`find_documents`; keep the valid ones, list the others' problems."""
    docs: list[ParsedDocument] = []
    problems: list[Problem] = []
    rejected: list[str] = []
    with gc_paused():
        for f in found:
            if f.txt is None:
                stem = f.source.rpartition("/")[2][:-4]
                for a in f.anns:
                    problems.append(Problem(a, None, f"annotation file without its text {stem}.txt"))
                    rejected.append(a)
                continue
            parsed, probs = _parse_document(f.txt, f.anns, keep_unknown=keep_unknown, source=f.source)
            if parsed is None:
                problems.extend(probs)
                rejected.append(f.txt)
            else:
                docs.append(parsed)
    return ReadResult(documents=docs, problems=problems, rejected=rejected)


def read_directory_lenient(
    path: str | os.PathLike[str], *, keep_unknown: bool = False, recursive: bool = True
) -> ReadResult:
    """Read every document under ``path``; keep the valid ones and list every problem of the others.

    A document is a ``.txt`` file (any ``.txt``, as in brat) with its annotation files of the same
    stem. Hidden files and folders are skipped; an annotation file without a ``.txt`` is a problem.
    ``Document.source`` is the path relative to the parent of ``path`` (e.g. ``train/PMID-1.txt``).
    """
    return read_documents(find_documents(path, recursive=recursive), keep_unknown=keep_unknown)


def read_directory(
    path: str | os.PathLike[str], *, keep_unknown: bool = False, recursive: bool = True
) -> list[ParsedDocument]:
    """Read every document under ``path``, all or nothing: :class:`FormatError` lists every problem
    of every file. Use :func:`read_directory_lenient` to import the valid documents and list the rest."""
    result = read_directory_lenient(path, keep_unknown=keep_unknown, recursive=recursive)
    if result.problems:
        raise FormatError(result.problems)
    return result.documents


def _walk(root: str, recursive: bool) -> Iterator[tuple[str, list[str]]]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if recursive else []
        yield dirpath, sorted(f for f in filenames if not f.startswith("."))
