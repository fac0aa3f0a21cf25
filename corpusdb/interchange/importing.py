"""One import run inside one write transaction: chunks of documents in, checked, written in bulk.

Why this shape: an import is all or nothing, and the user must see every problem of the run at once.
Chunks (read ahead by worker processes for large imports, see ``pipeline``) are written as they come
— documents, set headers and content with one bulk call each per chunk — until a problem shows that
the run will be refused; from then on the rest is only read, to list every problem, and the refusal
rolls the transaction back. Problems are: the reader's (file, line, message), an id read from two
files, a text that clashes with a stored document's, a set that clashes with a stored set.

Re-import policy: a set identical (as data) to the stored one is left alone, so importing the same
files twice changes nothing; a different set for the same annotator, kind and document is a conflict
unless ``replace`` is given, which replaces its content (and bumps its version) in the same
transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Connection

from corpusdb.basics.errors import Problem
from corpusdb.basics.records import ParsedDocument
from corpusdb.interchange import store
from corpusdb.interchange.pipeline import SUBMIT_HINT, Chunk, Held
from corpusdb.interchange.report import refusal
from corpusdb.interchange.schema_check import SchemaUsage, headline
from corpusdb.services import content
from corpusdb.services.documents import upsert_documents
from corpusdb.store import db
from guidelines.schema import Schema


@dataclass(frozen=True, slots=True)
class Target:
    """Whose sets an import makes."""

    annotator: str | None
    role: str
    kind: str
    status: str
    replace: bool
    lenient: bool


@dataclass(frozen=True, slots=True)
class Prepared:
    """What the chunk readers need from the store, looked up once inside the transaction."""

    stored: dict[str, str]
    """External id → sha256 of the documents already stored under the ids of this run."""
    held: frozenset[str]
    """External ids on which the annotator already has a set of this kind."""
    set_ids: list[int]
    """One pre-allocated set id per document of the run, in order."""


@dataclass(slots=True)
class Outcome:
    documents: int = 0
    documents_added: int = 0
    documents_existing: int = 0
    sets_created: int = 0
    sets_replaced: int = 0
    sets_unchanged: int = 0
    annotator_created: bool = False
    items: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    conflicts: list[Problem] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    schema_warnings: list[str] = field(default_factory=list)
    unknown_problems: list[Problem] = field(default_factory=list)
    """Documents refused for names the schema does not define (one per document and name)."""
    notes: list[str] = field(default_factory=list)
    """What to do about the refusals, said once (the schema's unknown names, the submit check)."""


Progress = Callable[[str, int, int | None], None]


def load(
    conn: Connection,
    *,
    project_id: int,
    guideline_version: int,
    schema: Schema,
    target: Target,
    external_ids: Sequence[str],
    chunks: Callable[[Prepared], Iterable[Chunk]],
    reread: Callable[[Held], ParsedDocument],
    problems: Sequence[Problem] = (),
    progress: Progress | None = None,
) -> Outcome:
    """Write the chunks ``chunks(prepared)`` yields for the documents ``external_ids``; raise the
    refusal (the caller's transaction then rolls back) unless ``target.lenient``."""
    out = Outcome(problems=list(problems))
    annotator_id = _annotator(conn, project_id, target, out)
    stored = store.stored_documents(conn, project_id, external_ids)
    by_doc = store.stored_sets(conn, [pk for pk, _sha in stored.values()], annotator_id, target.kind)
    held_sets = {ext: by_doc[pk] for ext, (pk, _sha) in stored.items() if pk in by_doc}
    prepared = Prepared(
        stored={ext: sha for ext, (_pk, sha) in stored.items()},
        held=frozenset(held_sets),
        set_ids=db.allocate_ids(conn, "annotation_set", len(external_ids)),
    )
    usage = SchemaUsage(schema)
    unknown = SchemaUsage(schema)
    failed_submit = 0
    items = dict.fromkeys(("spans", "relations", "links", "notes", "labels"), 0)
    to_replace: list[tuple[int, Held]] = []
    done = 0
    for chunk in chunks(prepared):
        out.problems += chunk.problems
        out.conflicts += chunk.conflicts
        out.rejected += chunk.rejected
        out.warnings += chunk.warnings
        usage.merge(chunk.usage)
        unknown.merge(chunk.unknown)
        out.unknown_problems += chunk.unknown_problems
        failed_submit += chunk.failed_submit
        to_replace += _sort_held(conn, chunk.held, held_sets, target, out)
        if not _refused(out, target):  # once refused, the rest is only read: every problem gets listed
            _write_chunk(conn, project_id, guideline_version, annotator_id, target, chunk, out, stored)
            for k, n in chunk.items.items():
                items[k] = items.get(k, 0) + n
        done += chunk.size
        if progress is not None:
            progress("importing", min(done, len(external_ids)), len(external_ids))
    said = headline(unknown.found, schema.name)
    out.notes = [said] if said else []
    if failed_submit:
        out.notes.append(f"{failed_submit} document(s) fail the submit check: {SUBMIT_HINT}")
    if _refused(out, target):
        raise refusal(
            out.problems, out.conflicts, out.warnings, unknown=out.unknown_problems, notes=out.notes
        )
    if to_replace:
        replaced = [(set_id, reread(h)) for set_id, h in to_replace]
        content.delete_annotations(conn, [set_id for set_id, _ in replaced])
        store.reset_set_headers(
            conn, [(sid, p.annotations.extra) for sid, p in replaced], status=target.status
        )
        rows = content.build_rows([(sid, p.annotations) for sid, p in replaced])
        content.insert_rows(conn, rows)
        for k, n in rows.counts().items():
            items[k] = items.get(k, 0) + n
        out.sets_replaced = len(replaced)
    out.items = items
    out.schema_warnings = usage.warnings()
    return out


def _refused(out: Outcome, target: Target) -> bool:
    return not target.lenient and (
        bool(out.conflicts or out.unknown_problems) or any(p.severity == "error" for p in out.problems)
    )


def _annotator(conn: Connection, project_id: int, target: Target, out: Outcome) -> int | None:
    if target.annotator is None:
        return None
    found = store.annotator_row(conn, project_id, target.annotator)
    if found is not None:
        return found[0]
    out.annotator_created = True
    return store.create_annotator(conn, project_id, target.annotator, target.role)


def _sort_held(
    conn: Connection, held: Sequence[Held], held_sets: dict[str, int], target: Target, out: Outcome
) -> list[tuple[int, Held]]:
    """Compare sets already stored with what was read: unchanged, to replace, or a conflict."""
    if not held:
        return []
    old = store.stored_contents(conn, [held_sets[h.external_id] for h in held])
    replace: list[tuple[int, Held]] = []
    for h in held:
        set_id = held_sets[h.external_id]
        if store.fingerprint(old[set_id]) == h.fingerprint:
            out.sets_unchanged += 1
            out.documents += 1
            out.documents_existing += 1
            if target.replace:  # same content; the status is still the one this import reports
                store.restatus(conn, [set_id], target.status)
        elif target.replace:
            replace.append((set_id, h))
            out.documents += 1
            out.documents_existing += 1
        else:
            who = "the gold set" if target.annotator is None else f"{target.annotator}'s {target.kind} set"
            out.conflicts.append(
                Problem(h.where, None, f"document {h.external_id!r} already has {who} (set {set_id}) with "
                        "different content; import with --replace to replace it")
            )  # fmt: skip
            out.rejected.append(h.where)
    return replace


def _write_chunk(
    conn: Connection,
    project_id: int,
    guideline_version: int,
    annotator_id: int | None,
    target: Target,
    chunk: Chunk,
    out: Outcome,
    stored: Mapping[str, tuple[int, str]],
) -> None:
    """``stored``: the run's documents stored before it began (looked up once, not per chunk: a
    document this run adds is in no other chunk)."""
    added = upsert_documents(conn, project_id, chunk.documents, chunk.hashes, stored=stored)
    store.insert_set_headers(
        conn,
        [(set_id, added.ids[ext], extra) for set_id, ext, extra in chunk.headers],
        annotator_id=annotator_id,
        kind=target.kind,
        status=target.status,
        guideline_version=guideline_version,
    )
    content.insert_rows(conn, chunk.rows)
    out.documents += len(chunk.documents)
    out.documents_added += added.added
    out.documents_existing += added.unchanged
    out.sets_created += len(chunk.headers)
