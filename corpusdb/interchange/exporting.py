"""The store side of an export: which sets a user may export, and where each brat file goes.

Why through ``access``: an export is a read of annotations like any other, so it asks the blindness
gate which sets this user may see — an annotator gets only their own; a lead gets an annotator's sets
only on documents whose annotation sets are all submitted. Sets asked for but hidden are counted,
never revealed.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import PurePosixPath

from sqlalchemy import Connection, select

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, Document, SetInfo
from corpusdb.services import access
from corpusdb.services.base import Actor
from corpusdb.services.sets import read_contents
from corpusdb.store import tables

D = tables.document


def choose_sets(
    conn: Connection,
    project_id: int,
    actor: Actor,
    *,
    annotator: str | None,
    gold: bool,
    kind: str | None,
    documents: Sequence[str] | None,
) -> tuple[list[SetInfo], int]:
    """The sets to export (one per document, in document order) and how many more are hidden."""
    if gold:
        if annotator is not None:
            raise UsageError("export either one annotator's sets (--annotator) or gold (--gold), not both")
        if kind not in (None, "gold"):
            raise UsageError(f"gold sets are of kind gold, not {kind}")
        kind = "gold"
    else:
        annotator = annotator if annotator is not None else actor.name
        if annotator is None:
            raise UsageError("name whose sets to export (--annotator NAME) or export gold (--gold)")
        if kind == "gold":
            raise UsageError("gold sets belong to no annotator: export them with --gold")
    if actor.role in ("annotator", "system") and (gold or annotator != actor.name):
        whose = "gold" if gold else f"{annotator}'s sets"
        raise PermissionDenied(
            f"{actor.label} may export only their own sets, not {whose} (annotation is double-blind)"
        )
    doc_ids = _document_ids(conn, project_id, documents) if documents is not None else None
    filters = {"document_ids": doc_ids, "kind": kind, "annotator": None if gold else annotator}
    infos = access.visible_sets(conn, project_id, actor, **filters)  # type: ignore[arg-type]
    hidden = len(access.set_headers(conn, project_id, actor, **filters)) - len(infos)  # type: ignore[arg-type]
    whose = "gold" if gold else f"{annotator}'s {kind or 'annotation/prediction'} sets"
    if not infos:
        if hidden:
            raise PermissionDenied(
                f"{whose}: all {hidden} are hidden until every annotator of their documents has submitted "
                "(double-blind annotation)"
            )
        raise NotFound(f"nothing to export: no {whose}" + (" on those documents" if documents else ""))
    twice = [ext for ext, n in Counter(i.document_external_id for i in infos).items() if n > 1]
    if twice:
        raise UsageError(
            f"{annotator} has several sets (annotation and prediction) on {len(twice)} documents, e.g. "
            f"{twice[0]!r}: choose one with --kind"
        )
    infos.sort(key=lambda i: i.document_id)
    return infos, hidden


def _document_ids(conn: Connection, project_id: int, external_ids: Sequence[str]) -> list[int]:
    wanted = list(dict.fromkeys(external_ids))
    found: dict[str, int] = {}
    for i in range(0, len(wanted), 500):
        q = select(D.c.external_id, D.c.id).where(
            D.c.project_id == project_id, D.c.external_id.in_(wanted[i : i + 500])
        )
        found.update({ext: int(pk) for ext, pk in conn.execute(q)})
    missing = [e for e in wanted if e not in found]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise NotFound(f"no document {missing[0]!r} in this project{more}")
    return [found[e] for e in wanted]


def load_for_export(conn: Connection, infos: Sequence[SetInfo]) -> list[tuple[Document, Annotations]]:
    """Documents and set contents, in the order of ``infos`` (already cleared by the gate)."""
    docs: dict[int, Document] = {}
    ids = [i.document_id for i in infos]
    for k in range(0, len(ids), 500):
        q = select(D.c.id, D.c.external_id, D.c.text, D.c.source, D.c.meta, D.c.group_key, D.c.split).where(
            D.c.id.in_(ids[k : k + 500])
        )
        for pk, ext, text, source, meta, group, split in conn.execute(q):
            docs[pk] = Document(ext, text, source or "", meta or {}, group, split)
    sets = read_contents(conn, infos)
    return [(docs[i.document_id], s.annotations) for i, s in zip(infos, sets, strict=True)]


def brat_folder(doc: Document) -> str:
    """The subfolder a document was imported from, relative to the imported directory (``train``),
    so an export reproduces the tree that was imported; '' for documents not read from brat."""
    parts = PurePosixPath(doc.source).parts
    if len(parts) < 3 or parts[-1] != f"{doc.external_id}.txt" or doc.source.startswith("/"):
        return ""
    folder = parts[1:-1]
    if any(p in ("", ".", "..") for p in folder):
        return ""
    return "/".join(folder)


def plan_brat_files(
    items: Sequence[tuple[Document, Annotations]], flat: bool, cluster_type: str | None = None
) -> tuple[dict[str, bytes], list[str]]:
    """Relative path → bytes of every file to write, and what brat could not express, counted (left
    out: names without a mention, groundings with a space...: ``standoff.expressible``). Refuses (before
    writing anything) two documents that would land on the same file, or content no brat file can be
    made of. ``cluster_type``: the link type an entity without one is drawn with (the schema's)."""
    from importers.standoff import expressible, format_document, left_out_notes

    files: dict[str, bytes] = {}
    errors: list[str] = []
    lost: Counter[str] = Counter()
    for doc, ann in items:
        folder = "" if flat else brat_folder(doc)
        try:
            safe, left = expressible(ann, cluster_type)
            lost.update(left)
            named = format_document(doc, safe)
        except InvalidInput as err:
            errors.append(f"{doc.external_id}: {err}")
            continue
        for name, data in named.items():
            rel = f"{folder}/{name}" if folder else name
            if rel in files:
                errors.append(f"{doc.external_id}: {rel} would be written twice")
            files[rel] = data
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise InvalidInput(f"cannot export as brat: {errors[0]}{more}")
    return files, left_out_notes(lost)


def write_files(outdir: str | os.PathLike[str], files: dict[str, bytes], *, overwrite: bool) -> list[str]:
    """Write every file under ``outdir``; existing files are an error unless ``overwrite``."""
    root = os.fspath(outdir)
    if not overwrite:
        clash = [rel for rel in files if os.path.exists(os.path.join(root, rel))]
        if clash:
            more = f" (and {len(clash) - 1} more)" if len(clash) > 1 else ""
            raise Conflict(f"{os.path.join(root, clash[0])} exists{more}; pass --overwrite to overwrite it")
    written: list[str] = []
    made: set[str] = set()
    for rel, data in files.items():
        path = os.path.join(root, rel)
        folder = os.path.dirname(path)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        with open(path, "wb") as fh:
            fh.write(data)
        written.append(path)
    return written
