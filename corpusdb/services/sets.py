"""Annotation sets: create, list, read and write one set as plain records.

Every read goes through ``corpusdb.services.access`` (blindness). Every write names the version it read
(optimistic locking): a stale writer gets ``StaleVersion`` and its change is not applied, so it can
reload and re-apply — nothing is silently overwritten.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Connection, insert, select, update

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, StaleVersion
from corpusdb.basics.records import SET_KINDS, SET_STATUSES, Annotations, AnnotationSet, SetInfo
from corpusdb.services import access, content, undo
from corpusdb.services.base import ServiceBase, utcnow_aware
from corpusdb.services.edits import Change, Mark, Put, apply_changes, refuse_groundings
from corpusdb.store import tables
from guidelines.schema import schema_from_dict

S = tables.annotation_set
D = tables.document
A = tables.annotator
G = tables.guideline


@dataclass(frozen=True, slots=True)
class EditResult:
    """The set after an edit, and the changes that undo it."""

    info: SetInfo
    annotations: Annotations
    inverse: tuple[Change, ...]


def current_guideline_version(conn: Connection, project_id: int) -> int:
    from sqlalchemy import func

    return int(conn.execute(select(func.max(G.c.version)).where(G.c.project_id == project_id)).scalar_one())


def document_id(conn: Connection, project_id: int, document: str | int) -> int:
    q = select(D.c.id).where(D.c.project_id == project_id)
    q = q.where(D.c.id == document) if isinstance(document, int) else q.where(D.c.external_id == document)
    pk = conn.execute(q).scalar_one_or_none()
    if pk is None:
        raise NotFound(f"no document {document!r} in this project")
    return int(pk)


def annotator_id(conn: Connection, project_id: int, name: str) -> int:
    pk = conn.execute(
        select(A.c.id).where(A.c.project_id == project_id, A.c.name == name)
    ).scalar_one_or_none()
    if pk is None:
        raise NotFound(f"no annotator named {name!r} in this project")
    return int(pk)


def insert_set(
    conn: Connection,
    *,
    document_id: int,
    annotator_id: int | None,
    kind: str,
    status: str,
    guideline_version: int,
    extra: dict[str, Any] | None = None,
    seeded_from: int | None = None,
) -> int:
    """Insert an empty set header; Conflict if that annotator already has one for the document."""
    if kind not in SET_KINDS:
        raise InvalidInput(f"set kind {kind!r} is not one of {', '.join(SET_KINDS)}")
    if status not in SET_STATUSES:
        raise InvalidInput(f"set status {status!r} is not one of {', '.join(SET_STATUSES)}")
    q = select(S.c.id).where(S.c.document_id == document_id, S.c.kind == kind)
    q = (
        q.where(S.c.annotator_id.is_(None))
        if annotator_id is None
        else q.where(S.c.annotator_id == annotator_id)
    )
    if conn.execute(q).first() is not None:
        who = "the gold set" if kind == "gold" else f"a {kind} set for that annotator"
        raise Conflict(f"document {document_id} already has {who}")
    now = utcnow_aware()
    return int(
        conn.execute(
            insert(S)
            .values(
                document_id=document_id,
                annotator_id=annotator_id,
                kind=kind,
                status=status,
                guideline_version=guideline_version,
                version=1,
                extra=extra or None,
                seeded_from=seeded_from,
                created=now,
                updated=now,
                submitted=now if status == "submitted" else None,
            )
            .returning(S.c.id)
        ).scalar_one()
    )


def lock_set(conn: Connection, set_id: int) -> int | None:
    """Take the set's row lock for the rest of this write transaction; returns its current version.

    Why: on PostgreSQL (read committed) two writers of one set would both delete and re-insert its
    content, and the loser would fail on a unique index instead of the version check. Locking the
    row first makes the loser wait for the winner's commit, then read the new version and get
    ``StaleVersion``. On SQLite ``BEGIN IMMEDIATE`` already serialises writers (``FOR UPDATE`` is
    not rendered there).
    """
    return conn.execute(select(S.c.version).where(S.c.id == set_id).with_for_update()).scalar_one_or_none()


def bump_version(conn: Connection, set_id: int, expected: int | None, **values: Any) -> int:
    """Advance the set's version (checking ``expected`` when given) and set ``values``."""
    cur = conn.execute(select(S.c.version).where(S.c.id == set_id)).scalar_one()
    if expected is not None and cur != expected:
        raise StaleVersion(set_id, expected, cur)
    res = conn.execute(
        update(S)
        .where(S.c.id == set_id, S.c.version == cur)
        .values(version=cur + 1, updated=utcnow_aware(), **values)
    )
    if res.rowcount != 1:  # another writer got in between (only possible without BEGIN IMMEDIATE)
        now = conn.execute(select(S.c.version).where(S.c.id == set_id)).scalar_one()
        raise StaleVersion(set_id, cur, now)
    return int(cur + 1)


def _check_groundings(
    conn: Connection, project_id: int, info: SetInfo, current: Annotations, changes: Sequence[Change]
) -> None:
    """Refuse groundings the set's guideline version does not allow (read only when an edit
    carries groundings at all: most edits do not, and they pay nothing)."""
    if not any(isinstance(c, Put) and getattr(c.item, "groundings", ()) for c in changes):
        return
    data = conn.execute(
        select(G.c.schema_data).where(G.c.project_id == project_id, G.c.version == info.guideline_version)
    ).scalar_one_or_none()
    if data is None:
        return
    schema = schema_from_dict(data)
    refuse_groundings(current, changes, schema.rules, schema.name)


def load_set_extra(conn: Connection, set_ids: Sequence[int]) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    ids = list(set_ids)
    for i in range(0, len(ids), 500):
        for pk, extra in conn.execute(select(S.c.id, S.c.extra).where(S.c.id.in_(ids[i : i + 500]))):
            out[pk] = extra or {}
    return out


def read_contents(conn: Connection, infos: Sequence[SetInfo]) -> list[AnnotationSet]:
    """Content of sets already cleared by the gate, with their set-level extras."""
    ids = [i.id for i in infos]
    body = content.load_many(conn, ids)
    extras = load_set_extra(conn, ids)
    out = []
    for info in infos:
        ann = body[info.id]
        ext = extras.get(info.id) or {}
        if ext:
            ann = replace(ann, extra=ext)
        out.append(AnnotationSet(info, ann))
    return out


class SetsMixin(ServiceBase):
    """One annotation set at a time, as records, through the blindness gate."""

    # -- creating --------------------------------------------------------------------------------
    def create_set(
        self,
        document: str | int,
        annotator: str | None,
        *,
        kind: str = "annotation",
        status: str = "assigned",
        annotations: Annotations | None = None,
    ) -> SetInfo:
        """A new set for ``annotator`` (None for gold) on ``document``, optionally with content."""
        if kind == "gold":
            self._require("lead", "adjudicator", doing="create a gold set")
            if annotator is not None:
                raise InvalidInput("the gold set belongs to the adjudication: give no annotator")
        else:
            self._require("lead", doing="create annotation sets")
            if annotator is None:
                raise InvalidInput(f"a {kind} set needs an annotator")
        with self._write() as conn:
            doc_id = document_id(conn, self.project_id, document)
            ann_id = annotator_id(conn, self.project_id, annotator) if annotator is not None else None
            set_id = insert_set(
                conn,
                document_id=doc_id,
                annotator_id=ann_id,
                kind=kind,
                status=status,
                guideline_version=current_guideline_version(conn, self.project_id),
                extra=dict(annotations.extra) if annotations and annotations.extra else None,
            )
            if annotations is not None:
                content.insert_annotations(conn, set_id, annotations)
            self._audit(
                conn, "create_set", str(set_id), document=str(document), annotator=annotator, kind=kind
            )
            return self._header(conn, set_id)

    def _header(self, conn: Connection, set_id: int) -> SetInfo:
        rows = access.set_headers(conn, self.project_id, self.actor, set_ids=[set_id])
        if not rows:
            raise NotFound(f"no annotation set {set_id} visible here")
        return rows[0]

    # -- reading ---------------------------------------------------------------------------------
    def sets(
        self,
        *,
        document: str | int | None = None,
        annotator: str | None = None,
        kind: str | None = None,
        status: str | None = None,
    ) -> list[SetInfo]:
        """Sets whose content this user may read (an annotator: only their own)."""
        return self._list(access.visible_sets, document, annotator=annotator, kind=kind, status=status)

    def set_headers(
        self,
        *,
        document: str | int | None = None,
        annotator: str | None = None,
        kind: str | None = None,
        status: str | None = None,
    ) -> list[SetInfo]:
        """Who has which set in which status: for progress views (no content, no counts)."""
        return self._list(access.set_headers, document, annotator=annotator, kind=kind, status=status)

    def _list(
        self, gate: Callable[..., list[SetInfo]], document: str | int | None, **filters: Any
    ) -> list[SetInfo]:
        with self._read() as conn:
            docs = [document_id(conn, self.project_id, document)] if document is not None else None
            return gate(conn, self.project_id, self.actor, document_ids=docs, **filters)

    def read_set(self, set_id: int) -> AnnotationSet:
        """One set's header and content, or PermissionDenied (blindness) / NotFound."""
        with self._read() as conn:
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            return read_contents(conn, [info])[0]

    def read_sets(self, set_ids: Sequence[int]) -> list[AnnotationSet]:
        """Many sets at once (each must be readable, else PermissionDenied for the first that is not)."""
        with self._read() as conn:
            infos = access.visible_sets(conn, self.project_id, self.actor, set_ids=list(set_ids))
            if len(infos) != len(set(set_ids)):
                got = {i.id for i in infos}
                missing = next(s for s in set_ids if s not in got)
                access.readable_set(conn, self.project_id, self.actor, missing)  # raises the precise refusal
            return read_contents(conn, infos)

    def my_set(self, document: str | int, *, kind: str = "annotation") -> AnnotationSet:
        """The acting user's own set on a document."""
        if self.actor.name is None:
            raise InvalidInput("the database owner has no sets of their own: act as an annotator (--as NAME)")
        found = self.sets(document=document, annotator=self.actor.name, kind=kind)
        if not found:
            raise NotFound(f"{self.actor.name} has no {kind} set on document {document!r}")
        return self.read_set(found[0].id)

    # -- writing ---------------------------------------------------------------------------------
    def _writable(self, conn: Connection, set_id: int, *, replacing: bool) -> SetInfo:
        """The set header if this user may change it now, else a precise refusal."""
        lock_set(conn, set_id)
        row = conn.execute(
            select(S.c.id, S.c.kind, S.c.status, S.c.annotator_id)
            .join(D, D.c.id == S.c.document_id)
            .where(S.c.id == set_id, D.c.project_id == self.project_id)
        ).first()
        if row is None:
            raise NotFound(f"no annotation set {set_id} in this project")
        _, kind, status, owner = row
        mine = owner is not None and owner == self.actor.id
        if kind == "gold":
            if not self.actor.can_adjudicate:
                raise PermissionDenied(f"only adjudicators and leads write gold (set {set_id})")
        elif mine:
            if status == "submitted" and not self.actor.is_lead:
                raise PermissionDenied(
                    f"set {set_id} is submitted and read-only; a lead can reopen it (`corpusdb reopen`)"
                )
        elif not (self.actor.is_lead and replacing):
            raise PermissionDenied(
                f"annotation set {set_id} is not yours: {self.actor.label} may not change another annotator's work"
            )
        return self._header(conn, set_id)

    def replace_set(
        self, set_id: int, annotations: Annotations, *, expected_version: int | None = None
    ) -> SetInfo:
        """Replace a set's whole content in one transaction (imports, scripted corrections)."""
        with self._write() as conn:
            info = self._writable(conn, set_id, replacing=True)
            content.delete_annotations(conn, [set_id])
            content.insert_annotations(conn, set_id, annotations)
            undo.clear(conn, [set_id])  # the whole content changed: old inverses no longer apply
            values: dict[str, Any] = {"extra": dict(annotations.extra) or None}
            if info.status == "assigned" and info.kind == "annotation" and info.annotator == self.actor.name:
                values["status"] = "in_progress"
            bump_version(conn, set_id, expected_version, **values)
            return self._header(conn, set_id)

    def edit_set(
        self,
        set_id: int,
        changes: Sequence[Change],
        *,
        expected_version: int,
        history: undo.Mode | None = None,
        description: str = "",
    ) -> EditResult:
        """Apply one user action (a few puts/removes) atomically; returns the undo for it.

        ``history`` ("do", "undo" or "redo", with the action's ``description``) keeps the set's undo
        stacks in the database in the same transaction (``corpusdb.services.undo``); without it the stacks
        are cleared, since an edit made outside them would make their inverses wrong."""
        with self._write() as conn:
            return self._edit_in(conn, set_id, changes, expected_version=expected_version, history=history,
                                 description=description)  # fmt: skip

    def _edit_in(
        self,
        conn: Connection,
        set_id: int,
        changes: Sequence[Change],
        *,
        expected_version: int | None,
        history: undo.Mode | None,
        description: str,
    ) -> EditResult:
        """``edit_set`` inside a transaction the caller owns (a bulk action edits many sets in one);
        ``expected_version`` None: whatever version the set has now (it is locked first)."""
        if not changes:
            raise InvalidInput("an edit needs at least one change")
        if history not in (None, "do", "undo", "redo"):
            raise InvalidInput(f"history must be do, undo or redo, not {history!r}")
        info = self._writable(conn, set_id, replacing=False)
        if expected_version is None:
            expected_version = info.version
        if info.version != expected_version:
            raise StaleVersion(set_id, expected_version, info.version)
        current = read_contents(conn, [info])[0].annotations
        if history not in ("undo", "redo"):  # undo/redo put back what was there: no new grounding
            _check_groundings(conn, self.project_id, info, current, changes)
        new, inverse = apply_changes(current, changes)
        marks = [c for c in changes if isinstance(c, Mark)]
        if len(marks) < len(changes):
            # Why rewrite the set: documents are small (hundreds of items) and a full rewrite keeps
            # references and order exactly as the records say, in the same transaction.
            content.delete_annotations(conn, [set_id])
            content.insert_annotations(conn, set_id, new)
        if marks:  # suggestions accepted or rejected by this action (corpusdb.recommend)
            from corpusdb.services.suggestion_marks import apply_marks

            apply_marks(conn, set_id, marks, lambda *a, **k: self._audit(conn, *a, **k))
        values: dict[str, Any] = {}
        if info.status == "assigned" and info.kind == "annotation":
            values["status"] = "in_progress"
        version = bump_version(conn, set_id, expected_version, **values)
        if history is None:
            undo.clear(conn, [set_id])
        else:
            undo.record(conn, set_id, history, description, inverse, version)
        return EditResult(self._header(conn, set_id), new, tuple(inverse))

    def edit_history(self, set_id: int) -> undo.EditHistory:
        """The undo and redo stacks of one of *my* sets (nobody else's: an annotator's history is
        theirs alone, not even a lead reads it)."""
        with self._read() as conn:
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            if info.kind != "annotation" or info.annotator is None or info.annotator != self.actor.name:
                raise PermissionDenied(f"the edit history of set {set_id} is its annotator's alone")
            return undo.read(conn, set_id)
