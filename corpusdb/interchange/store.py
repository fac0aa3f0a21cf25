"""The store side of an import: the few bulk statements one import transaction is made of.

Why here and not in ``sets.py``: ``sets.insert_set`` makes one set per call (a check and an
``INSERT ... RETURNING``), which is right for a user action but costs a round trip per document; an
import creates thousands of headers at once, so it allocates their ids and writes them with one
``executemany``. Every function runs inside the caller's write transaction and commits nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import orjson
from sqlalchemy import Connection, insert, select, update

from corpusdb.basics.records import Annotations
from corpusdb.services import content
from corpusdb.services.base import utcnow_aware
from corpusdb.store import db, tables

S = tables.annotation_set
D = tables.document
A = tables.annotator
SET_COLS = ("id", "document_id", "annotator_id", "kind", "status", "guideline_version", "version", "extra",
            "created", "updated", "submitted")  # fmt: skip
_CHUNK = 500


def _chunks(seq: Sequence[Any]) -> Iterable[Sequence[Any]]:
    for i in range(0, len(seq), _CHUNK):
        yield seq[i : i + _CHUNK]


def annotator_row(conn: Connection, project_id: int, name: str) -> tuple[int, str] | None:
    """``(id, role)`` of the named annotator, or None."""
    row = conn.execute(select(A.c.id, A.c.role).where(A.c.project_id == project_id, A.c.name == name)).first()
    return None if row is None else (int(row[0]), str(row[1]))


def create_annotator(conn: Connection, project_id: int, name: str, role: str) -> int:
    return int(
        conn.execute(
            insert(A)
            .values(project_id=project_id, name=name, role=role, created=utcnow_aware())
            .returning(A.c.id)
        ).scalar_one()
    )


def stored_documents(
    conn: Connection, project_id: int, external_ids: Sequence[str]
) -> dict[str, tuple[int, str]]:
    """external id → (document id, sha256) for those already in the project."""
    out: dict[str, tuple[int, str]] = {}
    for chunk in _chunks(list(external_ids)):
        for pk, ext, sha in conn.execute(
            select(D.c.id, D.c.external_id, D.c.sha256).where(
                D.c.project_id == project_id, D.c.external_id.in_(chunk)
            )
        ):
            out[ext] = (int(pk), sha)
    return out


def stored_sets(
    conn: Connection, document_ids: Sequence[int], annotator_id: int | None, kind: str
) -> dict[int, int]:
    """document id → id of the set this annotator (None: gold) already has there, of this kind."""
    out: dict[int, int] = {}
    owner = S.c.annotator_id.is_(None) if annotator_id is None else S.c.annotator_id == annotator_id
    for chunk in _chunks(list(document_ids)):
        for set_id, doc_id in conn.execute(
            select(S.c.id, S.c.document_id).where(S.c.document_id.in_(chunk), S.c.kind == kind, owner)
        ):
            out[int(doc_id)] = int(set_id)
    return out


def _extra_json(extra: Mapping[str, Any]) -> str | None:
    return orjson.dumps(dict(extra)).decode() if extra else None


def insert_set_headers(
    conn: Connection,
    items: Sequence[tuple[int, int, Mapping[str, Any]]],
    *,
    annotator_id: int | None,
    kind: str,
    status: str,
    guideline_version: int,
) -> None:
    """New set headers for ``(set id, document id, set extra)`` triples, ids allocated beforehand
    (``db.allocate_ids``) so that a worker can key the sets' content before they exist."""
    now = db.timestamp_param(conn, utcnow_aware())
    submitted = now if status == "submitted" else None
    rows = [
        (
            set_id,
            doc_id,
            annotator_id,
            kind,
            status,
            guideline_version,
            1,
            _extra_json(extra),
            now,
            now,
            submitted,
        )
        for set_id, doc_id, extra in items
    ]
    db.executemany(conn, "annotation_set", SET_COLS, rows)


def reset_set_headers(
    conn: Connection, items: Sequence[tuple[int, Mapping[str, Any]]], *, status: str
) -> None:
    """After replacing their content: new extra and status, version + 1 (optimistic locking sees it)."""
    now = utcnow_aware()
    for set_id, extra in items:
        conn.execute(
            update(S)
            .where(S.c.id == set_id)
            .values(
                version=S.c.version + 1,
                extra=dict(extra) or None,
                status=status,
                updated=now,
                submitted=now if status == "submitted" else None,
            )
        )


def restatus(conn: Connection, set_ids: Sequence[int], status: str) -> None:
    """Give sets ``status`` where they have another one (version + 1), their content untouched."""
    now = utcnow_aware()
    for chunk in _chunks(list(set_ids)):
        conn.execute(
            update(S)
            .where(S.c.id.in_(chunk), S.c.status != status)
            .values(version=S.c.version + 1, status=status, updated=now,
                    submitted=now if status == "submitted" else None)
        )  # fmt: skip


def stored_contents(conn: Connection, set_ids: Sequence[int]) -> dict[int, Annotations]:
    """The content of sets (with their set-level extra), for the no-op check of a re-import."""
    body = content.load_many(conn, set_ids)
    out: dict[int, Annotations] = {}
    for chunk in _chunks(list(set_ids)):
        for pk, extra in conn.execute(select(S.c.id, S.c.extra).where(S.c.id.in_(chunk))):
            a = body[pk]
            out[pk] = replace(a, extra=extra or {})
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(type(value).__name__)


def fingerprint(ann: Annotations) -> bytes:
    """Canonical JSON of a set's content: equal iff the records are equal as data (tuples and lists,
    key order aside), so what was stored and what is read again compare reliably."""
    return orjson.dumps(ann, default=_plain, option=orjson.OPT_SORT_KEYS)
