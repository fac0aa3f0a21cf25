"""brat standoff (``.txt`` + ``.ann``) and BioNLP Shared Task (``.txt`` + ``.a1``/``.a2``) reader and writer.

Why our own parser: the PyPI brat parsers, checked on the real corpora in ``../shared/data``, each
silently drop or corrupt line types that occur there (events whose arguments are events, ``*``
Equiv/Alias sets, ``N`` and ``M`` lines, relation roles other than ``Arg1``/``Arg2``, spans of three or
more fragments), or renumber ids, or validate discontinuous spans wrongly. corpusdb promises that
nothing is dropped in silence and that writing what was read gives the same bytes, so the format layer
is ours: a small line parser that splits on the first two tabs, as brat does.

Mapping to records
------------------
* ``T`` -> :class:`Span` (every ``;`` fragment kept; ``text`` = the text field as written).
* ``R`` -> :class:`Relation` ``kind="relation"``, roles in order (``Arg1``, ``Former``, ``Bacteria``...).
* ``E`` -> :class:`Relation`: ``kind="relation"`` when trigger-less with two arguments that are both
  entities (BioNLP-ST 2011 Bacteria Biotope ``E1\\tPartOf Host:T17 Part:T18``; ``extra["prefix"] = "E"``
  so it is written back as an ``E`` line), otherwise ``kind="event"`` with ``trigger`` = the ``T`` id or
  None; arguments may point at entities or events; numbered roles (``Theme2``) are kept as written.
* ``A``/``M`` -> ``attributes[name]`` of the target span or relation: ``True`` for a binary attribute,
  the value string for a valued one.
* ``N`` -> :class:`Grounding` on the span (``ref`` = ``db:id``, ``text``, ``source_id``, ``kind``); the
  BioNLP-ST form ``N1\tOntoBiotope Annotation:T3 Referent:OBT:000965`` too (``kind`` the referential,
  ``ref`` the referent, ``extra["st"]``; written back in that form, see :func:`_st_norm`).
* ``*`` -> :class:`Link` of the line's type (``Equiv``, ``Alias``...), a star from the first member to
  each other member, members in the original order; all links of one line share ``group`` (``*<n>``,
  n counting ``*`` lines) and have ids ``*<n>.<k>``.
* ``#`` -> :class:`Note` (id ``#1``, type ``AnnotatorNotes``/``Lemma``..., text verbatim, leading
  spaces included).

Extras layout (all JSON-serialisable; keys absent when they hold their default)
-------------------------------------------------------------------------------
``Document.metadata``: ``{"bom": true}`` when the ``.txt`` started with a byte order mark.

``Annotations.extra["standoff"]``::

    {"files": {"a1": {}, "a2": {"newline": "\\r\\n", "bom": true, "final_newline": false}},
     "verbatim": [["a1", 8, "W1\\tWord 0 5\\tThese"], ...]}

``files`` lists the annotation files read, in order (``ann``, or ``a1`` and/or ``a2``), each with its
non-default layout: ``newline`` (``"\\n"`` by default), ``bom``, ``final_newline`` (true by default for
a non-empty file). ``verbatim`` holds lines kept as they were: blank lines, and with
``keep_unknown=True`` lines that are not brat (see below), each as ``[extension, line number, text]``.

Item ``extra`` (spans, relations, groundings, the first link of a ``*`` line, notes)::

    {"file": "a2", "line": 12,          # where the line was, only if needed (see below)
     "ws": "Process:T20 ",              # the second field verbatim when not in canonical spacing
     "tail": "",                        # a third field on R/E/A/M/* lines (brat's trailing tab)
     "notext": true,                    # a T line without a text field
     "prefix": "E",                     # a trigger-less binary relation written as an E line
     "attrs": {"Negation": {"id": "M1", "file": "a2", "line": 30}}}   # the A/M lines of the item

``attrs`` entries may carry ``ws``/``tail`` too; the line's letter (``A`` or ``M``) is its id's first
character. The writer uses ``ws`` only while it still tokenises like the item's current content, so an
edited item is written canonically, never with stale spacing.

``file`` alone (no ``line``: adjudicated gold keeps its sources' files) puts the line in that file among
the lines without a position. ``file``/``line`` (extension, 1-based line number) are stored only when the document's lines are not
in the writer's canonical order, and then on every item (and ``attrs`` entry) of the document. In
canonical order the writer puts every line back where it was without them, so a canonical document
has none (an extra left with nothing is ``{}``): no dict per span in the reader, no JSON value per row
in the store. Canonical order: spans in the first annotation file (``.ann``, ``.a1``), except event
triggers, which go with every other line in the last one (``.ann``, ``.a2``); in each file the T
lines, then R/E, A/M, N, ``*`` and ``#`` lines (:data:`_RANK`), each group in the order of its records
(spans, relations, ``*`` lines and notes as read; A/M lines by owner, the spans' in span order then
the relations', each owner's in attribute order; N lines by span); and no blank or verbatim line.
The reader decides exactly (:func:`_in_writer_order`), so dropping positions never changes a byte
written. After an edit, lines without a position take their canonical place: in a canonical document
a new span is written after the last T line and a removed relation leaves no gap; in a document with
positions new lines go after the existing lines of their file.

Decisions
---------
* **Encoding**: UTF-8 only; other bytes are an error naming the file, line and byte offset. Offsets are
  Unicode code points of the text as stored (characters outside the BMP count one).
* **BOM**: a leading U+FEFF in the ``.txt`` or an annotation file is removed (offsets count from the
  first character after it, as editors show the text), remembered (``metadata["bom"]``,
  ``files[ext]["bom"]``) so it is written back, and reported as a warning.
* **CRLF**: the ``.txt`` is kept exactly as stored, ``\\r`` included, so offsets count each ``\\r`` as
  brat does (it reads texts without newline translation); a warning says so and text-field mismatch
  errors in such a document carry that hint. An annotation file with CRLF endings is read line by
  line without the ``\\r`` and written back with CRLF; mixed LF/CRLF endings are an error.
* **Unknown lines** (BioNLP-ST 2011 Bacteria Gene Interactions: ``W`` token lines and role-less
  dependency lines ``R1\\tmod_att:N-N W17 W16``): refused by default, one error per line. With
  ``keep_unknown=True`` they are kept verbatim in ``extra["standoff"]["verbatim"]`` (never parsed,
  never mangled) and written back at their place; lines that refer to such a line's id are kept
  verbatim with them; one warning per file gives the count. Blank lines are always kept verbatim.
* **Text fields**: the ``T`` text field must equal the document slice (fragments joined by one
  space); a difference in whitespace only (NBSP vs space, newline vs space) is a warning.
* **Writing** items without standoff extras (made in the TUI, or imported from BioRelEx): valid brat
  ids are kept, missing/invalid/colliding ones are replaced by the next free ``T<n>``/``R<n>``/...
  (references follow), and lines without a position go after the positioned lines of their file (all
  of them, in a document read in canonical order), ordered T, R/E, A/M, N, ``*``, ``#`` and within
  each letter in record order. New spans go to ``.a1`` (or to ``.a2`` when used as a trigger),
  everything else to ``.a2``. A relation's ``label`` and ``tags`` are written as attributes (``label`` valued, each tag
  binary). Newlines inside text fields become spaces. Spans without fragments and document labels
  cannot be written and are refused (:class:`InvalidInput`).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from itertools import islice, pairwise
from pathlib import Path
from typing import Any

from corpusdb.errors import FormatError, InvalidInput, Problem
from corpusdb.gcpause import gc_paused
from corpusdb.records import (
    Annotations,
    Argument,
    Document,
    Grounding,
    Link,
    Note,
    ParsedDocument,
    Relation,
    RelationKind,
    Span,
    make_argument,
    make_relation,
    make_span,
)

__all__ = [
    "ANN_EXTENSIONS",
    "DocumentFiles",
    "ReadResult",
    "find_documents",
    "format_annotations",
    "format_document",
    "read_directory",
    "read_directory_lenient",
    "read_document",
    "read_documents",
    "write_document",
]

ANN_EXTENSIONS: tuple[str, ...] = ("ann", "a1", "a2")
"""Annotation file extensions, in the order they are read and written."""

_KNOWN_PREFIXES = frozenset("TRAEMN*#")
# Records are built positionally on the hot path (``make_span``...): guard the field order.
_SPAN_FIELDS = ("id", "type", "fragments", "text", "attributes", "groundings", "extra")
_RELATION_FIELDS = ("id", "type", "args", "label", "tags", "attributes", "trigger", "kind", "extra")
for _cls, _names in ((Span, _SPAN_FIELDS), (Relation, _RELATION_FIELDS), (Argument, ("role", "ref"))):
    if tuple(f.name for f in fields(_cls)) != _names:  # pragma: no cover - guards the positional calls
        raise ImportError(
            f"importers.standoff builds {_cls.__name__} positionally and expects fields {_names}"
        )
_FAST_T = re.compile(r"(T[0-9A-Za-z]+)\t([!-~]+) (0|[1-9][0-9]*) (0|[1-9][0-9]*)\t(.*)", re.DOTALL)
"""The common ``T`` line, as one C call: ASCII id and type, one fragment, offsets without leading zeros,
a text field. Anything else takes the general path, which checks and reports every detail."""
_SET_GROUNDINGS = Span.groundings.__set__  # type: ignore[attr-defined]
"""Sets a span's groundings before the record is handed out (records are made as their line is read)."""
_KEEP_HINT = "; pass keep_unknown=True to keep such lines verbatim"


def _cycles(graph: dict[str, list[str]]) -> dict[str, str]:
    """Relations/events whose arguments lead back to themselves -> the cycle (``E1 -> E2 -> E1``).

    Iterative depth-first search (an event chain may be long; recursion would be bounded by Python's)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    out: dict[str, str] = {}
    for root in graph:
        if root in state:
            continue
        path: list[str] = [root]
        its = [iter(graph[root])]
        state[root] = 1
        while its:
            nxt = next(its[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                its.pop()
                continue
            if state.get(nxt) == 1:
                loop = [*path[path.index(nxt) :], nxt]
                for x in loop[:-1]:
                    out.setdefault(x, " -> ".join(loop))
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                its.append(iter(graph.get(nxt, ())))
    return out


@dataclass(frozen=True, slots=True)
class ReadResult:
    """What a lenient read gives: the valid documents, and every problem of the rejected ones.

    Shared by the importers so a caller can import what is valid and list the rest.
    """

    documents: list[ParsedDocument]
    problems: list[Problem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    """What was not imported: ``.txt`` paths (or orphan annotation files); BioRelEx sentence ids."""


# --------------------------------------------------------------------------------------------
# Reading files
# --------------------------------------------------------------------------------------------


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


def _is_offset(s: str) -> bool:
    return s.isdigit() and s.isascii()


def _diff(field: str, doc: str) -> str:
    """Where a text field and the document slice first differ, shortly (texts can be abstracts)."""
    i = next(
        (k for k, (a, b) in enumerate(zip(field, doc, strict=False)) if a != b), min(len(field), len(doc))
    )
    lo = max(0, i - 15)
    return f"field has {field[lo : i + 15]!r}, document has {doc[lo : i + 15]!r} (character {i})"


def _norm(s: str) -> list[str]:
    """Tokens of a second field (``;`` a token, numbers by value): compares spacing-insensitively."""
    return [str(int(t)) if t.isdigit() and t.isascii() else t for t in s.replace(";", " ; ").split()]


class _Parser:
    """Parses the annotation files of one document; collects every problem instead of stopping."""

    def __init__(self, text: str, keep_unknown: bool) -> None:
        self.text = text
        self.tlen = len(text)
        self.keep_unknown = keep_unknown
        self.crlf_hint = " (the .txt has CRLF line endings: offsets count each \\r)" if "\r" in text else ""
        self.problems: list[Problem] = []
        self.ids: dict[str, tuple[str, int]] = {}
        # parsed lines, in file order
        self.spans: dict[str, Span] = {}
        """id -> its record, made as the line is read (one pass over the spans, not two). Why a record
        before the references are checked: it is not handed out before :meth:`resolve` has set what
        later lines add (attributes, groundings) and its position: a span of the fast path starts with
        an empty ``extra``, given ``file``/``line`` there only if the positions are kept (its line is in
        ``ids``); a span of the general path starts with its ``loc``, positions dropped there if not."""
        self.general: list[Span] = []
        """the spans of the general path (:meth:`parse_t`), whose ``extra`` holds their position"""
        self.files: list[tuple[str, str, tuple[int, ...], bool]] = []
        """per file read: extension, path, how many lines of each kind of :data:`_KINDS` were parsed
        up to its end, and whether its lines are in rank order (see :meth:`end_file`)"""
        self.ext_of: dict[str, str] = {}
        """path -> extension"""
        self.triggers: set[str] = set()
        """the ids of event triggers (set by :meth:`resolve`)"""
        self.rels: dict[str, dict[str, Any]] = {}
        self.attrs: list[dict[str, Any]] = []
        self.norms: list[dict[str, Any]] = []
        self.stars: list[dict[str, Any]] = []
        self.notes: list[dict[str, Any]] = []
        self.verbatim: list[list[Any]] = []
        self.unknown_ids: set[str] = set()
        self.invalid: set[str] = set()
        self.kept: dict[str, list[tuple[int, str]]] = {}

    def err(self, file: str, line: int, msg: str) -> None:
        self.problems.append(Problem(file, line, msg))

    def warn(self, file: str, line: int, msg: str) -> None:
        self.problems.append(Problem(file, line, msg, "warning"))

    def keep(self, ext: str, file: str, line: int, raw: str) -> None:
        self.verbatim.append([ext, line, raw])
        self.kept.setdefault(file, []).append((line, raw))
        ident = raw.split("\t", 1)[0].split(" ", 1)[0]
        if ident:
            self.unknown_ids.add(ident)

    def claim(self, ident: str, file: str, line: int) -> bool:
        if not ident or ident != ident.strip() or " " in ident:
            self.err(file, line, f"malformed id {ident!r}")
            return False
        prev = self.ids.get(ident)
        if prev is not None:
            self.err(file, line, f"duplicate id {ident} (first defined at {prev[0]}:{prev[1]})")
            return False
        self.ids[ident] = (file, line)
        return True

    # -- first pass: one line at a time --------------------------------------------------------

    def parse_file(self, ext: str, file: str, lines: list[str]) -> None:
        text, tlen, ids, spans = self.text, self.tlen, self.ids, self.spans
        self.ext_of[file] = ext
        fast = _FAST_T.fullmatch
        for n, raw in enumerate(lines, 1):
            m = fast(raw)
            if m is not None:  # fast path: a contiguous span in canonical spacing whose text matches
                ident, type_, s, e, f3 = m.groups()
                if ident not in ids:
                    si = int(s)
                    ei = int(e)
                    if si <= ei <= tlen and f3 == text[si:ei]:
                        ids[ident] = (file, n)
                        spans[ident] = make_span(ident, type_, ((si, ei),), f3, {}, (), {})
                        continue
            parts = raw.split("\t", 2)
            ident = parts[0]
            p = ident[:1]
            if not raw.strip():
                self.verbatim.append([ext, n, raw])
                continue
            if p not in _KNOWN_PREFIXES or len(parts) < 2:
                if self.keep_unknown:
                    self.keep(ext, file, n, raw)
                elif p not in _KNOWN_PREFIXES:
                    self.err(
                        file,
                        n,
                        f"unknown line type {p!r} in {raw[:40]!r} (brat lines start with "
                        f"T, R, E, A, M, N, * or #){_KEEP_HINT}",
                    )
                else:
                    self.err(file, n, f"line has no tab after its id: {raw[:40]!r}")
                continue
            f2 = parts[1]
            f3 = parts[2] if len(parts) == 3 else None
            loc = {"file": ext, "line": n}
            if p == "T":
                self.parse_t(ident, f2, f3, loc, file, n)
            elif p == "R" or p == "E":
                self.parse_rel(p, ident, f2, f3, loc, file, n, raw, ext)
            elif p == "A" or p == "M":
                self.parse_attr(ident, f2, f3, loc, file, n)
            elif p == "N":
                self.parse_norm(ident, f2, f3, loc, file, n)
            elif p == "*":
                self.parse_star(ident, f2, f3, loc, file, n)
            else:
                self.parse_note(ident, f2, f3, loc, file, n)
        self.end_file(ext, file)

    def end_file(self, ext: str, file: str) -> None:
        """Records, for :func:`_in_writer_order`, how many lines of each kind of :data:`_KINDS` were
        parsed up to the end of the file, and whether the file's lines are in rank order. Each line
        became a record of its kind (or a problem, or a verbatim line: then no position is dropped)
        and each kind's records are in file order, so they are when, kind after kind by rank, each
        kind's last line is the number of lines of that kind and the kinds before (the kind then
        holds exactly the lines after theirs). Done here, while the records are in the cache."""
        spans, rels, attrs, norms, stars, notes = (
            self.spans,
            self.rels,
            self.attrs,
            self.norms,
            self.stars,
            self.notes,
        )
        ends = (len(spans), len(rels), len(attrs), len(norms), len(stars), len(notes))
        s0, r0, a0, n0, st0, nt0 = self.files[-1][2] if self.files else _NO_LINES
        s1, r1, a1, n1, st1, nt1 = ends
        lines = s1 - s0
        ordered = (self.ids[next(reversed(spans))][1] if lines else 0) == lines
        if r1 > r0:
            lines += r1 - r0
            ordered = ordered and next(reversed(rels.values()))["n"] == lines
        if a1 > a0:
            lines += a1 - a0
            ordered = ordered and attrs[-1]["loc"]["line"] == lines
        if n1 > n0:
            lines += n1 - n0
            ordered = ordered and norms[-1]["loc"]["line"] == lines
        if st1 > st0:
            lines += st1 - st0
            ordered = ordered and stars[-1]["n"] == lines
        if nt1 > nt0:
            lines += nt1 - nt0
            ordered = ordered and notes[-1]["loc"]["line"] == lines
        self.files.append((ext, file, ends, ordered))

    def parse_t(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        type_, _, offs = f2.partition(" ")
        frags: list[tuple[int, int]] = []
        ok = bool(type_) and bool(offs)
        if not ok:
            self.err(file, n, f"T line needs 'TYPE START END[;START END...]', got {f2!r}")
        else:
            for piece in offs.split(";"):
                se = piece.split()
                if len(se) != 2:
                    self.err(file, n, f"fragment {piece!r} of {ident} is not 'START END'")
                    ok = False
                    continue
                s, e = se
                if not (_is_offset(s) and _is_offset(e)):
                    self.err(file, n, f"offsets {piece.strip()!r} of {ident} are not non-negative integers")
                    ok = False
                    continue
                si, ei = int(s), int(e)
                if ei < si:
                    self.err(file, n, f"{ident}: end {ei} before start {si}")
                    ok = False
                elif ei > self.tlen:
                    self.err(
                        file,
                        n,
                        f"{ident}: offsets {si}-{ei} beyond the end of the text ({self.tlen} characters)",
                    )
                    ok = False
                frags.append((si, ei))
        if not self.claim(ident, file, n):
            return
        if not ok:
            self.invalid.add(ident)
            return
        if len(frags) > 1 and any(b[0] < a[1] for a, b in pairwise(frags)):
            # brat draws such a span but its own tools emit fragments in text order: say so, keep them
            self.warn(file, n, f"{ident}: fragments {offs.strip()!r} are out of text order or overlap")
        type_ = type_.strip()
        canon = type_ + " " + ";".join(f"{s} {e}" for s, e in frags)
        if canon != f2:
            loc["ws"] = f2
        text = self.text
        if len(frags) == 1:
            s, e = frags[0]
            expected = text[s:e]
        else:
            expected = " ".join(text[s:e] for s, e in frags)
        if f3 is None:
            loc["notext"] = True
            self.warn(file, n, f"{ident} has no text field; the document slice is used")
            f3 = expected
        elif f3 != expected:
            if f3.split() == expected.split():
                self.warn(
                    file,
                    n,
                    f"{ident}: text field differs from the document only in whitespace: {_diff(f3, expected)}",
                )
            else:
                self.err(
                    file,
                    n,
                    f"{ident}: text field does not match the document at "
                    f"{';'.join(f'{s} {e}' for s, e in frags)}: {_diff(f3, expected)}{self.crlf_hint}",
                )
                self.invalid.add(ident)
                return
        span = make_span(ident, type_, tuple(frags), f3, {}, (), loc)
        self.spans[ident] = span
        self.general.append(span)

    def parse_rel(
        self,
        p: str,
        ident: str,
        f2: str,
        f3: str | None,
        loc: dict[str, Any],
        file: str,
        n: int,
        raw: str,
        ext: str,
    ) -> None:
        toks = f2.split()
        if toks and p == "R" and self.keep_unknown and any(":" not in t for t in toks[1:]):
            self.keep(ext, file, n, raw)
            return
        if not self.claim(ident, file, n):
            return
        if not toks:
            self.invalid.add(ident)
            self.err(file, n, f"{ident} has no type")
            return
        head = toks[0]
        trigger: str | None = None
        if p == "E" and ":" in head:
            type_, _, trigger = head.rpartition(":")
            if not type_ or not trigger:
                self.invalid.add(ident)
                self.err(file, n, f"{ident}: malformed 'TYPE:TRIGGER' {head!r}")
                return
        else:
            type_ = head
        args: list[tuple[str, str]] = []
        bad: list[str] = []
        for tok in toks[1:]:
            role, _, ref = tok.rpartition(":")
            if role and ref:
                args.append((role, ref))
            else:
                bad.append(tok)
        if bad:
            self.invalid.add(ident)
            extra_hint = " (a dependency line, not brat)" if p == "R" else ""
            self.err(
                file,
                n,
                f"{ident}: argument {bad[0]!r} is not ROLE:ID{extra_hint}" + (_KEEP_HINT if p == "R" else ""),
            )
            return
        if p == "R" and not args:
            self.invalid.add(ident)
            self.err(file, n, f"{ident}: a relation needs arguments 'ROLE:ID'")
            return
        canon = " ".join(toks)
        if canon != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        self.rels[ident] = {
            "p": p,
            "type": type_,
            "trigger": trigger,
            "args": args,
            "extra": loc,
            "file": file,
            "n": n,
            "raw": raw,
            "ext": ext,
        }

    def parse_attr(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) not in (2, 3):
            self.err(file, n, f"{ident}: attribute line needs 'NAME TARGET [VALUE]', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        value: bool | str = toks[2] if len(toks) == 3 else True
        self.attrs.append({"id": ident, "name": toks[0], "target": toks[1], "value": value, "loc": loc})

    def parse_norm(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) != 3:
            self.err(file, n, f"{ident}: normalisation line needs 'KIND TARGET DB:ID', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        target, ref = _st_norm(toks[1], toks[2], loc)
        self.norms.append(
            {"id": ident, "kind": toks[0], "target": target, "ref": ref, "text": f3, "loc": loc}
        )

    def parse_star(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if ident != "*":
            self.err(file, n, f"malformed id {ident!r} (an equivalence line starts with '*' and a tab)")
            return
        if len(toks) < 3:
            self.err(file, n, f"equivalence line needs a type and at least two members, got {f2!r}")
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is not None:
            loc["tail"] = f3
        self.stars.append({"type": toks[0], "members": toks[1:], "loc": loc, "file": file, "n": n})

    def parse_note(self, ident: str, f2: str, f3: str | None, loc: dict[str, Any], file: str, n: int) -> None:
        toks = f2.split()
        if len(toks) != 2:
            self.err(file, n, f"{ident}: note line needs 'TYPE TARGET', got {f2!r}")
            return
        if not self.claim(ident, file, n):
            return
        if " ".join(toks) != f2:
            loc["ws"] = f2
        if f3 is None:
            loc["notext"] = True
            f3 = ""
        self.notes.append({"id": ident, "type": toks[0], "target": toks[1], "text": f3, "loc": loc})

    # -- second pass: references -----------------------------------------------------------

    def _ref_problem(self, ref: str) -> str:
        if ref in self.invalid:
            return f"{ref} is invalid (see its own error)"
        if ref in self.ids:
            return f"{ref} is not an entity, relation or event"
        return f"unknown id {ref}"

    def resolve(self, set_extra: dict[str, Any]) -> Annotations:
        """The records, references checked (problems collected); ``set_extra`` is the set's extra."""
        spans, rels, unknown = self.spans, self.rels, self.unknown_ids
        # Lines referring to lines kept verbatim are kept verbatim too (only with keep_unknown).
        if unknown:
            changed = True
            while changed:
                changed = False
                for rid, r in list(rels.items()):
                    refs = [ref for _, ref in r["args"]] + ([r["trigger"]] if r["trigger"] else [])
                    if any(ref in unknown for ref in refs):
                        del rels[rid]
                        self.keep(r["ext"], r["file"], r["n"], r["raw"])
                        changed = True
        relations: list[Relation] = []
        rel_extra: dict[str, dict[str, Any]] = {}
        rel_attrs: dict[str, dict[str, Any]] = {}
        triggers: set[str] = set()
        # only relations with a relation among their arguments can be on a cycle (the rest: no edge)
        graph = {
            rid: refs for rid, r in rels.items() if (refs := [ref for _, ref in r["args"] if ref in rels])
        }
        cyclic = _cycles(graph) if graph else {}
        for rid, r in rels.items():
            file, n = r["file"], r["n"]
            if rid in cyclic:
                self.err(
                    file,
                    n,
                    f"{rid}: its arguments lead back to itself ({cyclic[rid]}): events cannot be cyclic",
                )
                continue
            ok = True
            trig = r["trigger"]
            if trig is not None:
                triggers.add(trig)
                if trig not in spans:
                    self.err(file, n, f"{rid}: trigger {self._ref_problem(trig)}")
                    ok = False
            to_span = True
            for role, ref in r["args"]:
                if ref in spans:
                    continue
                to_span = False
                if ref not in rels:
                    self.err(file, n, f"{rid}: argument {role}:{ref}: {self._ref_problem(ref)}")
                    ok = False
            if not ok:
                continue
            rextra = r["extra"]
            kind: RelationKind
            if r["p"] == "E" and trig is None and len(r["args"]) == 2 and to_span:
                kind = "relation"
                rextra["prefix"] = "E"
            elif r["p"] == "E":
                kind = "event"
            else:
                kind = "relation"
            rel_extra[rid] = rextra
            relations.append(  # positionally, as spans below (fields checked at import)
                make_relation(
                    rid,
                    r["type"],
                    tuple([make_argument(role, ref) for role, ref in r["args"]]),
                    None,
                    (),
                    rel_attrs.setdefault(rid, {}),
                    trig,
                    kind,
                    rextra,
                )
            )
        # In the writer's canonical order every line goes back where it was without its position:
        # then no item keeps one (module docstring, "Extras layout").
        canonical = self._positions_redundant(triggers)
        if canonical:
            for s in self.general:
                _without_position(s.extra)
            for loc in rel_extra.values():
                del loc["file"], loc["line"]
            for items in (self.attrs, self.norms, self.stars, self.notes):
                for item in items:
                    loc = item["loc"]
                    del loc["file"], loc["line"]
        else:  # the fast path's spans get their position (the general path's have it)
            ids = self.ids
            values = iter(spans.values())
            done = 0
            for ext, _, counts, _ in self.files:  # counts[0]: spans up to the file's end
                for s in islice(values, counts[0] - done):
                    extra = s.extra
                    if not extra:
                        extra["file"] = ext
                        extra["line"] = ids[s.id][1]
                done = counts[0]
        for a in self.attrs:
            tgt = a["target"]
            loc = a["loc"]
            file_n = self.ids[a["id"]]
            if tgt in unknown:
                self._demote(a["id"], loc, self._line_attr(a))
                continue
            if tgt in spans:
                span = spans[tgt]
                values, owner = span.attributes, span.extra
            elif tgt in rel_extra:
                values, owner = rel_attrs[tgt], rel_extra[tgt]
            else:
                self.err(*file_n, f"{a['id']}: target {self._ref_problem(tgt)}")
                continue
            meta = owner.setdefault("attrs", {})
            name = a["name"]
            if name in values:
                first = meta[name]
                self.err(*file_n, f"{a['id']}: attribute {name} of {tgt} already set by {first['id']}")
                continue
            values[name] = a["value"]
            entry = {"id": a["id"], **loc}
            meta[name] = entry
        groundings: dict[str, list[Grounding]] = {}
        for g in self.norms:
            tgt, loc = g["target"], g["loc"]
            if tgt in unknown:
                self._demote(g["id"], loc, self._line_norm(g))
                continue
            if tgt not in spans:
                msg = (
                    "a normalisation must target a T entity"
                    if tgt in rels
                    else f"target {self._ref_problem(tgt)}"
                )
                self.err(*self.ids[g["id"]], f"{g['id']}: {msg}")
                continue
            groundings.setdefault(tgt, []).append(
                Grounding(ref=g["ref"], text=g["text"], source_id=g["id"], kind=g["kind"], extra=loc)
            )
        links: list[Link] = []
        for k, st in enumerate(self.stars, 1):
            members = st["members"]
            if any(m in unknown for m in members):
                self.keep(st["loc"]["file"], st["file"], st["n"], self._line_star(st))
                continue
            bad = [m for m in members if m not in spans]
            if bad:
                self.err(st["file"], st["n"], f"{st['type']} member {bad[0]}: must be a T entity")
                continue
            group = f"*{k}"
            for j, tgt in enumerate(members[1:], 1):
                links.append(
                    Link(
                        id=f"{group}.{j}",
                        type=st["type"],
                        source=members[0],
                        target=tgt,
                        group=group,
                        extra=st["loc"] if j == 1 else {},
                    )
                )
        notes: list[Note] = []
        for nt in self.notes:
            tgt, loc = nt["target"], nt["loc"]
            if tgt in unknown:
                self._demote(nt["id"], loc, self._line_note(nt))
                continue
            if tgt not in spans and tgt not in rel_extra:
                self.err(*self.ids[nt["id"]], f"{nt['id']}: target {self._ref_problem(tgt)}")
                continue
            notes.append(Note(id=nt["id"], type=nt["type"], target=tgt, text=nt["text"], extra=loc))
        set_groundings = _SET_GROUNDINGS
        for sid, found in groundings.items():  # (records made as read: the groundings come after)
            set_groundings(spans[sid], tuple(found))
        for file, kept in self.kept.items():
            line, raw = min(kept)
            self.warn(
                file,
                line,
                f"kept {len(kept)} non-brat line(s) verbatim (first: {raw[:40]!r}); they are written back "
                "unchanged but not imported as annotations",
            )
        return Annotations(
            spans=tuple(spans.values()),
            relations=tuple(relations),
            links=tuple(links),
            notes=tuple(notes),
            extra=set_extra,
        )

    def _positions_redundant(self, triggers: set[str]) -> bool:
        """Whether the writer puts every line where it is without its position, so positions can be
        dropped: :func:`_in_writer_order` with what :meth:`end_file` recorded (no look-up per line).
        What that function cannot see holds here: records are in file order; relations have no
        label or tags; every ``*`` line is one link group; any line kept verbatim is answered here."""
        if self.verbatim:
            return False  # (as is every line referring to an unknown id: rels, attrs... are whole)
        self.triggers = triggers
        return _in_writer_order(
            self.files,
            len(triggers),
            self._trigger_spans,
            self._owner_keys if len(self.attrs) > 1 or len(self.norms) > 1 else None,
        )

    def _trigger_spans(self, f: int) -> int:
        """How many spans of the ``f``-th file are some event's trigger."""
        spans = self.spans
        start = self.files[f - 1][2][0] if f else 0
        end = self.files[f][2][0]
        ids = islice(reversed(spans), end - start) if end == len(spans) else islice(spans, start, end)
        return len(self.triggers.intersection(ids))

    def _owner_keys(self) -> tuple[list[Any], list[Any]]:
        """Keys that sort the owners of the A/M lines and the targets of the N lines (in file order)
        in record order: spans, then relations, each in file order. Asked once all else holds, so
        every relation is in the last file after its T lines: (file, line) of the owner will do."""
        ids = self.ids
        unknown = ("", 0)  # an error anyway
        attr_keys = [ids.get(a["target"], unknown) for a in self.attrs]
        norm_keys = [ids.get(g["target"], unknown) for g in self.norms]
        paths = [path for _, path, _, _ in self.files]
        if paths != sorted(paths):  # files not in name order (given so): by their index
            order = {path: k for k, path in enumerate(paths)}
            attr_keys = [(order.get(path, -1), n) for path, n in attr_keys]
            norm_keys = [(order.get(path, -1), n) for path, n in norm_keys]
        return attr_keys, norm_keys

    # helpers to keep a dependent line verbatim (keep_unknown mode), reconstructing its exact text
    def _file_of(self, ident: str) -> str:
        return self.ids[ident][0]

    def _demote(self, ident: str, loc: dict[str, Any], raw: str) -> None:
        self.keep(loc["file"], self._file_of(ident), loc["line"], raw)

    @staticmethod
    def _line_attr(a: dict[str, Any]) -> str:
        return _attr_line(a["id"], a["name"], a["target"], a["value"], a["loc"])

    @staticmethod
    def _line_norm(g: dict[str, Any]) -> str:
        return _norm_line(g["id"], g["kind"], g["target"], g["ref"], g["text"], g["loc"])

    @staticmethod
    def _line_star(st: dict[str, Any]) -> str:
        return _star_line(st["type"], st["members"], st["loc"])

    @staticmethod
    def _line_note(nt: dict[str, Any]) -> str:
        return _note_line(nt["id"], nt["type"], nt["target"], nt["text"], nt["loc"])


def _without_position(extra: dict[str, Any]) -> dict[str, Any]:
    """``extra`` without its ``file`` and ``line`` keys (removed in place)."""
    extra.pop("file", None)
    extra.pop("line", None)
    return extra


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


# --------------------------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------------------------


def _field2(canon: str, extra: Mapping[str, Any]) -> str:
    ws = extra.get("ws")
    if ws is not None and _norm(ws) == _norm(canon):
        return ws
    return canon


def _tail(extra: Mapping[str, Any]) -> str:
    tail = extra.get("tail")
    return "" if tail is None else "\t" + tail


def _attr_line(ident: str, name: str, target: str, value: Any, extra: Mapping[str, Any]) -> str:
    canon = f"{name} {target}" if value is True else f"{name} {target} {value}"
    return f"{ident}\t{_field2(canon, extra)}{_tail(extra)}"


def _st_norm(target: str, ref: str, loc: dict[str, Any]) -> tuple[str, str]:
    """The target and reference of an ``N`` line. BioNLP-ST writes normalisations as
    ``N1\tOntoBiotope Annotation:T3 Referent:OBT:000965`` (BB 2016, several per span), brat as
    ``N1\tReference T3 db:id``: the BioNLP-ST form is read as the same grounding (target ``T3``,
    ref ``OBT:000965``, kind ``OntoBiotope``) marked ``st`` in its extra, and written back in its
    own form (:func:`_norm_line`)."""
    if target.startswith("Annotation:") and ref.startswith("Referent:") and len(target) > 11 and len(ref) > 9:
        loc["st"] = True
        return target[11:], ref[9:]
    return target, ref


def _norm_line(
    ident: str, kind: str, target: str, ref: str, text: str | None, extra: Mapping[str, Any]
) -> str:
    if extra.get("st"):  # the BioNLP-ST form (see _st_norm)
        target, ref = f"Annotation:{target}", f"Referent:{ref}"
    line = f"{ident}\t{_field2(f'{kind} {target} {ref}', extra)}"
    return line if text is None else f"{line}\t{_one_line(text)}"


def _star_line(type_: str, members: Sequence[str], extra: Mapping[str, Any]) -> str:
    return f"*\t{_field2(type_ + ' ' + ' '.join(members), extra)}{_tail(extra)}"


def _note_line(ident: str, type_: str, target: str, text: str, extra: Mapping[str, Any]) -> str:
    line = f"{ident}\t{_field2(f'{type_} {target}', extra)}"
    return line if extra.get("notext") and not text else f"{line}\t{_one_line(text)}"


def _one_line(text: str) -> str:
    if "\n" in text or "\r" in text:
        return text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return text


class _IdAllocator:
    """Keeps valid, unique brat ids and hands out the next free ``<prefix><n>`` for the others."""

    def __init__(self, reserved: Iterable[str]) -> None:
        self.used: set[str] = set(reserved)
        self.next: dict[str, int] = {}

    def claim(self, ident: str | None, prefixes: str) -> bool:
        if ident and ident[0] in prefixes and len(ident) > 1 and ident not in self.used and _clean(ident):
            self.used.add(ident)
            return True
        return False

    def new(self, prefix: str) -> str:
        n = self.next.get(prefix)
        if n is None:
            n = 1 + max(
                (int(u[1:]) for u in self.used if u[:1] == prefix and u[1:].isdigit() and u[1:].isascii()),
                default=0,
            )
        while f"{prefix}{n}" in self.used:
            n += 1
        self.next[prefix] = n + 1
        ident = f"{prefix}{n}"
        self.used.add(ident)
        return ident


def _clean(token: str) -> bool:
    return bool(token) and not any(c.isspace() for c in token)


_RANK = {"T": 0, "R": 1, "E": 1, "A": 2, "M": 2, "N": 3, "*": 4, "#": 5}
"""Lines without a position go after the positioned lines of their default file (see
:func:`_default_files`), ordered by this rank of their letter, then in the order
:func:`format_annotations` makes them."""


@lru_cache(maxsize=64)
def _default_files(first: str, last: str) -> dict[tuple[str, bool], str]:
    """Where a line without a position goes, by (letter, whether the line is an event's trigger span),
    given the first and last annotation files: a span to the first file, or to the last when it is
    some event's trigger (BioNLP's ``.a2``); every other line to the last. A table (made once per
    pair of files) because the reader looks it up for every document."""
    return {
        (p, trigger): first if p == "T" and not trigger else last for p in _RANK for trigger in (False, True)
    }


_KINDS = "TRAN*#"
"""The kinds of lines :func:`_in_writer_order` is told about, in rank order (the reader counts them
so), by letter: ``R`` stands for R and E lines, ``A`` for A and M (each pair shares its rank and
its default file)."""
if sorted(_KINDS, key=_RANK.__getitem__) != list(_KINDS):  # pragma: no cover - guards the reader's tuples
    raise ImportError(f"importers.standoff: _KINDS {_KINDS!r} must follow _RANK")
_NO_LINES = (0,) * len(_KINDS)


@lru_cache(maxsize=64)
def _misplaced_kinds(first: str, last: str, ext: str) -> tuple[int, ...]:
    """The kinds of :data:`_KINDS` (by index; spans apart) whose default file is not ``ext``."""
    home = _default_files(first, last)
    return tuple(k for k, letter in enumerate(_KINDS) if letter != "T" and home[letter, False] != ext)


def _in_writer_order(
    files: Sequence[tuple[str, Any, Sequence[int], bool]],
    n_triggers: int,
    trigger_spans: Callable[[int], int],
    owner_keys: Callable[[], tuple[Sequence[Any], Sequence[Any]]] | None,
) -> bool:
    """Whether :func:`format_annotations`, given a document's items without their line positions,
    writes every line where it is (then the reader drops the positions: they are redundant).

    Without positions the writer puts each line in its file of :func:`_default_files` and orders
    each file by :data:`_RANK` (T; R/E; A/M; N; ``*``; ``#``), and within a rank as it makes the
    lines: spans, relations, ``*`` lines and notes in record order; A/M lines by owner (each span in
    order, then each relation), each owner's in attribute order; N lines by span, each span's in
    order. The caller (the reader) vouches for what this cannot see: no verbatim line; records, each
    owner's attributes and each span's groundings in file order; relations without ``label`` or
    ``tags``; one link group per ``*`` line.

    ``files``: per annotation file, in order: its extension, anything, how many lines of each kind
    of :data:`_KINDS` there are up to its end (counting the files before), and whether its lines are
    in rank order (see ``_Parser.end_file``). ``n_triggers``: how many ids are some event's trigger
    (all spans, in a valid document); ``trigger_spans(f)``: how many of file ``f``'s spans are (asked
    only when the writer would split the spans between files). ``owner_keys`` (None when there are fewer than two A/M lines and
    fewer than two N lines): gives, for the A/M and for the N lines in file order, keys that sort
    their owners in record order. Those two are asked last, only if all else holds.
    """
    if not files:
        return True
    first, last = files[0][0], files[-1][0]
    home = _default_files(first, last)
    to_triggers, to_others = home["T", True], home["T", False]
    before: Sequence[int] = _NO_LINES
    all_triggers: list[tuple[int, int]] = []  # (file, its spans): files whose spans must all be triggers
    no_triggers: list[int] = []  # files whose spans must not be
    in_all = 0
    for f, (ext, _, ends, ordered) in enumerate(files):
        if not ordered:
            return False
        for k in _misplaced_kinds(first, last, ext):
            if ends[k] != before[k]:
                return False
        spans = ends[0] - before[0]
        if spans and not to_triggers == ext == to_others:
            if to_triggers == ext:
                all_triggers.append((f, spans))
                in_all += spans
            elif to_others == ext:
                no_triggers.append(f)
            else:
                return False
        before = ends
    if in_all > n_triggers:
        return False
    for f, n in all_triggers:
        if trigger_spans(f) != n:
            return False
    if in_all < n_triggers:  # else those files hold every trigger
        for f in no_triggers:
            if trigger_spans(f):
                return False
    if owner_keys is None:
        return True
    attr_keys, norm_keys = owner_keys()
    return list(attr_keys) == sorted(attr_keys) and list(norm_keys) == sorted(norm_keys)


ENTITY_LINK_TYPE = "synonym"
"""The ``*`` line type an explicit entity (cluster) is written as."""


def mention_level(annotations: Annotations) -> Annotations:
    """The same annotations with explicit entities written out as standoff can hold them.

    Why: standoff has no cluster records; a cluster is a ``*`` line over its mentions, and an R line
    joins mentions. Each entity with two members or more becomes a star of ``synonym`` links (of its
    ``extra["link_type"]`` when it has one: a cluster of Equiv links merged into gold) from its first
    member (one ``*`` line), and a relation argument naming an entity points at the entity's
    first mentioned member (its first member when none has a mention). Sets without entities (all
    that were read from standoff) are returned unchanged, so their round trips stay byte-identical.
    """
    if not annotations.entities:
        return annotations
    frags = {s.id: bool(s.fragments) for s in annotations.spans}
    rep: dict[str, str] = {}
    links = list(annotations.links)
    for e in annotations.entities:
        members = [m for m in e.members if m in frags]
        if not members:
            continue
        rep[e.id] = next((m for m in members if frags[m]), members[0])
        links += [
            Link(
                f"{e.id}~{k}",
                str(e.extra.get("link_type") or ENTITY_LINK_TYPE),
                members[0],
                m,
                group=f"entity:{e.id}",
                # where the * line stood (a cluster of Equiv lines merged into gold keeps its place)
                extra={k2: v for k2, v in e.extra.items() if k2 in ("file", "line", "prefix")}
                if k == 1
                else {},
            )
            for k, m in enumerate(members[1:], 1)
        ]
    relations = tuple(
        replace(r, args=tuple(replace(a, ref=rep.get(a.ref, a.ref)) for a in r.args))
        for r in annotations.relations
    )
    return replace(annotations, relations=relations, links=tuple(links), entities=())


def format_annotations(annotations: Annotations) -> dict[str, str]:
    """The annotation files' contents, keyed by extension (``ann``, or ``a1``/``a2``).

    Items read from standoff are written back at their line with their ids and spacing, so a read
    followed by a write gives the same bytes; other items get valid ids and go after them (see the
    module docstring). Explicit entities are written at mention level (:func:`mention_level`).
    Raises :class:`InvalidInput` for content standoff cannot hold.
    """
    annotations = mention_level(annotations)
    meta: Mapping[str, Any] = annotations.extra.get("standoff") or {}
    files_opts: Mapping[str, Mapping[str, Any]] | None = meta.get("files")
    exts = list(files_opts) if files_opts is not None else []
    verbatim: list[Sequence[Any]] = list(meta.get("verbatim") or ())
    has_items = bool(annotations.spans or annotations.relations or annotations.links or annotations.notes)
    if not exts and (has_items or verbatim):
        exts = ["ann"]
    errors: list[str] = []
    if annotations.labels:
        errors.append(f"standoff cannot hold document labels ({annotations.labels[0].name}=...)")
    home = _default_files(exts[0] if exts else "ann", exts[-1] if exts else "ann")

    # ids: keep valid unique ones, then allocate the rest
    reserved: list[str] = []
    for v in verbatim:
        ident = str(v[2]).split("\t", 1)[0]
        if ident and ident[0] in _KNOWN_PREFIXES:
            reserved.append(ident)
    ids = _IdAllocator(reserved)
    attr_ids: dict[tuple[str, str], str] = {}
    ground_ids: dict[tuple[str, int], str] = {}
    for owner in (*annotations.spans, *annotations.relations):
        for name, entry in (owner.extra.get("attrs") or {}).items():
            aid = entry.get("id") if isinstance(entry, Mapping) else None
            if owner.attributes.get(name) not in (None, False) and ids.claim(aid, "AM"):
                attr_ids[(owner.id, name)] = str(aid)
    for s in annotations.spans:
        for k, g in enumerate(s.groundings):
            if ids.claim(g.source_id, "N"):
                ground_ids[(s.id, k)] = str(g.source_id)
    rename: dict[str, str] = {}
    span_ids = {s.id for s in annotations.spans}
    all_ids = [x.id for x in (*annotations.spans, *annotations.relations, *annotations.notes)]
    if len(set(all_ids)) != len(all_ids):
        dups = sorted(k for k, v in Counter(all_ids).items() if v > 1)
        raise InvalidInput(f"cannot write standoff: duplicate local ids {', '.join(dups[:10])}")
    pending: list[tuple[str, str]] = []
    for s in annotations.spans:
        if not ids.claim(s.id, "T"):
            pending.append((s.id, "T"))
    rel_prefix: dict[str, str] = {}
    for r in annotations.relations:
        p = "E" if r.kind == "event" or r.trigger is not None or r.extra.get("prefix") == "E" else "R"
        rel_prefix[r.id] = p
        if not ids.claim(r.id, p):
            pending.append((r.id, p))
    for nt in annotations.notes:
        if not ids.claim(nt.id, "#"):
            pending.append((nt.id, "#"))
    for old, p in pending:
        rename[old] = ids.new(p)
    known = span_ids | set(rel_prefix)
    triggers = {r.trigger for r in annotations.relations if r.trigger is not None}

    def ref(x: str, what: str) -> str:
        if x not in known:
            errors.append(f"{what} refers to unknown id {x}")
        return rename.get(x, x)

    def tok(x: str, what: str) -> str:
        if not _clean(x):
            errors.append(f"{what} {x!r} contains whitespace or is empty")
        return x

    out: dict[str, list[tuple[float, int, int, str]]] = {e: [] for e in exts}
    seq = 0

    def put(extra: Mapping[str, Any], rank_key: str, line: str, trigger: bool = False) -> None:
        nonlocal seq
        seq += 1
        ext = extra.get("file")
        pos = extra.get("line")
        if ext in out and isinstance(pos, int):
            out[ext].append((pos, 0, seq, line))
        elif ext in out:  # a file without a line (adjudicated gold keeps its sources' files)
            out[ext].append((float("inf"), _RANK[rank_key], seq, line))
        else:
            out.setdefault(home[rank_key, trigger], []).append((float("inf"), _RANK[rank_key], seq, line))

    def put_attrs(
        target: str, owner_id: str, attributes: Mapping[str, Any], attr_meta: Mapping[str, Any]
    ) -> None:
        for name, value in attributes.items():
            if value is False or value is None:
                continue
            entry = attr_meta.get(name) or {}
            aid = attr_ids.get((owner_id, name)) or ids.new("A")
            if value is not True:
                value = str(value)
                tok(value, f"value of attribute {name} of {owner_id}")
            tok(name, f"attribute name on {owner_id}")
            put(entry, aid[0], _attr_line(aid, name, target, value, entry))

    for s in annotations.spans:
        sid = rename.get(s.id, s.id)
        if not s.fragments:
            errors.append(f"span {s.id} has no fragments (a name without a mention); standoff cannot hold it")
            continue
        tok(s.type, f"type of span {s.id}")
        canon = s.type + " " + ";".join(f"{a} {b}" for a, b in s.fragments)
        line = f"{sid}\t{_field2(canon, s.extra)}"
        if not (s.extra.get("notext")):
            line += "\t" + _one_line(s.text)
        put(s.extra, "T", line, s.id in triggers)
        put_attrs(sid, s.id, s.attributes, s.extra.get("attrs") or {})
        for k, g in enumerate(s.groundings):
            gid = ground_ids.get((s.id, k)) or ids.new("N")
            line = _norm_line(gid, g.kind, sid, tok(g.ref, "grounding"), g.text, g.extra)
            put(g.extra, "N", line)
    for r in annotations.relations:
        rid = rename.get(r.id, r.id)
        p = rel_prefix[r.id]
        tok(r.type, f"type of {r.id}")
        if r.trigger is not None and r.trigger not in span_ids:
            errors.append(f"the trigger {r.trigger} of {r.id} is not a span")
        head = r.type if r.trigger is None else f"{r.type}:{rename.get(r.trigger, r.trigger)}"
        args = " ".join(f"{tok(a.role, f'role in {r.id}')}:{ref(a.ref, f'{r.id} {a.role}')}" for a in r.args)
        canon = f"{head} {args}" if args else head
        put(r.extra, p, f"{rid}\t{_field2(canon, r.extra)}{_tail(r.extra)}")
        attrs: dict[str, Any] = dict(r.attributes)
        if r.label is not None and "label" not in attrs:
            attrs["label"] = str(r.label)
        for tag in r.tags:
            attrs.setdefault(tag, True)
        put_attrs(rid, r.id, attrs, r.extra.get("attrs") or {})
    groups: dict[str, list[Link]] = {}
    for lk in annotations.links:
        groups.setdefault(lk.group if lk.group is not None else f"\0{lk.id}", []).append(lk)
    for members_links in groups.values():
        for lk in members_links:
            for end in (lk.source, lk.target):
                if end not in span_ids:
                    errors.append(f"link {lk.id} ({lk.type}) joins {end}, which is not a span")
        first = members_links[0]
        if all(lk.source == first.source for lk in members_links):
            # a star from its first member: the exact member list of a brat * line
            ends = [first.source, *(lk.target for lk in members_links)]
        else:
            ends = list(dict.fromkeys(e for lk in members_links for e in (lk.source, lk.target)))
        members = [rename.get(e, e) for e in ends]
        extra = next((lk.extra for lk in members_links if lk.extra.get("line") is not None), first.extra)
        tok(first.type, f"type of link {first.id}")
        put(extra, "*", _star_line(first.type, members, extra))
    for nt in annotations.notes:
        nid = rename.get(nt.id, nt.id)
        tok(nt.type, f"type of note {nt.id}")
        line = _note_line(nid, nt.type, ref(nt.target, f"note {nt.id}"), nt.text, nt.extra)
        put(nt.extra, "#", line)
    for v in verbatim:
        ext, pos, raw = str(v[0]), v[1], str(v[2])
        out.setdefault(ext, []).append((pos, 0, 0, raw))
    if errors:
        raise InvalidInput(
            "cannot write standoff: "
            + "; ".join(errors[:10])
            + (f" (and {len(errors) - 10} more)" if len(errors) > 10 else "")
        )
    result: dict[str, str] = {}
    for ext, entries in out.items():
        opts: Mapping[str, Any] = (files_opts or {}).get(ext) or {}
        nl = opts.get("newline", "\n")
        entries.sort(key=lambda t: (t[0], t[1], t[2]))
        body = nl.join(t[3] for t in entries)
        if entries and opts.get("final_newline", True):
            body += nl
        if opts.get("bom"):
            body = "\ufeff" + body
        result[ext] = body
    return result


def format_document(document: Document, annotations: Annotations) -> dict[str, bytes]:
    """The bytes of ``<external_id>.txt`` and its annotation files, keyed by file name.

    Why apart from writing: an export formats every document first, so content standoff cannot
    hold is refused before any file is written.
    """
    name = document.external_id
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise InvalidInput(f"cannot use the external id {name!r} as a file name")
    contents = format_annotations(annotations)
    prefix = "\ufeff" if document.metadata.get("bom") else ""
    files = {f"{name}.txt": (prefix + document.text).encode("utf-8")}
    for ext, body in contents.items():
        files[f"{name}.{ext}"] = body.encode("utf-8")
    return files


def write_document(
    document: Document, annotations: Annotations, outdir: str | os.PathLike[str]
) -> list[Path]:
    """Write ``<external_id>.txt`` and its annotation files into ``outdir``; return the paths written.

    Bytes are written as they are (no newline translation), so a document read by
    :func:`read_document` comes back byte for byte.
    """
    files = format_document(document, annotations)
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in files.items():
        p = out / name
        p.write_bytes(data)
        paths.append(p)
    return paths
