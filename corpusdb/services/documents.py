"""Documents: added idempotently (external id + text hash), listed, split, grouped."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, exists, func, select

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.names import check_name
from corpusdb.basics.records import Document, DocumentInfo
from corpusdb.services.base import ServiceBase, utcnow_aware
from corpusdb.store import db, tables

D = tables.document
S = tables.annotation_set
DOC_COLS = (
    "id",
    "project_id",
    "external_id",
    "text",
    "sha256",
    "source",
    "meta",
    "group_key",
    "split",
    "created",
)


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class DocumentsAdded:
    added: int
    unchanged: int
    ids: dict[str, int]
    """external id → document id, for every document given."""


def _text_hash(d: Document) -> str:
    try:
        return sha256_text(d.text)
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"document {d.external_id!r}: its text is not valid Unicode ({exc.reason})"
        ) from None


def _metadata_json(d: Document) -> str:
    """The metadata as JSON that reads back as it was: no NaN/Infinity, no lone surrogates."""
    import json

    try:
        text = json.dumps(dict(d.metadata), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")
    except (TypeError, ValueError, RecursionError) as exc:  # UnicodeEncodeError is a ValueError
        raise InvalidInput(
            f"document {d.external_id!r}: its metadata cannot be stored as JSON ({exc})"
        ) from None
    return text


def upsert_documents(
    conn: Connection,
    project_id: int,
    docs: Sequence[Document],
    hashes: Sequence[str | None] = (),
    *,
    stored: Mapping[str, tuple[int, str]] | None = None,
) -> DocumentsAdded:
    """Add documents not yet present; the same id with the same text is a no-op; the same id with a
    different text is a Conflict listing every such document (nothing is written then).

    ``hashes``: the texts' sha256 where the caller has them (an import's readers hash in their own
    processes, so the writer does not hash every text again); None or missing ones are computed.
    ``stored``: external id → (document id, sha256) of the stored documents among ``docs``, looked up
    by the caller in this same write transaction (an import looks its ids up once, not per chunk);
    None: looked up here."""
    seen: dict[str, str] = {}
    for i, d in enumerate(docs):
        check_name(d.external_id, "document id")
        if d.split is not None:
            check_name(d.split, "split name")
        h = (hashes[i] if i < len(hashes) else None) or _text_hash(d)
        if d.external_id in seen and seen[d.external_id] != h:
            raise Conflict(f"document {d.external_id!r} is given twice with different texts")
        seen[d.external_id] = h
    existing: dict[str, tuple[int, str]] = {}
    ids_wanted = [] if stored is not None else list(seen)
    if stored is not None:
        existing = {ext: stored[ext] for ext in seen if ext in stored}
    for i in range(0, len(ids_wanted), 500):
        chunk = ids_wanted[i : i + 500]
        for pk, ext, sha in conn.execute(
            select(D.c.id, D.c.external_id, D.c.sha256).where(
                D.c.project_id == project_id, D.c.external_id.in_(chunk)
            )
        ):
            existing[ext] = (pk, sha)
    clashes = [ext for ext, (_pk, sha) in existing.items() if sha != seen[ext]]
    if clashes:
        raise Conflict(
            f"{len(clashes)} document(s) already exist with a different text under the same id: "
            + ", ".join(sorted(clashes)[:10])
            + (" ..." if len(clashes) > 10 else "")
        )
    new_docs: list[Document] = []
    done: set[str] = set()
    for d in docs:
        if d.external_id not in existing and d.external_id not in done:
            new_docs.append(d)
            done.add(d.external_id)
    pks = db.allocate_ids(conn, "document", len(new_docs))
    now = utcnow_aware()
    now_val = db.timestamp_param(conn, now)
    rows = [
        (
            pk, project_id, d.external_id, d.text, seen[d.external_id], d.source,
            _metadata_json(d) if d.metadata else None,
            d.group_key, d.split, now_val,
        )
        for pk, d in zip(pks, new_docs, strict=True)
    ]  # fmt: skip
    db.executemany(conn, "document", DOC_COLS, rows)
    ids = {ext: pk for ext, (pk, _sha) in existing.items()}
    ids.update({d.external_id: pk for pk, d in zip(pks, new_docs, strict=True)})
    return DocumentsAdded(added=len(new_docs), unchanged=len(existing), ids=ids)


def _info(r: object, with_text: bool = True) -> DocumentInfo:
    return DocumentInfo(
        id=r.id,  # type: ignore[attr-defined]
        external_id=r.external_id,  # type: ignore[attr-defined]
        text=r.text if with_text else "",  # type: ignore[attr-defined]
        sha256=r.sha256,  # type: ignore[attr-defined]
        source=r.source,  # type: ignore[attr-defined]
        metadata=r.meta or {},  # type: ignore[attr-defined]
        group_key=r.group_key,  # type: ignore[attr-defined]
        split=r.split,  # type: ignore[attr-defined]
    )


class DocumentsMixin(ServiceBase):
    """Adding and listing documents. Annotators see only the documents assigned to them."""

    def add_documents(self, docs: Iterable[Document]) -> DocumentsAdded:
        self._require("lead", doing="add documents")
        docs = list(docs)
        with self._write() as conn:
            res = upsert_documents(conn, self.project_id, docs)
            if res.added:
                self._audit(conn, "add_documents", "", added=res.added, unchanged=res.unchanged)
        return res

    def add_document(self, doc: Document) -> DocumentInfo:
        self.add_documents([doc])
        return self.document(doc.external_id)

    def _doc_query(self, with_text: bool, head: int = 0):  # type: ignore[no-untyped-def]
        cols = [D.c.id, D.c.external_id, D.c.sha256, D.c.source, D.c.meta, D.c.group_key, D.c.split]
        if head > 0:  # the text's beginning only (a list's preview column), cut by the database
            cols.append(func.substr(D.c.text, 1, head).label("text"))
        elif with_text:
            cols.append(D.c.text)
        q = select(*cols).where(D.c.project_id == self.project_id)
        if self.actor.role in ("annotator", "system"):
            q = q.where(exists().where(S.c.document_id == D.c.id, S.c.annotator_id == self.actor.id))
        return q

    def documents(
        self,
        *,
        split: str | None = None,
        external_ids: Sequence[str] | None = None,
        with_text: bool = True,
        head: int = 0,
    ) -> list[DocumentInfo]:
        """Documents in external-id order; ``with_text=False`` leaves text empty (cheap listings),
        ``head=N`` holds only the text's first N characters (a preview)."""
        with_text = with_text or head > 0
        q = self._doc_query(with_text, head)
        if split is not None:
            q = q.where(D.c.split == split)
        out: list[DocumentInfo] = []
        with self._read() as conn:
            if external_ids is None:
                out = [_info(r, with_text) for r in conn.execute(q.order_by(D.c.external_id))]
            else:
                wanted = list(external_ids)
                for i in range(0, len(wanted), 500):
                    out += [
                        _info(r, with_text)
                        for r in conn.execute(q.where(D.c.external_id.in_(wanted[i : i + 500])))
                    ]
                found = {d.external_id for d in out}
                missing = [e for e in wanted if e not in found]
                if missing:
                    raise NotFound(
                        f"no document {missing[0]!r} in this project"
                        + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
                    )
                out.sort(key=lambda d: d.external_id)
        return out

    def document(self, external_id: str | int) -> DocumentInfo:
        """One document by external id (or by numeric id)."""
        q = self._doc_query(True)
        q = (
            q.where(D.c.id == external_id)
            if isinstance(external_id, int)
            else q.where(D.c.external_id == external_id)
        )
        with self._read() as conn:
            row = conn.execute(q).first()
        if row is None:
            if self.actor.role in ("annotator", "system"):
                raise PermissionDenied(f"document {external_id!r} is not assigned to {self.actor.label}")
            raise NotFound(f"no document {external_id!r} in this project")
        return _info(row)

    def count_documents(self) -> int:
        with self._read() as conn:
            return len(conn.execute(self._doc_query(False)).all())
