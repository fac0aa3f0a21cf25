"""Reading an import in chunks, in worker processes when it is large, as rows ready to insert.

Why: parsing standoff is pure Python and costs about as much as inserting its rows. So the files are
read in chunks by worker processes, which also turn each chunk into plain row tuples
(``content.build_rows``), while the main process — the only one that touches the database — inserts
the chunks already read. Records never cross processes (pickling frozen dataclasses costs more than
parsing); tuples of strings and ints cross cheaply. Each task carries what a worker needs to sort its
documents without the database: the stored texts' hashes (a different text is a conflict) and the
documents on which the annotator already has a set (decided by the main process, by fingerprint).
Small imports, BioRelEx files and platforms without ``fork`` use the same chunk function in-process.

Memory: readers run at most ``AHEAD`` chunks per worker ahead of the writer, so an import holds a
bounded number of chunks whatever the size of the corpus (the corpus is never in memory at once).
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from multiprocessing.pool import AsyncResult
from typing import Any

from corpusdb.basics.errors import Problem
from corpusdb.basics.gcpause import gc_paused
from corpusdb.basics.records import Document, ParsedDocument
from corpusdb.interchange.schema_check import Found, SchemaUsage
from corpusdb.interchange.store import fingerprint
from corpusdb.services.content import ContentRows, build_rows
from corpusdb.services.documents import sha256_text
from guidelines.schema import Schema
from guidelines.standoff_fields import relation_fields
from importers.standoff import DocumentFiles


@dataclass(frozen=True, slots=True)
class Checks:
    """What an import checks each document against, besides the format.

    Why here: the schema is the project's contract. Names it does not know are refused unless
    ``allow_unknown`` (then stored as they are, with a warning per name); annotation sets stored as
    *submitted* pass the same check as ``submit`` (``guidelines.validate``), since submitting is what
    makes them visible to adjudication and agreement.
    """

    allow_unknown: bool = False
    submit: bool = False


NO_CHECKS = Checks(allow_unknown=True)
"""Format checks only (internal callers that validate otherwise)."""

CHUNK = 250
"""Documents per chunk at most: small enough to overlap reading and writing, large enough to batch
inserts."""


def chunk_size(n_documents: int) -> int:
    """Documents per chunk for an import of ``n_documents``: at least 16 chunks when there are enough
    documents, so that the writer starts soon (it waits for the first chunk) and finishes soon after
    the readers (it writes the last one alone); ``CHUNK`` at most."""
    return min(CHUNK, max(50, n_documents // 16))


PARALLEL_FROM = 1_000
"""Fewer documents than this are read in-process (starting workers would cost more than it saves)."""


@dataclass(frozen=True, slots=True)
class Held:
    """A document on which the annotator already has a set: the main process compares fingerprints."""

    external_id: str
    where: str
    fingerprint: bytes


@dataclass(slots=True)
class Chunk:
    """What one chunk of documents gives the writer."""

    size: int
    """Files (or sentences) this chunk covered, for progress."""
    documents: list[Document] = field(default_factory=list)
    """Documents whose new sets are in ``rows`` (stored already with the same text, or new)."""
    hashes: list[str | None] = field(default_factory=list)
    """The sha256 of each of ``documents``' texts (None: the writer hashes it), computed by the
    reader so that the writer, the import's bottleneck, does not."""
    headers: list[tuple[int, str, Mapping[str, Any]]] = field(default_factory=list)
    """``(set id, external id, set extra)`` of the new sets, in ``documents`` order."""
    rows: ContentRows = field(default_factory=ContentRows)
    held: list[Held] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    """The reader's problems of rejected files (their errors and warnings)."""
    rejected: list[str] = field(default_factory=list)
    conflicts: list[Problem] = field(default_factory=list)
    """Documents stored under the same id with another text."""
    warnings: list[str] = field(default_factory=list)
    """Warnings of accepted documents."""
    usage: Found = field(default_factory=dict)
    items: dict[str, int] = field(default_factory=dict)
    unknown: Found = field(default_factory=dict)
    """The names the schema does not define in the documents refused for them."""
    unknown_problems: list[Problem] = field(default_factory=list)
    """Those refusals, one per document and name, at the file and line of its first item."""
    failed_submit: int = 0
    """Documents refused by the submit check (their problems are in ``problems``)."""


@dataclass(frozen=True, slots=True)
class Task:
    """One chunk of brat files for a worker, with the facts it needs from the store."""

    files: tuple[DocumentFiles, ...]
    set_ids: tuple[int, ...]
    """A pre-allocated set id per entry of ``files`` (unused ones leave harmless gaps)."""
    keep_unknown: bool
    stored: Mapping[str, str]
    """External id → sha256 of the stored documents among these files."""
    held: frozenset[str]
    """External ids on which the annotator already has a set of this kind."""
    schema: Schema
    checks: Checks = NO_CHECKS


Locate = Callable[[ParsedDocument, str, str], tuple[str, int | None]]
"""``(document, item id, where the document is)`` -> the file and line to name in a problem."""


def _nowhere(_d: ParsedDocument, _item: str, loc: str) -> tuple[str, int | None]:
    return loc, None


SUBMIT_HINT = "import with --status in_progress to store them for correction, or --store-invalid"
"""Said once per refused import (not on every line): what to do about the submit check's refusals."""


def _check(
    d: ParsedDocument, loc: str, usage: SchemaUsage, checks: Checks, locate: Locate
) -> tuple[list[Problem], list[Problem]]:
    """Why a document may not be stored under the project's schema: the names it does not define,
    and the submit check's errors (both empty when it may), each at its item's file and line."""
    from guidelines.validate import errors, validate

    ext = d.document.external_id
    unknown = []
    if not checks.allow_unknown:
        unknown = [
            Problem(*locate(d, item, loc), f"document {ext}: {msg}") for item, msg in usage.unknown_in(d)
        ]
        unknown.sort(key=lambda p: (p.file, p.line or 0))
    submit = []
    if checks.submit:
        # unknown names are the check above's (refused, or allowed and listed as schema warnings)
        bad = [v for v in errors(validate(usage.schema, d.annotations, d.document.text))
               if not v.code.startswith("unknown-")]  # fmt: skip
        submit = [Problem(*locate(d, v.item_id if v.item_kind in ("span", "relation", "link") else "", loc),
                          f"document {ext}: {_violation(v)} (the submit check)") for v in bad]  # fmt: skip
    return unknown, submit


def _violation(v: Any) -> str:
    """A submit-check violation without its severity (the problem line says ``error:`` already)."""
    return f"{v.item_kind} {v.item_id}: {v.message}" if v.item_id else f"{v.item_kind}: {v.message}"


def _digest(text: str) -> str | None:
    """The text's sha256, or None when it is not valid Unicode (the writer then refuses it with the
    document's name, as ``upsert_documents`` does)."""
    try:
        return sha256_text(text)
    except UnicodeEncodeError:
        return None


def sort_documents(
    parsed: Sequence[ParsedDocument],
    set_ids: Sequence[int],
    where: Sequence[str],
    *,
    stored: Mapping[str, str],
    held: frozenset[str],
    schema: Schema,
    size: int,
    checked: bool = False,
    checks: Checks = NO_CHECKS,
    locate: Locate = _nowhere,
) -> Chunk:
    """Sort valid documents into new sets (as rows), held ones and conflicts; count schema mismatches;
    refuse the documents that break the schema (``checks``), naming where ``locate`` says each
    offending item is (default: the document's ``where``)."""
    out = Chunk(size)
    accepted: list[ParsedDocument] = []
    items = []
    checker = SchemaUsage(schema)
    refused = SchemaUsage(schema)
    for d, set_id, loc in zip(parsed, set_ids, where, strict=True):
        lifted = relation_fields(schema, d.annotations)  # brat's label/tag attributes, as written
        if lifted is not d.annotations:
            d = replace(d, annotations=lifted)
        ext = d.document.external_id
        sha = stored.get(ext)
        digest = _digest(d.document.text)
        if sha is not None and sha != digest:
            out.conflicts.append(
                Problem(loc, None, f"document {ext!r} is already stored with a different text (a document is "
                        "identified by its id and text hash)")
            )  # fmt: skip
            out.rejected.append(loc)
            continue
        unknown, submit = _check(d, loc, checker, checks, locate)
        if unknown or submit:
            out.unknown_problems.extend(unknown)
            out.problems.extend(submit)
            out.failed_submit += bool(submit)
            out.rejected.append(loc)
            if unknown:
                refused.add([d])
            continue
        out.warnings.extend(d.warnings)
        accepted.append(d)
        if ext in held:
            out.held.append(Held(ext, loc, fingerprint(d.annotations)))
            continue
        out.documents.append(d.document)
        out.hashes.append(digest)
        out.headers.append((set_id, ext, d.annotations.extra))
        items.append((set_id, d.annotations))
    usage = SchemaUsage(schema)
    usage.add(accepted)
    out.usage = usage.found
    out.unknown = refused.found
    out.rows = build_rows(items, checked=checked)
    out.items = out.rows.counts()
    return out


def read_chunk(task: Task) -> Chunk:
    """Read one chunk of brat files and sort them (runs in a worker process)."""
    from importers.standoff import read_documents
    from importers.standoff_where import item_line

    files = {f.source: f.anns for f in task.files}

    def locate(d: ParsedDocument, item: str, loc: str) -> tuple[str, int | None]:
        """The .ann/.a1/.a2 line of the item (the document's annotation file without one)."""
        anns = files.get(d.document.source, ())
        found = item_line(anns, item) if item else None
        return found if found is not None else (anns[-1] if anns else loc, None)

    with gc_paused():
        result = read_documents(task.files, keep_unknown=task.keep_unknown)
        by_source = {f.source: (sid, f.txt or "") for f, sid in zip(task.files, task.set_ids, strict=True)}
        placed = [by_source[d.document.source] for d in result.documents]
        out = sort_documents(
            result.documents,
            [sid for sid, _ in placed],
            [txt for _, txt in placed],
            stored=task.stored,
            held=task.held,
            schema=task.schema,
            size=len(task.files),
            checked=True,  # the standoff reader refuses unknown ids and duplicates itself
            checks=task.checks,
            locate=locate,
        )
    out.problems = [*result.problems, *out.problems]
    out.rejected = result.rejected + out.rejected
    return out


DOCUMENTS_PER_READER = 2_500
"""Documents per reader process: a mid-sized import (GENIA's 1,167 documents) reads with one."""


def workers_for(n_documents: int) -> int:
    """How many worker processes to read with: none for small imports, and none off Linux (``fork``
    starts workers at once with everything imported; it is unsafe on macOS and absent on Windows);
    otherwise one per ``DOCUMENTS_PER_READER`` documents, at least one and at most one per core (up
    to four), at a lower priority than the writer's when they would take its core (``lowered``).

    Why not one per core for every import: the writer holds a core, so the readers share the others,
    and chunks come out in order: two readers on one spare core each finish their first chunk at
    half speed, and the writer waits (or reads itself) meanwhile. On two cores GENIA (1,167
    documents) took 0.31 s with one reader and 0.34-0.40 s with two; a 10,000-document import, long
    enough for the second reader to use the writer's idle moments, is as fast or faster with two."""
    if n_documents < PARALLEL_FROM or not sys.platform.startswith("linux"):
        return 0
    cores = len(os.sched_getaffinity(0))  # the cores this process may use
    return max(1, min(4, cores, n_documents // DOCUMENTS_PER_READER))


READER_NICENESS = 10
"""How much lower the readers' priority is than the writer's (Unix ``nice``)."""


def _lower_priority() -> None:
    """Run in each reader as it starts. Why: the main process, the only writer, is the import's
    bottleneck; readers at the same priority took a third of its core on a two-core machine, so a
    10,000-document import took 11 s with two readers and 10.3 s with one. With lower priority they
    still read ahead on whatever the writer leaves, and the writer keeps its core (9.6 s)."""
    os.nice(READER_NICENESS)


def lowered(readers: int) -> bool:
    """Whether ``readers`` reader processes run at a lower priority: only when they and the writer
    are more processes than there are cores, i.e. when they would take the writer's core.

    Why not always: a reader with a core of its own takes nothing from the writer, and at a lower
    priority any other busy process on the machine starves it (the writer then reads nearly every
    chunk itself). GENIA (one reader, two cores, one other busy process): 0.63 s median unlowered,
    0.70 s lowered; on an idle machine the same (0.31 s)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return readers + 1 > cores


AHEAD = 2
"""Chunks each reader may have read (or be reading) ahead of the writer. Why a bound: readers are
faster than the writer on some machines (and always at the end of a run), and every chunk read
ahead is held in memory until written; two per reader keep them busy while the writer writes."""


STOLEN = 8
"""Chunks the writer may hold that it read itself while waiting for a reader's (memory bound)."""


def run(tasks: Sequence[Task], workers: int) -> Iterator[Chunk]:
    """The chunks in task order, read by ``workers`` processes ahead of the consumer (0: in-process),
    at most ``AHEAD`` chunks per worker (and ``STOLEN`` read by the consumer) ahead of it.

    The consumer (the writer) reads too when it would wait: if the next chunk is not ready, it reads
    the next task not yet handed out itself (up to ``STOLEN`` such chunks held; then it waits). Why:
    readers run at a lower priority, so on a busy machine other processes come first and the writer
    would sit idle; reading keeps the import going at the writer's own priority, and no chunk is
    read twice. On an idle machine the next chunk is mostly ready and the writer only writes."""
    if workers <= 0 or len(tasks) < 2:
        for t in tasks:
            yield read_chunk(t)
        return
    # fork: the workers start at once with everything imported; they never touch the database
    # connection the parent holds (a child process exits without closing it).
    n = min(workers, len(tasks))
    start = _lower_priority if lowered(n) else None
    with multiprocessing.get_context("fork").Pool(n, initializer=start) as pool:
        todo = iter(tasks)
        # in task order: a reader's pending result, or a chunk the writer read itself
        slots: deque[AsyncResult[Chunk] | Chunk] = deque(
            pool.apply_async(read_chunk, (t,)) for _, t in zip(range(n * AHEAD), todo, strict=False)
        )
        while slots:
            head = slots[0]
            if isinstance(head, AsyncResult) and not head.ready():
                held = sum(1 for x in slots if not isinstance(x, AsyncResult))
                nxt = next(todo, None) if held < STOLEN else None
                if nxt is not None:
                    slots.append(read_chunk(nxt))
                    continue
            slots.popleft()
            chunk = head.get() if isinstance(head, AsyncResult) else head
            nxt = next(todo, None)
            if nxt is not None:  # the next read starts before this chunk is written
                slots.append(pool.apply_async(read_chunk, (nxt,)))
            yield chunk
