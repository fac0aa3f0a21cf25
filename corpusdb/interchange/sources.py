"""The input of one import, per format: which documents, and how to read them in chunks.

Why apart from ``importing``: the writer does not care where documents come from. A brat directory
is listed first (without reading) so that its documents can be read in chunks by worker processes; a
BioRelEx file is one JSON document, read at once and handed over as a single chunk.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from corpusdb.basics.errors import Problem, UsageError
from corpusdb.basics.names import name_problem
from corpusdb.basics.records import ParsedDocument
from corpusdb.interchange import pipeline
from corpusdb.interchange.importing import Prepared
from corpusdb.interchange.pipeline import NO_CHECKS, Checks, Chunk, Held, Task
from guidelines.schema import Schema
from importers.standoff import DocumentFiles, ReadResult


@dataclass
class Source:
    """What ``importing.load`` needs: the documents' ids, their chunks, and problems found up front."""

    external_ids: list[str]
    chunks: Callable[[Prepared], Iterable[Chunk]]
    reread: Callable[[Held], ParsedDocument]
    """The full records of one held document (only needed to replace a stored set)."""
    problems: list[Problem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


def _stem(f: DocumentFiles) -> str:
    return f.source.rpartition("/")[2][:-4]


def brat_source(path: str, *, keep_unknown: bool, schema: Schema, workers: int | None = None,
                checks: Checks = NO_CHECKS) -> Source:  # fmt: skip
    """A brat/BioNLP directory (recursively) or one ``.txt`` file. ``workers``: None chooses by size."""
    from importers.standoff import find_documents, read_document

    if os.path.isfile(path):
        if not path.endswith(".txt"):
            raise UsageError(f"{path}: give a directory, or a document's .txt file")
        folder, name = os.path.split(path)
        found = [
            f
            for f in find_documents(folder or ".", recursive=False)
            if f.txt is not None and _stem(f) == name[:-4]
        ]
    else:
        found = find_documents(path)
    # A project holds one document per id (the file stem): a name reused in another folder is a problem.
    first: dict[str, str] = {}
    files: list[DocumentFiles] = []
    out = Source([], lambda _p: (), lambda h: read_document(h.where, keep_unknown=keep_unknown))
    for f in found:
        bad = name_problem(_stem(f), "document id") if f.txt is not None else None
        if bad is not None:
            out.problems.append(Problem(f.txt, None, f"{bad}: rename the file"))  # type: ignore[arg-type]
            out.rejected.append(f.txt)  # type: ignore[arg-type]
            continue
        if f.txt is not None and _stem(f) in first:
            out.problems.append(
                Problem(f.txt, None, f"document id {_stem(f)!r} is already read from {first[_stem(f)]}; a project "
                        "holds one document per id: import such folders separately, into different projects")
            )  # fmt: skip
            out.rejected.append(f.txt)
            continue
        if f.txt is not None:
            first[_stem(f)] = f.txt
            out.external_ids.append(_stem(f))
        files.append(f)
    n_workers = pipeline.workers_for(len(out.external_ids)) if workers is None else workers

    def chunks(prep: Prepared) -> Iterable[Chunk]:
        ids = iter(prep.set_ids)
        tasks = []
        size = pipeline.chunk_size(len(files))
        for i in range(0, len(files), size):
            part = tuple(files[i : i + size])
            stems = [_stem(f) for f in part if f.txt is not None]
            tasks.append(
                Task(
                    files=part,
                    set_ids=tuple(next(ids) if f.txt is not None else 0 for f in part),
                    keep_unknown=keep_unknown,
                    stored={s: prep.stored[s] for s in stems if s in prep.stored},
                    held=frozenset(s for s in stems if s in prep.held),
                    schema=schema,
                    checks=checks,
                )
            )
        return pipeline.run(tasks, n_workers)

    out.chunks = chunks
    return out


def read_source(
    path: str,
    result: ReadResult,
    *,
    unit: str,
    schema: Schema,
    checks: Checks = NO_CHECKS,
    up_front: bool = True,
) -> Source:
    """An import source over documents already read (one chunk): every one-file format, and BioRelEx.

    ``unit`` names a document in the problems (``document``, ``sentence``); a problem found after
    reading names the line where its document starts. The reader's own problems and rejected ids are
    the source's up-front ones (``up_front``) or come first in the chunk's (BioRelEx).
    """
    docs = result.documents
    by_id = {d.document.external_id: d for d in docs}
    line_of = result.line_of or (lambda _ext: None)

    def locate(d: ParsedDocument, _item: str, _loc: str) -> tuple[str, int | None]:
        return path, line_of(d.document.external_id)  # the line where the document starts

    def chunks(prep: Prepared) -> Iterable[Chunk]:
        where = [f"{path} ({unit} {d.document.external_id})" for d in docs]
        chunk = pipeline.sort_documents(
            docs,
            prep.set_ids,
            where,
            stored=prep.stored,
            held=prep.held,
            schema=schema,
            size=len(docs),
            checks=checks,
            locate=locate,
        )
        ids = dict(zip(where, by_id, strict=True))
        rejected = [ids[w] for w in chunk.rejected]  # document (sentence) ids, as the reader's
        if up_front:
            chunk.rejected = rejected
        else:
            chunk.problems = [*result.problems, *chunk.problems]
            chunk.rejected = [*result.rejected, *rejected]
        return [chunk]

    def reread(h: Held) -> ParsedDocument:
        return by_id[h.external_id]

    if up_front:
        return Source(list(by_id), chunks, reread, list(result.problems), list(result.rejected))
    return Source(list(by_id), chunks, reread)


def biorelex_source(path: str, *, schema: Schema, checks: Checks = NO_CHECKS) -> Source:
    """A BioRelEx JSON file: one document per sentence, read at once (invalid sentences listed)."""
    from importers.biorelex import read_biorelex_lenient

    result = read_biorelex_lenient(path)
    return read_source(path, result, unit="sentence", schema=schema, checks=checks, up_front=False)
