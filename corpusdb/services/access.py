"""The blindness gate: the one place that decides which annotation sets an actor may see.

Blindness is a security property, so every read of annotations (API, CLI, TUI, exports,
agreement, conflicts) goes through ``visible_sets`` or ``readable_set``; nothing else in corpusdb
selects set content for a user. The rules:

* An **annotator** or **system** sees only the sets it owns, whatever their kind or status.
* An **adjudicator** or **lead** sees gold and prediction sets, its own sets, and the annotation
  sets of a document once *every* annotation set of that document is submitted. Before that, it
  sees only the headers (who, status) through ``set_headers`` — never content or counts.
* The database owner (no ``--as``) acts as a lead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, Select, and_, case, false, func, or_, select, text, true

from corpusdb.basics.errors import NotFound, PermissionDenied
from corpusdb.basics.records import SetInfo
from corpusdb.services.base import Actor, aware
from corpusdb.store import tables

S = tables.annotation_set
D = tables.document
A = tables.annotator


def _header_query(project_id: int) -> Select:  # type: ignore[type-arg]
    return (
        select(
            S.c.id, S.c.document_id, D.c.external_id, A.c.name, S.c.kind, S.c.status,
            S.c.guideline_version, S.c.version, S.c.created, S.c.updated, S.c.seeded_from,
        )
        .join(D, D.c.id == S.c.document_id)
        .outerjoin(A, A.c.id == S.c.annotator_id)
        .where(D.c.project_id == project_id)
    )  # fmt: skip


def _info(row: Sequence[object]) -> SetInfo:
    return SetInfo(
        id=row[0],  # type: ignore[arg-type]
        document_id=row[1],  # type: ignore[arg-type]
        document_external_id=row[2],  # type: ignore[arg-type]
        annotator=row[3],  # type: ignore[arg-type]
        kind=row[4],  # type: ignore[arg-type]
        status=row[5],  # type: ignore[arg-type]
        guideline_version=row[6],  # type: ignore[arg-type]
        version=row[7],  # type: ignore[arg-type]
        created=aware(row[8]),  # type: ignore[arg-type]
        updated=aware(row[9]),  # type: ignore[arg-type]
        seeded_from=row[10],  # type: ignore[arg-type]
    )


def _document_complete(sets=S):  # type: ignore[no-untyped-def]
    """SQL: the set's document has no annotation set that is not yet submitted.

    Why ``NOT IN`` a list rather than a correlated ``NOT EXISTS``: the databases compute the
    documents still being annotated once per statement instead of once per set (half the time of
    listing a lead's 20,000 readable sets on SQLite); ``document_id`` is never NULL."""
    other = S.alias()
    return sets.c.document_id.not_in(
        select(other.c.document_id).where(other.c.kind == "annotation", other.c.status != "submitted")
    )


def visibility_clause(actor: Actor, sets=S):  # type: ignore[no-untyped-def]
    """SQL condition on ``annotation_set`` rows that this actor may read the content of (``sets``:
    the table, or an alias of it when a query joins sets twice)."""
    own = sets.c.annotator_id == actor.id if actor.id is not None else false()
    if actor.role in ("annotator", "system"):
        return own
    if actor.role in ("adjudicator", "lead"):
        return or_(own, sets.c.kind.in_(("gold", "prediction")), _document_complete(sets))
    return false()


def _filtered(
    q: Select,  # type: ignore[type-arg]
    *,
    document_ids: Sequence[int] | None = None,
    set_ids: Sequence[int] | None = None,
    kind: str | None = None,
    status: str | None = None,
    annotator: str | None = None,
) -> Select:  # type: ignore[type-arg]
    if document_ids is not None:
        q = q.where(S.c.document_id.in_(list(document_ids)))
    if set_ids is not None:
        q = q.where(S.c.id.in_(list(set_ids)))
    if kind is not None:
        q = q.where(S.c.kind == kind)
    if status is not None:
        q = q.where(S.c.status == status)
    if annotator is not None:
        q = q.where(A.c.name == annotator)
    return q.order_by(D.c.external_id, S.c.kind, A.c.name, S.c.id)


def visible_joined(
    conn: Connection, project_id: int, actor: Actor, table: Any, set_column: Any, columns: Sequence[Any],
    *, kind: str | None = None,
) -> list[tuple[SetInfo, tuple[Any, ...]]]:  # fmt: skip
    """The rows of ``table`` (joined on ``set_column``) whose set this actor may read, each with that
    set's header and ``columns``: for tables that hold a few rows about sets (skips), read in one
    query driven by them rather than by every header of the project (``status``, issue #26)."""
    q = _header_query(project_id).join(table, set_column == S.c.id).add_columns(*columns)
    q = q.where(visibility_clause(actor))
    if kind is not None:
        q = q.where(S.c.kind == kind)
    n = len(q.selected_columns) - len(columns)
    return [(_info(r[:n]), tuple(r[n:])) for r in conn.execute(q)]


def visible_sets(
    conn: Connection,
    project_id: int,
    actor: Actor,
    *,
    document_ids: Sequence[int] | None = None,
    set_ids: Sequence[int] | None = None,
    kind: str | None = None,
    status: str | None = None,
    annotator: str | None = None,
) -> list[SetInfo]:
    """Sets whose *content* this actor may read, filtered as asked."""
    q = _filtered(
        _header_query(project_id).where(visibility_clause(actor)),
        document_ids=document_ids, set_ids=set_ids, kind=kind, status=status, annotator=annotator,
    )  # fmt: skip
    return [_info(r) for r in conn.execute(q)]


def visible_set_ids(project_id: int, actor: Actor, *, kind: str | None = None) -> Select:  # type: ignore[type-arg]
    """SQL: the ids of the sets whose content this actor may read (a subquery for counts that must
    pass the gate without loading the headers: e.g. which layers have any items)."""
    q = select(S.c.id).join(D, D.c.id == S.c.document_id).where(D.c.project_id == project_id)
    q = q.where(visibility_clause(actor))
    return q.where(S.c.kind == kind) if kind is not None else q


def set_headers(
    conn: Connection,
    project_id: int,
    actor: Actor,
    *,
    document_ids: Sequence[int] | None = None,
    set_ids: Sequence[int] | None = None,
    kind: str | None = None,
    status: str | None = None,
    annotator: str | None = None,
) -> list[SetInfo]:
    """Set headers (who, status, version) for progress views: leads and adjudicators see all,
    annotators only their own. Headers carry no annotation content and no counts."""
    q = _filtered(
        _header_query(project_id).where(_header_clause(actor)),
        document_ids=document_ids, set_ids=set_ids, kind=kind, status=status, annotator=annotator,
    )  # fmt: skip
    return [_info(r) for r in conn.execute(q)]


def _header_clause(actor: Actor):  # type: ignore[no-untyped-def]
    """Which set headers an actor may see: leads and adjudicators all, annotators their own."""
    if actor.role in ("annotator", "system"):
        return S.c.annotator_id == actor.id if actor.id is not None else false()
    return true()


def set_counts(conn: Connection, project_id: int, actor: Actor) -> list[tuple[str, str, str | None, int]]:
    """``(kind, status, annotator, n)``: the headers ``set_headers`` shows, counted in SQL (one row
    per group, not one per set: ``status`` on 20,000 sets, issue #26)."""
    q = (
        select(S.c.kind, S.c.status, A.c.name, func.count())
        .select_from(S.join(D, D.c.id == S.c.document_id).outerjoin(A, A.c.id == S.c.annotator_id))
        .where(D.c.project_id == project_id, _header_clause(actor))
        .group_by(S.c.kind, S.c.status, A.c.name)
    )
    return [(r[0], r[1], r[2], int(r[3])) for r in conn.execute(q)]


def document_counts(conn: Connection, project_id: int, actor: Actor) -> tuple[int, int, int]:
    """Over the headers ``set_headers`` shows: documents whose annotation sets are all submitted
    (and there is at least one), documents with a gold set, documents with finished (submitted) gold;
    counted in SQL."""
    one = lambda cond: func.sum(case((cond, 1), else_=0))  # noqa: E731
    per_doc = (
        select(
            one(S.c.kind == "annotation").label("sets"),
            one(and_(S.c.kind == "annotation", S.c.status != "submitted")).label("open"),
            one(S.c.kind == "gold").label("gold"),
            one(and_(S.c.kind == "gold", S.c.status == "submitted")).label("finished"),
        )
        .select_from(S.join(D, D.c.id == S.c.document_id))
        .where(D.c.project_id == project_id, _header_clause(actor))
        .group_by(S.c.document_id)
        .subquery()
    )
    row = conn.execute(
        select(
            one(and_(per_doc.c.sets > 0, per_doc.c.open == 0)),
            one(per_doc.c.gold > 0),
            one(per_doc.c.finished > 0),
        )
    ).one()
    return int(row[0] or 0), int(row[1] or 0), int(row[2] or 0)


def readable_set(conn: Connection, project_id: int, actor: Actor, set_id: int) -> SetInfo:
    """The header of a set the actor may read, or a clear refusal."""
    found = visible_sets(conn, project_id, actor, set_ids=[set_id])
    if found:
        return found[0]
    exists_row = conn.execute(_header_query(project_id).where(S.c.id == set_id)).first()
    if exists_row is None and not _hidden_by_the_server(conn, project_id, set_id):
        raise NotFound(f"no annotation set {set_id} in this project")
    if actor.role in ("annotator", "system") or exists_row is None:
        raise PermissionDenied(
            f"annotation set {set_id} is not yours: {actor.label} can read only their own sets "
            "(annotation is double-blind until adjudication)"
        )
    info = _info(exists_row)
    raise PermissionDenied(
        f"annotation set {set_id} ({info.document_external_id}) is hidden until every annotator of that "
        "document has submitted (double-blind annotation)"
    )


def _hidden_by_the_server(conn: Connection, project_id: int, set_id: int) -> bool:
    """True when the set exists in this project but row-level security hides even its header (team
    mode on PostgreSQL): the refusal is then the same as the API's own, not "no such set"."""
    if conn.dialect.name != "postgresql":
        return False
    found = conn.execute(text("SELECT corpusdb_set_project(:s)"), {"s": set_id}).scalar()
    return found == project_id
